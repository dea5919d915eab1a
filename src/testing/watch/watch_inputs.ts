/**
 * What each scenario file of a `hooks test --watch` run depends on, so a change reruns only the
 * files it can affect:
 *
 * - the scenario file itself;
 * - every settings file of the chain its cases run against: the project's `settings.json` and
 *   `settings.local.json` and the fixture HOME's, or the case's `settings` override file instead;
 * - every script inside the project that a hook the case can fire names (`bash x.sh`,
 *   `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.py`, `./x.sh`, `python3 x.py`): an event case fires
 *   the hooks of its event whose matcher accepts its input, a session case may fire any;
 * - everything under its fixture HOME and plugin directories, which are copied whole into each
 *   case's place.
 *
 * Paths are canonical (links resolved, as far as they exist), so a change reported under another
 * name of the same file still matches. Reading follows the runner; where it cannot tell (a file
 * that does not load) it keeps what it knows: the file itself and the project's chain.
 */
import { basename, dirname, resolve } from "node:path";
import { readConfigFile } from "../../config_file.ts";
import { isFiredSomewhere } from "../../hooks/event_table.ts";
import type { CommandHandlerConfig } from "../../hooks/handler_config.ts";
import { matches } from "../../hooks/matching/matcher.ts";
import { completePayload } from "../../hooks/payload_defaults.ts";
import { programWords, scriptReferences, splitShell } from "../../hooks/lint/script_path_lint.ts";
import { loadSessionHooks } from "../../hooks/session_hooks.ts";
import { type ReadTextFile, settingsChainPaths } from "../../hooks/settings/settings_chain.ts";
import type { LoadedHandler } from "../../hooks/settings/settings_entries.ts";
import {
  type CompatProfile,
  compatProfile,
  type ProfileSetting,
} from "../../profile/compat_profile.ts";
import { SCENARIO_SUFFIX } from "../scenarios/discover_scenarios.ts";
import {
  type LoadedCase,
  type LoadedScenario,
  loadScenarioFile,
} from "../scenarios/scenario_file.ts";
import { isEventCase } from "../scenarios/scenario_schema.ts";

export interface WatchInputs {
  /** A file (canonical) → the scenario files (as given) that a change of it reruns. */
  readonly files: ReadonlyMap<string, ReadonlySet<string>>;
  /** A directory (canonical) → the scenario files a change anywhere below it reruns. */
  readonly trees: ReadonlyMap<string, ReadonlySet<string>>;
  /** Directories (canonical) where a new scenario file joins the run. */
  readonly scenarioDirs: readonly string[];
  /** Every scenario file, as given. */
  readonly scenarios: readonly string[];
}

export interface WatchInputsRequest {
  /** The repository whose settings the cases run against. */
  readonly projectDir: string;
  /** The scenario files of the run, absolute. */
  readonly files: readonly string[];
  /** Where new scenario files appear: the scenario directory, or the directories named. */
  readonly scenarioDirs: readonly string[];
  /** `--compat`: the profile of cases that name none; absent or `"auto"`: decided per case. */
  readonly profile?: ProfileSetting;
  /** `--plugin-dir`, absolute. */
  readonly pluginDirs?: readonly string[];
}

