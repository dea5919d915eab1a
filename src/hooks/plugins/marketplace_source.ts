/**
 * A plugin's directory inside a local (`directory` or `file`) marketplace, read from the
 * marketplace's `marketplace.json` as Claude Code reads the live source (claude-compat.md §6b):
 * a relative `source` is a path inside the marketplace and never leads out of it, by its text
 * or through a symlink (plugin_containment.ts), and the plugin's root is where it really is; an
 * entry with a fetched source (`url`, `github`, ...) runs from the cache copy even in a local
 * marketplace.
 */
import { type Diagnostic, jsonPointer } from "../diagnostic.ts";
import { isRecord } from "../json_value_at.ts";
import { containmentOf, outsideWords } from "./plugin_containment.ts";
import {
  type JsonFileRead,
  lineAt,
  MarketplaceEntry,
  MarketplaceFile,
  registryFile,
  registryInvalid,
  resolveInside,
  schemaProblem,
} from "./plugin_registry_files.ts";

/** The `enabledPlugins` entry that asked for the plugin: its id, and the settings file. */
export interface EnablingEntry {
  readonly id: string;
  readonly file: string;
}

/**
 * The plugin's dir inside a local marketplace (its real path), "cache" for a fetched source, or
 * undefined after a diagnostic.
 */
export async function localSourceRoot(
  plugin: EnablingEntry,
  name: string,
  { dir, file }: { readonly dir: string; readonly file: string },
  marketplaceName: string,
  listing: JsonFileRead,
  report: (diagnostic: Diagnostic) => void,
): Promise<string | "cache" | undefined> {
  // A listing inside the marketplace by its name must be there once links are followed too.
  if (resolveInside(dir, file) !== undefined) {
    const where = await containmentOf(dir, file);
    if (where.kind === "outside") {
      report({
        code: "PLUGIN_LINK_OUTSIDE",
        severity: "error",
        file,
        pointer: "",
        message: `Cannot load plugin "${plugin.id}": the listing of marketplace ` +
          `"${marketplaceName}" is not inside the marketplace: ${outsideWords(dir, where)}; ` +
          "make it a file of the marketplace",
      });
      return undefined;
    }
  }
  const top = registryFile(plugin.id, file, listing, report);
  if (top === undefined) return undefined;
  if (top === "missing") {
    report(
      sourceMissing(
        plugin,
        file,
        "",
        `"${file}" does not exist, so the local marketplace "${marketplaceName}" is gone or moved; restore it or add it again with Claude Code ("claude plugin marketplace add <dir>")`,
      ),
    );
    return undefined;
  }
  const parsed = MarketplaceFile.safeParse(top.value);
  if (!parsed.success) {
    const problem = schemaProblem(parsed.error, top.value);
    report(
      registryInvalid(
        plugin.id,
        file,
        top.text,
        problem.path,
        `${problem.message}; fix the marketplace`,
      ),
    );
    return undefined;
  }
  const index = parsed.data.plugins.findIndex((p) => isRecord(p) && p.name === name);
  if (index < 0) {
    report(
      sourceMissing(
        plugin,
        file,
        "/plugins",
        `"${file}" lists no plugin named "${name}"; add it to the marketplace or remove the plugin from enabledPlugins in "${plugin.file}"`,
      ),
    );
    return undefined;
  }
  const entry = MarketplaceEntry.safeParse(parsed.data.plugins[index]);
  if (!entry.success) {
    const problem = schemaProblem(entry.error, parsed.data.plugins[index]);
    report(
      registryInvalid(
        plugin.id,
        file,
        top.text,
        ["plugins", index, ...problem.path],
        `plugin "${name}": ${problem.message}; fix its entry in the marketplace`,
      ),
    );
    return undefined;
  }
  if (typeof entry.data.source !== "string") return "cache";
  const source = entry.data.source;
  const path = ["plugins", index, "source"];
  const refuse = (why: string, code: Diagnostic["code"] = "PLUGIN_SOURCE_OUTSIDE_MARKETPLACE") => {
    report({
      code,
      severity: "error",
      file,
      pointer: jsonPointer(path),
      ...lineAt(top.text, path),
      message: `Cannot load plugin "${plugin.id}" from "${file}": its source "${source}" ${why}`,
    });
    return undefined;
  };
  const stayHere = "and llama-agent reads a local marketplace's plugins only from inside it; " +
    `move the plugin under the marketplace or give it a "url" or "github" source`;
  const root = resolveInside(dir, source);
  if (root === undefined) {
    return refuse(`leads outside the marketplace directory "${dir}", ${stayHere}`);
  }
  const where = await containmentOf(dir, root);
  switch (where.kind) {
    case "inside":
      return where.path;
    case "outside":
      return refuse(
        `is not inside the marketplace directory: ${outsideWords(dir, where)}, ${stayHere}`,
      );
    case "unresolved":
      return refuse(`cannot be followed: ${where.reason}`, "PLUGIN_SOURCE_MISSING");
    default:
      return where satisfies never;
  }
}

function sourceMissing(
  plugin: EnablingEntry,
  file: string,
  pointer: string,
  why: string,
): Diagnostic {
  const message = `Cannot load plugin "${plugin.id}": ${why}`;
  return { code: "PLUGIN_SOURCE_MISSING", severity: "error", file, pointer, message };
}
