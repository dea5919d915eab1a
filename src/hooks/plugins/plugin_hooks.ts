/**
 * One plugin's hooks (claude-compat.md §6): `DIR/.claude-plugin/plugin.json` names the plugin,
 * `DIR/hooks/hooks.json` holds its hooks under a top-level `hooks` key, read entry by entry
 * exactly like a settings file. Both must lie inside `DIR` once links are followed
 * (plugin_containment.ts). A broken plugin is a diagnostic naming it; nothing here throws.
 */
import { z } from "zod";
import { readConfigFile } from "../../config_file.ts";
import { errorMessage } from "../../error.ts";
import { outsideGrantWords } from "../../outside_grant.ts";
import { isDirectory } from "../../path_exists.ts";
import { type Diagnostic, jsonPointer } from "../diagnostic.ts";
import { type EventProfile, isHookEventName } from "../event_table.ts";
import { isRecord } from "../json_value_at.ts";
import { containmentOf, outsideWords } from "./plugin_containment.ts";
import { pluginDataDir, type PluginLocation } from "./plugin_location.ts";
import type { ReadTextFile } from "../settings/settings_chain.ts";
import { type EntrySink, readHooks } from "../settings/settings_entries.ts";
import { parseSettingsFile, type SettingsFile } from "../settings/settings_file.ts";

export type PluginStatus =
  /** `hooks/hooks.json` was read; its valid entries are the plugin's hooks. */
  | "loaded"
  /** The plugin has no `hooks/hooks.json`: it simply has no hooks. */
  | "no_hooks"
  /** Its directory is gone (an installed plugin whose copy was removed): diagnosed. */
  | "missing"
  | "unreadable"
  /** Its `hooks/hooks.json` leads, through a symlink, outside the plugin: not read. */
  | "outside"
  /** Not JSONC, not an object, or its events are outside the `hooks` object: no hook loads. */
  | "invalid";

export interface LoadedPlugin {
  readonly location: PluginLocation;
  /** `<root>/hooks/hooks.json`, whether or not it exists. */
  readonly hooksFile: string;
  readonly status: PluginStatus;
  /** Present when `status` is `"loaded"` or the file parsed but was refused (`hooks lint`). */
  readonly settings?: SettingsFile;
}

export interface PluginReadOptions {
  /** Default `readConfigFile`. */
  readonly readTextFile?: ReadTextFile;
  /** Which events register, as for settings files. */
  readonly profile?: EventProfile;
  /** The home directory, which the words for a plugin llama-agent may not read name. */
  readonly home?: string;
}

/**
 * What to do about a plugin (or a link in it) outside what llama-agent may read: Claude Code
 * reads a plugin wherever it is, llama-agent only under those two directories.
 */
const MOVE_PLUGIN = "start llama-agent from a directory that contains the plugin, or move the " +
  "plugin (and what its links lead to) under your home directory";

const PluginManifest = z.looseObject({
  name: z.string({ error: '"name" must be a string' }).min(1, {
    error: '"name" must not be empty',
  }),
});

/**
 * The plugin a `--plugin-dir` names: its manifest read for its name (`<name>@inline`), its root
 * the directory as given. Undefined, with a diagnostic naming the directory, when the manifest is
 * missing or has no usable `name`: Claude Code says ".claude-plugin at its top marks it".
 */
export async function readPluginDir(
  dir: string,
  home: string | undefined,
  options: PluginReadOptions = {},
): Promise<{ readonly location?: PluginLocation; readonly diagnostics: readonly Diagnostic[] }> {
  const root = dir.length > 1 ? dir.replace(/\/+$/, "") : dir;
  const file = `${root}/.claude-plugin/plugin.json`;
  const refuse = (code: Diagnostic["code"], pointer: string, detail: string) => ({
    diagnostics: [{
      code,
      severity: "error" as const,
      file,
      pointer,
      message: `Cannot load the plugin in "${root}": ${detail}`,
    }],
  });
  const leaves = await leavesPlugin(root, file);
  if (leaves !== undefined) {
    return refuse("PLUGIN_LINK_OUTSIDE", "", `".claude-plugin/plugin.json" ${leaves}`);
  }
  let text: string;
  try {
    text = await (options.readTextFile ?? readConfigFile)(file);
  } catch (error) {
    const outside = outsideGrantWords(error, home);
    const detail = error instanceof Deno.errors.NotFound
      ? `it has no ".claude-plugin/plugin.json", which marks a plugin directory and names it`
      : outside !== undefined
      ? `cannot read ".claude-plugin/plugin.json": ${outside}; ${MOVE_PLUGIN}`
      : `cannot read ".claude-plugin/plugin.json": ${errorMessage(error)}; make it a regular ` +
        "JSON file";
    return refuse("SETTINGS_UNREADABLE", "", detail);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return refuse(
      "SETTINGS_PARSE",
      "",
      `".claude-plugin/plugin.json" is not JSON: ${errorMessage(error)}`,
    );
  }
  if (!isRecord(value)) {
    return refuse("SETTINGS_INVALID", "", `".claude-plugin/plugin.json" must be a JSON object`);
  }
  const manifest = PluginManifest.safeParse(value);
  if (!manifest.success) {
    const detail = "name" in value
      ? manifest.error.issues[0]?.message ?? '"name" is invalid'
      : '"name" is required';
    return refuse("SETTINGS_INVALID", "/name", `".claude-plugin/plugin.json": ${detail}`);
  }
  const { name } = manifest.data;
  const id = `${name}@inline`;
  return {
    location: { id, name, root, dataDir: pluginDataDir(home, id), origin: "plugin_dir" },
    diagnostics: [],
  };
}