/** Reads the scenario files and their chains; never throws. */
export async function collectWatchInputs(request: WatchInputsRequest): Promise<WatchInputs> {
  const files = new Map<string, Set<string>>();
  const trees = new Map<string, Set<string>>();
  const add = async (map: Map<string, Set<string>>, path: string, scenario: string) => {
    const key = await canonicalPath(path);
    const dependents = map.get(key) ?? new Set<string>();
    dependents.add(scenario);
    map.set(key, dependents);
  };
  const chains = new Map<string, Promise<CaseChain>>();
  for (const file of request.files) {
    await add(files, file, file);
    const loaded = await loadScenarioFile(file);
    const unknown = !loaded.ok || (loaded.scenario.invalidCases?.length ?? 0) > 0;
    if (unknown) {
      // Cases that do not load say nothing of their place: the project's chain is the best guess.
      for (const { path } of settingsChainPaths(request.projectDir, undefined)) {
        await add(files, path, file);
      }
    }
    if (!loaded.ok) continue;
    for (const item of loaded.scenario.cases) {
      const place = casePlace(request, loaded.scenario, item);
      const key = JSON.stringify(place);
      const chain = chains.get(key) ?? loadChain(request.projectDir, place);
      chains.set(key, chain);
      const { settingsFiles, handlers } = await chain;
      for (const path of settingsFiles) await add(files, path, file);
      for (const path of scriptsOfCase(item, handlers, request.projectDir)) {
        await add(files, path, file);
      }
      for (const dir of [...place.home === undefined ? [] : [place.home], ...place.pluginDirs]) {
        await add(trees, dir, file);
      }
    }
  }
  const scenarioDirs = await Promise.all(request.scenarioDirs.map(canonicalPath));
  return { files, trees, scenarioDirs, scenarios: [...request.files] };
}

/** What a set of changed paths reruns. */
export interface AffectedScenarios {
  /** The scenario files to rerun, as given, sorted. */
  readonly files: readonly string[];
  /** A scenario file may have been added or removed: look for them again. */
  readonly rediscover: boolean;
}

/**
 * The scenario files that changes of `changed` (canonical paths) rerun. A changed directory
 * that holds dependencies (created, renamed, removed) reruns their dependents.
 */
export function affectedScenarios(
  inputs: WatchInputs,
  changed: readonly string[],
): AffectedScenarios {
  const found = new Set<string>();
  let rediscover = false;
  for (const path of changed) {
    for (const scenario of inputs.files.get(path) ?? []) found.add(scenario);
    for (const [dir, dependents] of inputs.trees) {
      if (isWithin(dir, path) || isWithin(path, dir)) dependents.forEach((s) => found.add(s));
    }
    for (const [file, dependents] of inputs.files) {
      if (file !== path && isWithin(path, file)) dependents.forEach((s) => found.add(s));
    }
    // Looking again is cheap, and tells a new or removed file from an editor's temporary one.
    if (inputs.scenarioDirs.some((dir) => isWithin(dir, path))) rediscover = true;
    if (path.endsWith(SCENARIO_SUFFIX)) rediscover = true;
  }
  return { files: [...found].sort(), rediscover };
}

/** The cases of a file that share this place share one chain. */
interface CasePlace {
  readonly home: string | undefined;
  readonly settings: LoadedCase["settings"];
  /**
   * The profile the chain is read as: `auto` cases read it as `claude` would, the most it reads
   * (plugins, every event), as their decision does.
   */
  readonly profile: CompatProfile["id"];
  readonly pluginDirs: readonly string[];
}

function casePlace(
  request: WatchInputsRequest,
  scenario: LoadedScenario,
  item: LoadedCase,
): CasePlace {
  const setting = request.profile ?? "auto";
  const profile = item.case.compat ?? scenario.scenario.compat ??
    (setting === "auto" ? "claude" : setting.id);
  const runPlugins = compatProfile(profile).readsPlugins ? request.pluginDirs ?? [] : [];
  return {
    home: item.home,
    settings: item.settings,
    profile,
    pluginDirs: [...new Set([...item.pluginDirs ?? [], ...runPlugins])],
  };
}

interface CaseChain {
  /** The settings files the chain reads (or the override file), whether they exist or not. */
  readonly settingsFiles: readonly string[];
  /** The hooks it loads, settings and plugins together. */
  readonly handlers: readonly LoadedHandler[];
}

