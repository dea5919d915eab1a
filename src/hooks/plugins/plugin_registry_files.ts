/**
 * The files Claude Code keeps about installed plugins (claude-compat.md §6b), as zod schemas,
 * and reading one of them as JSON: `$HOME/.claude/plugins/installed_plugins.json`,
 * `$HOME/.claude/plugins/known_marketplaces.json`, and a local marketplace's
 * `.claude-plugin/marketplace.json`. Objects are loose: Claude Code writes more fields
 * (`installedAt`, `gitCommitSha`, `owner`, `description`, ...) than finding a plugin needs.
 */
import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { z } from "zod";
import { errorMessage } from "../../error.ts";
import { outsideGrantWords } from "../../outside_grant.ts";
import { type Diagnostic, jsonPointer } from "../diagnostic.ts";
import { valueAt } from "../json_value_at.ts";
import { isAbsolutePath, normalizePath } from "../matching/path_text.ts";
import { withoutBom } from "../../text_position.ts";

/** The `version` of `installed_plugins.json` that Claude Code 2.1 writes, the only one read. */
export const INSTALLED_PLUGINS_VERSION = 2;

export function installedPluginsPath(home: string): string {
  return `${home}/.claude/plugins/installed_plugins.json`;
}

export function knownMarketplacesPath(home: string): string {
  return `${home}/.claude/plugins/known_marketplaces.json`;
}

function marketplaceFilePath(marketplaceDir: string): string {
  return `${marketplaceDir}/.claude-plugin/marketplace.json`;
}

/** The top of `installed_plugins.json`; `version` is checked first, for its own message. */
export const InstalledPluginsFile = z.looseObject({
  version: z.unknown(),
  plugins: z.record(z.string(), z.unknown(), {
    error: '"plugins" must map "<name>@<marketplace>" ids to install records',
  }),
});

/** One element of `plugins["<id>"]`: where one scope installed the plugin. */
export const InstallRecord = z.looseObject({
  scope: z.string({ error: '"scope" must be a string ("user", "project" or "local")' }),
  installPath: z.string({ error: '"installPath" must be a string' })
    .refine(isAbsolutePath, { error: '"installPath" must be an absolute path' }),
  projectPath: z.string({ error: '"projectPath" must be a string' }).optional(),
});
export type InstallRecord = z.infer<typeof InstallRecord>;

/** `source` of a marketplace: `directory` and `file` are local, the rest are fetched copies. */
const MarketplaceSource = z.looseObject({
  source: z.string({ error: '"source.source" must be a string such as "directory" or "github"' }),
  path: z.string({ error: '"source.path" must be a string' }).optional(),
});

/**
 * One marketplace of `known_marketplaces.json`, or of `extraKnownMarketplaces` in settings
 * (which has no `installLocation`).
 */
export const KnownMarketplace = z.looseObject({
  source: MarketplaceSource,
  installLocation: z.string({ error: '"installLocation" must be a string' }).optional(),
});
export type KnownMarketplace = z.infer<typeof KnownMarketplace>;

export const MarketplaceFile = z.looseObject({
  plugins: z.array(z.unknown(), { error: '"plugins" must be an array of plugin entries' }),
});

/** One plugin of `marketplace.json`: a path inside the marketplace, or a fetched source. */
export const MarketplaceEntry = z.looseObject({
  name: z.string(),
  source: z.union([z.string(), z.looseObject({ source: z.string() })], {
    error: '"source" must be a path such as "./plugins/name" or an object with a "source"',
  }),
});
export type MarketplaceEntry = z.infer<typeof MarketplaceEntry>;

/**
 * The first problem of a failed parse of `value`, with the field it is about where zod's own
 * wording ("Invalid input: ...") lacks it, and "is required" for a field that is absent.
 */
