/**
 * The settings chain (hooks.md §1): up to three files, read as JSONC, validated entry by entry,
 * merged additively in chain order. A bad entry costs only itself; nothing here throws.
 */
import { errorMessage } from "../../error.ts";
import { outsideGrantWords } from "../../outside_grant.ts";
import { readConfigFile } from "../../config_file.ts";
import { type Diagnostic, jsonPointer } from "../diagnostic.ts";
import type { EventProfile } from "../event_table.ts";
import type { SettingsScope } from "../registration.ts";
import {
  type EntrySink,
  type LoadedHandler,
  readHooks,
  type SkippedEntry,
} from "./settings_entries.ts";
import { parseSettingsFile, type SettingsFile } from "./settings_file.ts";

export type { LoadedHandler, SkippedEntry } from "./settings_entries.ts";

export interface SettingsPath {
  readonly scope: SettingsScope;
  readonly path: string;
}

/** Reads a whole text file; throws `Deno.errors.NotFound` when the file does not exist. */
export type ReadTextFile = (path: string) => Promise<string>;

export interface LoadSettingsOptions {
  /** The session cwd; no walk-up to parent directories. */
  readonly cwd: string;
  /** `$HOME`; the user file is skipped when it is undefined or empty. */
  readonly home: string | undefined;
  /** Default `readConfigFile`: regular files of at most 4 MiB; FIFOs and devices refused. */
  readonly readTextFile?: ReadTextFile;
  /** Which events register (a profile's `extraEvents`); default: the source document's. */
  readonly profile?: EventProfile;
}

export type SettingsFileStatus =
  | "missing"
  | "unreadable"
  /** Not JSONC, or its top level is not an object: it contributes nothing. */
  | "invalid"
  | "loaded";

export interface LoadedSettingsFile extends SettingsPath {
  readonly status: SettingsFileStatus;
  /** Present when `status` is `"loaded"`; `hooks lint` reads its JSONC usage. */
  readonly settings?: SettingsFile;
}

export interface LoadedSettings {
  /** Every file of the chain, in chain order, including missing ones. */
  readonly files: readonly LoadedSettingsFile[];
  /** Valid handlers in chain order (user → project → local, then file order). */
  readonly handlers: readonly LoadedHandler[];
  readonly skipped: readonly SkippedEntry[];
  readonly diagnostics: readonly Diagnostic[];
  /** Paths of the files that say `"disableAllHooks": true`; non-empty means no hook runs. */
  readonly disabledBy: readonly string[];
  /**
   * The plugins `enabledPlugins` turns on once the chain is merged (a later file wins per id,
   * as Claude Code merges settings), in the order their ids first appear in the chain.
   */
  readonly enabledPlugins: readonly EnabledPluginSetting[];
  /** `extraKnownMarketplaces` of the chain merged, a later file winning per marketplace. */
  readonly extraKnownMarketplaces: Readonly<Record<string, unknown>>;
}

/** A plugin the merged chain enables, and the entry that does it. */
export interface EnabledPluginSetting {
  /** `<name>@<marketplace>`. */
  readonly id: string;
  /** The settings file whose entry won. */
  readonly file: string;
  /** JSON pointer of that entry, e.g. `/enabledPlugins/t2plug@t2market`. */
  readonly pointer: string;
  /** The entry's line in `file`. */
  readonly line: number;
}

/**
 * The chain in order, lowest precedence first. A file already in it is not listed again for a
 * later scope: in `$HOME` itself the user file is the project file, and is read once, as user.
 */
export function settingsChainPaths(cwd: string, home: string | undefined): SettingsPath[] {
  const paths: SettingsPath[] = [];
  if (home !== undefined && home !== "") {
    paths.push({ scope: "user", path: claudeFile(home, "settings.json") });
  }
  paths.push({ scope: "project", path: claudeFile(cwd, "settings.json") });
  paths.push({ scope: "local", path: claudeFile(cwd, "settings.local.json") });
  return paths.filter(({ path }, i) => paths.findIndex((p) => p.path === path) === i);
}