/** The chain a case's place reads, as the runner builds it (an override replaces it all). */
async function loadChain(projectDir: string, place: CasePlace): Promise<CaseChain> {
  const paths = settingsChainPaths(projectDir, place.home);
  const chain = paths.map(({ path }) => path);
  const override = place.settings;
  const settingsFiles = override === undefined
    ? chain
    : override.kind === "file"
    ? [override.path]
    : [];
  // The override is written over the project file of the case's copy; the others are removed.
  const projectFile = paths.find(({ scope }) => scope === "project")?.path;
  const readTextFile: ReadTextFile = async (path) => {
    if (override === undefined || !chain.includes(path)) return await readConfigFile(path);
    if (path !== projectFile) throw new Deno.errors.NotFound(path);
    return override.kind === "file"
      ? await readConfigFile(override.path)
      : JSON.stringify(override.settings);
  };
  const { loaded } = await loadSessionHooks(projectDir, place.home, {
    profile: compatProfile(place.profile),
    pluginDirs: place.pluginDirs,
    readTextFile,
  });
  return { settingsFiles, handlers: loaded.handlers };
}

/** Scripts of the hooks a case can fire: its event's whose matcher accepts it, or any. */
function scriptsOfCase(
  item: LoadedCase,
  handlers: readonly LoadedHandler[],
  projectDir: string,
): string[] {
  const spec = item.case;
  let fired = handlers;
  if (isEventCase(spec) && isFiredSomewhere(spec.event)) {
    const event = spec.event;
    const completed = completePayload(event, spec.input ?? {}, {
      sessionId: "watch",
      transcriptPath: "",
      cwd: projectDir,
    }, () => "watch");
    // A payload that does not complete makes the case an error: its event's hooks are a guess.
    const value = completed.ok ? completed.matcherValue : null;
    fired = handlers.filter((h) => h.event === event && matches(h.matcher, value));
  }
  return fired.flatMap((h) =>
    h.handler.type === "command" ? hookScripts(h.handler, projectDir) : []
  );
}

/** `splitShell` writes `$CLAUDE_PROJECT_DIR` and `$CLAUDE_PLUGIN_ROOT` as control characters. */
// deno-lint-ignore no-control-regex
const BASE_MARKER = /[\u0000-\u001f]/;

/**
 * The scripts inside `projectDir` that a command hook runs: its program when that is a path, or
 * an interpreter's script argument, in each simple command; relative paths start at the
 * project, where hooks run. Words only known at run time are left alone.
 */
export function hookScripts(handler: CommandHandlerConfig, projectDir: string): string[] {
  const found = new Set<string>();
  const root = resolve(projectDir);
  const keep = (path: string) => {
    if (path !== root && isWithin(root, path)) found.add(path);
  };
  for (const reference of scriptReferences(handler, ["project"])) {
    keep(resolve(root, `.${reference.rest}`));
  }
  const commands = handler.args === undefined
    ? splitShell(handler.command).map((words) =>
      words.map((w) => (w.dynamic || BASE_MARKER.test(w.text) ? undefined : w.text))
    )
    : [[handler.command, ...handler.args].map((w) => (w.includes("$") ? undefined : w))];
  for (const words of commands) {
    const script = scriptWord(words);
    if (script !== undefined) keep(resolve(root, script));
  }
  return [...found];
}

/** The word of one simple command that names a script file, if one does. */
function scriptWord(words: readonly (string | undefined)[]): string | undefined {
  const found = programWords(words);
  if (found === undefined) return undefined;
  if (found.script !== undefined) return words[found.script];
  if (found.interpreter && found.command === undefined) return undefined;
  const program = words[found.command ?? found.program];
  return program?.includes("/") ? program : undefined;
}

/** Whether `path` is `dir` or lies below it (both absolute and normalised). */
export function isWithin(dir: string, path: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/**
 * The path with its links resolved: of the file, else of its nearest existing ancestor with the
 * rest appended (a file not yet created, or just removed).
 */
export async function canonicalPath(path: string): Promise<string> {
  const absolute = resolve(path);
  try {
    return await Deno.realPath(absolute);
  } catch {
    const parent = dirname(absolute);
    if (parent === absolute) return absolute;
    return `${(await canonicalPath(parent)).replace(/\/+$/, "")}/${basename(absolute)}`;
  }
}