export function schemaProblem(
  error: z.ZodError,
  value: unknown,
): { path: (string | number)[]; message: string } {
  const issue = error.issues[0];
  if (issue === undefined) return { path: [], message: "it does not match the expected shape" };
  const path = issue.path.filter((s) => typeof s === "string" || typeof s === "number");
  const name = path.length === 0 ? "the value" : `"${path.join(".")}"`;
  if (issue.code === "invalid_type" && path.length > 0 && valueAt(value, path) === undefined) {
    return { path, message: `${name} is required` };
  }
  if (issue.code === "invalid_type" && issue.message.startsWith("Invalid input")) {
    return { path, message: `${name} must be ${article(issue.expected)} ${issue.expected}` };
  }
  return { path, message: issue.message };
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

/** What reading one of these files gave: never a throw. */
export type JsonFileRead =
  | { readonly kind: "missing" }
  /** `outside`: llama-agent may not read it (outside_grant.ts), and `message` says so. */
  | { readonly kind: "unreadable"; readonly message: string; readonly outside: boolean }
  | { readonly kind: "not_json"; readonly message: string }
  | { readonly kind: "json"; readonly value: unknown; readonly text: string };

export async function readJsonFile(
  read: (path: string) => Promise<string>,
  path: string,
): Promise<JsonFileRead> {
  let raw: string;
  try {
    raw = await read(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { kind: "missing" };
    const outside = outsideGrantWords(error);
    return outside === undefined
      ? { kind: "unreadable", message: errorMessage(error), outside: false }
      : { kind: "unreadable", message: outside, outside: true };
  }
  const text = withoutBom(raw).body;
  try {
    return { kind: "json", value: JSON.parse(text), text };
  } catch (error) {
    return { kind: "not_json", message: errorMessage(error) };
  }
}

/**
 * The 1-based line of the entry a path names (a property's key), or of its nearest existing
 * ancestor; undefined when the text has no such structure.
 */
function lineOf(text: string, path: readonly (string | number)[]): number | undefined {
  const root = parseTree(text);
  if (root === undefined) return undefined;
  for (let length = path.length; length >= 0; length--) {
    const node = findNodeAtLocation(root, path.slice(0, length));
    if (node === undefined) continue;
    const offset = node.parent?.type === "property" ? node.parent.offset : node.offset;
    return text.slice(0, offset).split("\n").length;
  }
  return undefined;
}

/** A marketplace found for an id, and where it was found (for diagnostics). */
export interface FoundMarketplace {
  readonly name: string;
  readonly entry: KnownMarketplace;
  readonly file: string;
  readonly pointer: string;
}

export type MarketplaceKind =
  /** A `directory` or `file` source: its plugins may be read in place. */
  | { readonly kind: "local"; readonly dir: string; readonly file: string }
  /** `github`, `git`, `url`, ...: only the cache copy of a plugin exists. */
  | { readonly kind: "fetched" }
  | { readonly kind: "invalid"; readonly message: string };

/**
 * Where a local marketplace is and which file lists its plugins: `installLocation`, else the
 * source's path (a `file` source names the marketplace.json itself, whose dir, or the dir above
 * a `.claude-plugin` dir, is the marketplace's (inferred from §6b)).
 */
export function marketplaceKind(entry: KnownMarketplace): MarketplaceKind {
  const { source, installLocation } = entry;
  if (source.source !== "directory" && source.source !== "file") return { kind: "fetched" };
  const path = source.path !== undefined && isAbsolutePath(source.path) ? source.path : undefined;
  const fromPath = path === undefined
    ? undefined
    : source.source === "directory"
    ? path
    : marketplaceDirOfFile(path);
  const dir = installLocation ?? fromPath;
  if (dir === undefined || !isAbsolutePath(dir)) {
    return {
      kind: "invalid",
      message:
        `a "${source.source}" marketplace needs an absolute "installLocation" or "source.path"`,
    };
  }
  const trimmed = dir.length > 1 ? dir.replace(/\/+$/, "") : dir;
  const file = source.source === "file" && path !== undefined ? path : marketplaceFilePath(trimmed);
  return { kind: "local", dir: trimmed, file };
}

function marketplaceDirOfFile(path: string): string {
  const parent = path.slice(0, Math.max(path.lastIndexOf("/"), 1));
  return parent.endsWith("/.claude-plugin")
    ? parent.slice(0, Math.max(parent.length - "/.claude-plugin".length, 1))
    : parent;
}

/**
 * `path` resolved against `dir` when it stays inside it (`dir` itself included), else
 * undefined: a marketplace's entries may not point anywhere else on the disk.
 */
export function resolveInside(dir: string, path: string): string | undefined {
  const base = normalizePath(dir);
  const full = normalizePath(isAbsolutePath(path) ? path : `${base}/${path}`);
  return full === base || full.startsWith(base === "/" ? "/" : `${base}/`) ? full : undefined;
}

/**
 * The parsed file, "missing", or undefined after reporting, for the plugin that needed it, that
 * it cannot be read or parsed.
 */
export function registryFile(
  pluginId: string,
  file: string,
  read: JsonFileRead,
  report: (diagnostic: Diagnostic) => void,
): { value: unknown; text: string } | "missing" | undefined {
  switch (read.kind) {
    case "missing":
      return "missing";
    case "json":
      return read;
    case "unreadable":
      report({
        code: "PLUGIN_REGISTRY_UNREADABLE",
        severity: "error",
        file,
        pointer: "",
        message: `Cannot load plugin "${pluginId}": cannot read "${file}": ${read.message}; ` +
          (read.outside
            ? "start llama-agent from a directory that contains it, or remove the plugin from " +
              "enabledPlugins"
            : "make it the regular file Claude Code writes, or remove the plugin from " +
              "enabledPlugins"),
      });
      return undefined;
    case "not_json":
      report({
        code: "PLUGIN_REGISTRY_INVALID",
        severity: "error",
        file,
        pointer: "",
        message:
          `Cannot load plugin "${pluginId}" from "${file}": it is not valid JSON (${read.message}); fix the file, or remove it and set the plugin up again with Claude Code`,
      });
      return undefined;
    default:
      return read satisfies never;
  }
}

export function registryInvalid(
  pluginId: string,
  file: string,
  text: string,
  path: readonly (string | number)[],
  detail: string,
): Diagnostic {
  return {
    code: "PLUGIN_REGISTRY_INVALID",
    severity: "error",
    file,
    pointer: jsonPointer(path),
    ...lineAt(text, path),
    message: `Cannot load plugin "${pluginId}" from "${file}": ${detail}`,
  };
}

export function lineAt(text: string, path: readonly (string | number)[]): { line?: number } {
  const line = lineOf(text, path);
  return line === undefined ? {} : { line };
}