/**
 * The chain without the files that are an earlier one under another name (a symlinked `$HOME`
 * or `.claude`): each is read once, for its first scope. A path that cannot be resolved (a file
 * that does not exist) stands for itself.
 */
async function distinctFiles(chain: readonly SettingsPath[]): Promise<SettingsPath[]> {
  const real = await Promise.all(chain.map(({ path }) => Deno.realPath(path).catch(() => path)));
  return chain.filter((_, i) => real.indexOf(real[i]!) === i);
}

// Plain string joining: `node:path` would pull in `@types/node`, which this project lacks.
function claudeFile(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, "")}/.claude/${name}`;
}

export async function loadSettingsChain(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const read = options.readTextFile ?? readConfigFile;
  const chain = await distinctFiles(settingsChainPaths(options.cwd, options.home));
  // All opens at once: a cwd without `.claude` costs one round of failed opens.
  const texts = await Promise.all(chain.map(({ path }) => readOrMissing(read, path)));

  const files: LoadedSettingsFile[] = [];
  const sink: EntrySink = { handlers: [], skipped: [], diagnostics: [] };
  const disabledBy: string[] = [];
  chain.forEach(({ scope, path }, i) => {
    const text = texts[i];
    if (text === undefined || text.kind === "missing") {
      files.push({ scope, path, status: "missing" });
    } else if (text.kind === "unreadable") {
      files.push({ scope, path, status: "unreadable" });
      sink.diagnostics.push({
        code: "SETTINGS_UNREADABLE",
        severity: "error",
        file: path,
        pointer: "",
        message: `Cannot read settings file: ${text.message}`,
      });
    } else {
      const parsed = parseSettingsFile(path, text.text);
      sink.diagnostics.push(...parsed.diagnostics);
      if (parsed.settings === undefined) {
        files.push({ scope, path, status: "invalid" });
        return;
      }
      files.push({ scope, path, status: "loaded", settings: parsed.settings });
      if (parsed.settings.disableAllHooks === true) disabledBy.push(path);
      if (parsed.settings.hooks) {
        readHooks(scope, parsed.settings, parsed.settings.hooks, sink, options.profile);
      }
    }
  });
  return { files, ...sink, disabledBy, ...mergePluginSettings(files) };
}

/** The chain's plugin keys merged in chain order: a later file wins per id (local > user). */
function mergePluginSettings(
  files: readonly LoadedSettingsFile[],
): Pick<LoadedSettings, "enabledPlugins" | "extraKnownMarketplaces"> {
  const enabled = new Map<
    string,
    { readonly setting: EnabledPluginSetting; readonly on: boolean }
  >();
  const marketplaces = new Map<string, unknown>();
  for (const { settings } of files) {
    if (settings === undefined) continue;
    for (const [id, on] of Object.entries(settings.enabledPlugins ?? {})) {
      const pointer = jsonPointer(["enabledPlugins", id]);
      const line = settings.positionOf(pointer).line;
      // A Map keeps an id where it first appeared, as an object merge keeps a key's position.
      enabled.set(id, { setting: { id, file: settings.path, pointer, line }, on });
    }
    for (const [name, source] of Object.entries(settings.extraKnownMarketplaces ?? {})) {
      marketplaces.set(name, source);
    }
  }
  return {
    enabledPlugins: [...enabled.values()].filter(({ on }) => on).map(({ setting }) => setting),
    extraKnownMarketplaces: Object.fromEntries(marketplaces),
  };
}

type ReadOutcome =
  | { readonly kind: "missing" }
  | { readonly kind: "unreadable"; readonly message: string }
  | { readonly kind: "text"; readonly text: string };

async function readOrMissing(read: ReadTextFile, path: string): Promise<ReadOutcome> {
  try {
    return { kind: "text", text: await read(path) };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { kind: "missing" };
    // A settings file that links out of the project and the home directory.
    const outside = outsideGrantWords(error);
    return {
      kind: "unreadable",
      message: outside === undefined ? errorMessage(error) : `${outside}; make it a regular file`,
    };
  }
}
