/**
 * The hermetic place of one `hooks test` case: a HOME, a TMPDIR, an environment and a cwd of its
 * own, so a case sees neither the user's machine nor another case, and leaves nothing behind.
 *
 * Decisions:
 * - **HOME** is a fresh temporary directory: empty, or a copy of the case's fixture `home`.
 *   Transcripts (`$HOME/.local/state/...`) land there too.
 * - **Environment**: only `ENV_ALLOWLIST` passes from the outer environment (PATH, so hooks find
 *   their tools; USER, LOGNAME and SHELL, which scripts read to say who runs them). Then the
 *   fixed values: `TZ=UTC`, `LANG=C.UTF-8`, `TMPDIR` (a temporary directory of the case). Then
 *   the scenario file's `env`, then the case's `env` (either may change TZ, LANG or TMPDIR).
 *   `HOME` is always the case's own: an `env` entry cannot point hooks at the real one. The
 *   case's root is always one of `GIT_CEILING_DIRECTORIES`: git run in the copy (which has no
 *   `.git`) or in HOME would otherwise find the repository around the scratch directory (a
 *   HOME kept in git) and a `git reset --hard` meant for the copy would reach it.
 * - **cwd**: the project directory itself, or, with `isolate: true` (always, for session cases),
 *   a temporary copy of it (same base name, in a directory of its own under the root, so `..`
 *   is still inside the root), made by `copyTree` (no `node_modules` or `.git`, links into the
 *   project lead into the copy).
 * - **Plugin directories** (`pluginDirs`) are always copied, each to `plugins/<n>/<name>` under
 *   the root, and the copies are what the hooks get as `CLAUDE_PLUGIN_ROOT`: a hook that writes
 *   beside its script leaves the real plugin untouched, whether or not the project is copied.
 *   Only `.git` is left out (a plugin's `node_modules` is its code). `CLAUDE_PLUGIN_DATA` lies in
 *   the case's HOME, as it lies in `$HOME` for Claude Code.
 * - **Settings override**: implies `isolate` (the project must not be touched). In the copy,
 *   `.claude/settings.json` is the override (a settings file's text is copied as written, an
 *   object is written as JSON) and `.claude/settings.local.json` is removed; in HOME,
 *   `.claude/settings.json` is removed (a fixture home keeps its other files). So the override is
 *   the whole chain: user, project and local files are all replaced (plugins still load). The
 *   copies keep the project's symlinks, some leading out of it: the override replaces a linked
 *   settings file's link, never writes through it, and these writes and removals are confined to
 *   the case's root (src/agent/files/confined_write.ts), so a `.claude` that is a link leading out is
 *   an error of the case, not a file written or removed where it leads.
 * - Everything lies under one temporary root, removed by `dispose()`. Hook processes are reaped
 *   by the command runner (process groups); callers wait for them before disposing.
 */
import { AgentError, errorMessage } from "../../error.ts";
import { readConfigFile } from "../../config_file.ts";
import { displayPath } from "../../display_path.ts";
import type { ConfinedPlace } from "../../os/files/confined_file.ts";
import {
  type ConfinedWrite,
  removeConfinedEntry,
  writeConfinedText,
} from "../../agent/files/confined_write.ts";
import { copyTree, type CopyTreeOptions } from "./copy_tree.ts";
import type { SettingsOverride } from "../scenarios/scenario_file.ts";

/** Variables passed from the outer environment; everything else is left out. */
export const ENV_ALLOWLIST: readonly string[] = ["PATH", "USER", "LOGNAME", "SHELL"];

/** Fixed so that hook output does not depend on the machine's zone or locale. */
export const FIXED_ENV: Readonly<Record<string, string>> = { TZ: "UTC", LANG: "C.UTF-8" };

/** Used when the outer environment has no PATH at all. */
export const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Where a case runs: the file's placement with the case's over it, paths already absolute. */
export interface Placement {
  readonly env?: Readonly<Record<string, string>>;
  /** A fixture directory copied as HOME. */
  readonly home?: string;
  readonly isolate?: boolean;
  /** Settings that replace the whole chain. */
  readonly settings?: SettingsOverride;
  /** Plugin directories, absolute, in load order: copied into the place. */
  readonly pluginDirs?: readonly string[];
}