/**
 * Reads a plugin's `hooks/hooks.json` into `sink` (its handlers in file order, each with the
 * plugin in its source) and says how it went.
 */
export async function readPluginHooks(
  location: PluginLocation,
  sink: EntrySink,
  options: PluginReadOptions = {},
): Promise<LoadedPlugin> {
  const hooksFile = `${location.root.replace(/\/+$/, "")}/hooks/hooks.json`;
  const done = (status: PluginStatus, settings?: SettingsFile): LoadedPlugin =>
    settings === undefined
      ? { location, hooksFile, status }
      : { location, hooksFile, status, settings };
  const leaves = await leavesPlugin(location.root, hooksFile);
  if (leaves !== undefined) {
    sink.diagnostics.push({
      code: "PLUGIN_LINK_OUTSIDE",
      severity: "error",
      file: hooksFile,
      pointer: "",
      message: `Cannot load the hooks of plugin "${location.id}": "hooks/hooks.json" ${leaves}`,
    });
    return done("outside");
  }
  let text: string;
  try {
    text = await (options.readTextFile ?? readConfigFile)(hooksFile);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      if (await isDirectory(location.root)) return done("no_hooks");
      sink.diagnostics.push({
        code: "PLUGIN_SOURCE_MISSING",
        severity: "error",
        file: location.root,
        pointer: "",
        message: `Cannot load plugin "${location.id}": its directory "${location.root}" does ` +
          `not exist` + (location.origin === "installed"
            ? `; reinstall it with Claude Code ("claude plugin install ${location.id}")`
            : ""),
      });
      return done("missing");
    }
    const outside = outsideGrantWords(error, options.home);
    sink.diagnostics.push({
      code: "SETTINGS_UNREADABLE",
      severity: "error",
      file: hooksFile,
      pointer: "",
      message: `Cannot read the hooks of plugin "${location.id}": ` +
        (outside === undefined
          ? `${errorMessage(error)}; make "hooks/hooks.json" a regular JSON file, or remove the ` +
            "plugin"
          : `${outside}; ${MOVE_PLUGIN}`),
    });
    return done("unreadable");
  }
  const parsed = parseSettingsFile(hooksFile, text);
  sink.diagnostics.push(...parsed.diagnostics.map((d) => ofPlugin(location, d)));
  const { settings } = parsed;
  if (settings === undefined) return done("invalid");
  const outside = topLevelEvents(settings);
  if (outside.length > 0) {
    const pointer = jsonPointer([outside[0]!]);
    sink.diagnostics.push({
      code: "SETTINGS_INVALID",
      severity: "error",
      file: hooksFile,
      pointer,
      ...settings.positionOf(pointer),
      message: `Cannot load the hooks of plugin "${location.id}": the file declares ` +
        `${outside.map((e) => `"${e}"`).join(", ")} at its top level, outside the "hooks" ` +
        `object, so none of its hooks load (Claude Code drops the whole plugin silently): ` +
        `move ${outside.length === 1 ? "it" : "them"} into {"hooks": {...}}`,
    });
    return done("invalid", settings);
  }
  if (settings.hooks !== undefined) {
    readHooks(location, settings, settings.hooks, sink, options.profile);
  }
  return done("loaded", settings);
}

/**
 * Why `file` of the plugin at `root` is not read because it is not inside the plugin once links
 * are followed (words that follow the file's name), or undefined when it is (or is missing).
 */
async function leavesPlugin(root: string, file: string): Promise<string | undefined> {
  const where = await containmentOf(root, file);
  switch (where.kind) {
    case "inside":
      return undefined;
    case "outside":
      return `is not inside the plugin: ${outsideWords(root, where)}; ` +
        "make it a file of the plugin, not a link out of it";
    case "unresolved":
      return `cannot be followed: ${where.reason}`;
    default:
      return where satisfies never;
  }
}

/** Top-level keys that are event names: a flat file, the `hooks` wrapper forgotten. */
function topLevelEvents(settings: SettingsFile): string[] {
  const keys = (settings.root?.children ?? []).map((property) => property.children?.[0]?.value);
  return [...new Set(keys.filter((key) => typeof key === "string" && isHookEventName(key)))];
}

/** A file-level problem of `hooks.json` says whose plugin it is. */
function ofPlugin(location: PluginLocation, diagnostic: Diagnostic): Diagnostic {
  if (diagnostic.pointer !== "") return diagnostic;
  return { ...diagnostic, message: `Plugin "${location.id}": ${diagnostic.message}` };
}