/**
 * The environment hooks see: allowlist, fixed values, the placement's env, the case's HOME and
 * its root as a git ceiling.
 */
export function hermeticEnv(
  outer: (name: string) => string | undefined,
  paths: { readonly root: string; readonly home: string; readonly tmp: string },
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ENV_ALLOWLIST) {
    const value = outer(name);
    if (value !== undefined) env[name] = value;
  }
  env["PATH"] ??= DEFAULT_PATH;
  Object.assign(env, FIXED_ENV, { TMPDIR: paths.tmp }, extra);
  env["HOME"] = paths.home;
  const ceilings = env["GIT_CEILING_DIRECTORIES"];
  env["GIT_CEILING_DIRECTORIES"] = ceilings ? `${ceilings}:${paths.root}` : paths.root;
  return env;
}

export interface HermeticPlace {
  /** The temporary root everything below lives in. */
  readonly root: string;
  readonly home: string;
  readonly tmp: string;
  /** The session cwd: the project, or its copy. */
  readonly cwd: string;
  readonly isolated: boolean;
  /** HOME was made empty for this case (no fixture home, no settings override). */
  readonly homeIsEmpty: boolean;
  /** The copies of the placement's plugin directories, in the same order. */
  readonly pluginDirs: readonly string[];
  /** A path inside a plugin's copy as the same path in the real plugin dir; others unchanged. */
  originalPath(path: string): string;
  readonly env: Readonly<Record<string, string>>;
  /** `env` as a lookup, for the agent's config. */
  lookup(name: string): string | undefined;
  /** Removes the temporary root; never throws. */
  dispose(): Promise<void>;
}

export interface PlaceRequest {
  readonly projectDir: string;
  readonly placement: Placement;
  readonly outerEnv: (name: string) => string | undefined;
}

/**
 * Where cases get their temporary places: under the user's cache, which llama-agent may write
 * (it may write only the launch directory and `$HOME`, not the system's temp directory).
 */
export function scratchDir(env: (name: string) => string | undefined): string {
  const cacheHome = env("XDG_CACHE_HOME") || `${env("HOME") ?? "."}/.cache`;
  return `${cacheHome}/llama-agent/hooks-test`;
}

/** Creates the place; a missing fixture or unreadable override is an `AgentError`. */
export async function createHermeticPlace(request: PlaceRequest): Promise<HermeticPlace> {
  const { placement, projectDir } = request;
  const root = await makeRoot(scratchDir(request.outerEnv));
  const base = root.slice(0, root.lastIndexOf("/"));
  const dispose = () => Deno.remove(root, { recursive: true }).catch(() => {});
  try {
    const home = `${root}/home`;
    const tmp = `${root}/tmp`;
    const isolated = placement.isolate === true || placement.settings !== undefined;
    const cwd = isolated ? `${root}/work/${baseName(projectDir)}` : projectDir;
    const plugins = (placement.pluginDirs ?? []).map((from, i) => ({
      what: "plugin directory" as const,
      from,
      to: `${root}/plugins/${i + 1}/${baseName(from)}`,
    }));
    const trees: CopiedTree[] = [
      ...(placement.home === undefined
        ? []
        : [{ what: "home" as const, from: placement.home, to: home }]),
      ...(isolated ? [{ what: "project" as const, from: projectDir, to: cwd }] : []),
      ...plugins,
    ];
    // A fixture home is made by its copy; the two directories are made at once.
    await Promise.all([
      Deno.mkdir(tmp),
      ...(placement.home === undefined ? [Deno.mkdir(home)] : []),
    ]);
    // Each copy's links into another tree of the case lead into that tree's copy.
    for (const tree of trees) {
      const copies = trees.filter((other) => other !== tree);
      const skip = tree.what === "plugin directory" ? [".git"] : undefined;
      await copyFixture(tree, tree.what, { leaveOut: [base], copies, ...(skip ? { skip } : {}) });
    }
    if (placement.settings !== undefined) {
      await applySettingsOverride(placement.settings, { cwd, home, root });
    }
    const env = hermeticEnv(request.outerEnv, { root, home, tmp }, placement.env);
    return {
      root,
      home,
      tmp,
      cwd,
      isolated,
      homeIsEmpty: placement.home === undefined && placement.settings === undefined,
      pluginDirs: plugins.map((plugin) => plugin.to),
      originalPath: (path) => {
        const plugin = plugins.find(({ to }) => path === to || path.startsWith(`${to}/`));
        return plugin === undefined ? path : plugin.from + path.slice(plugin.to.length);
      },
      env,
      lookup: (name) => env[name],
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/**
 * A fresh temporary root in the scratch directory, by its real path (the scratch path may run
 * through links, and copies leave out the scratch directory by its real path). The scratch
 * directory is made only when it is missing: every case but the first finds it there.
 */
async function makeRoot(scratch: string): Promise<string> {
  const make = () => Deno.makeTempDir({ dir: scratch, prefix: "hooks_test_" });
  let root: string;
  try {
    root = await make();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    await Deno.mkdir(scratch, { recursive: true });
    root = await make();
  }
  // Synchronous: a lookup of microseconds, where the async one costs several times that.
  return Deno.realPathSync(root);
}

async function applySettingsOverride(
  settings: SettingsOverride,
  { cwd, home, root }: { readonly cwd: string; readonly home: string; readonly root: string },
): Promise<void> {
  let text: string;
  if (settings.kind === "file") {
    try {
      // Read again when the case runs: it may have been swapped since the scenario was loaded.
      text = await readConfigFile(settings.path);
    } catch (error) {
      throw new AgentError(
        "INPUT_INVALID",
        `Cannot read the settings override "${settings.path}": ${errorMessage(error)}`,
      );
    }
  } else {
    text = JSON.stringify(settings.settings, null, 2) + "\n";
  }
  const place: ConfinedPlace = { cwd: root, roots: [root] };
  // Messages name paths of the copies as the project's: `.claude`, not the scratch path.
  const show = (path: string) => displayPath(path, cwd, undefined);
  const named = (shown: string) => ({ shown, show });
  const project = `${cwd}/.claude/settings.json`;
  // A link there is the project's (to a shared file, maybe outside it): replaced, not followed.
  inCaseRoot(await removeConfinedEntry(project, place, named(".claude/settings.json")));
  inCaseRoot(await writeConfinedText(project, text, place, named(".claude/settings.json")));
  const local = `${cwd}/.claude/settings.local.json`;
  inCaseRoot(await removeConfinedEntry(local, place, named(".claude/settings.local.json")));
  const user = `${home}/.claude/settings.json`;
  inCaseRoot(await removeConfinedEntry(user, place, named("$HOME/.claude/settings.json")));
}

/** A write or removal in the case's copies that did not happen is an error of the case. */
function inCaseRoot(result: ConfinedWrite): void {
  if (result.ok) return;
  throw new AgentError(
    result.failure === "refused" ? "PATH_NOT_ALLOWED" : "INPUT_INVALID",
    `Cannot apply the settings override in the case's copy: ${result.message}`,
  );
}

/** One tree copied into the case's place. */
interface CopiedTree {
  readonly what: "home" | "project" | "plugin directory";
  readonly from: string;
  readonly to: string;
}

/** Copies the project, a fixture HOME or a plugin directory (see `copyTree`). */
async function copyFixture(
  { from, to }: { readonly from: string; readonly to: string },
  what: CopiedTree["what"],
  options: CopyTreeOptions,
): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(from);
  } catch (error) {
    throw new AgentError(
      "INPUT_INVALID",
      `Cannot use "${from}" as the ${what} of a case: ${errorMessage(error)}`,
    );
  }
  if (!info.isDirectory) {
    throw new AgentError(
      "INPUT_INVALID",
      `Cannot use "${from}" as the ${what} of a case: it is not a directory`,
    );
  }
  await copyTree(from, to, options);
}

function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1) || "project";
}
