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
 *   `HOME` is always the case's own: an `env` entry cannot point hooks at the real one.
 * - **cwd**: the project directory itself, or, with `isolate: true` (always, for session cases),
 *   a temporary copy of it (same base name, in a directory of its own under the root, so `..`
 *   is still inside the root) without any `node_modules` or `.git` directory at any depth;
 *   symlinks are copied as symlinks (an absolute one into the project points into the copy),
 *   file modes are kept.
 * - **Settings override**: implies `isolate` (the project must not be touched). In the copy,
 *   `.claude/settings.json` is the override (a settings file's text is copied as written, an
 *   object is written as JSON) and `.claude/settings.local.json` is removed; in HOME,
 *   `.claude/settings.json` is removed (a fixture home keeps its other files). So the override is
 *   the whole chain: user, project and local files are all replaced.
 * - Everything lies under one temporary root, removed by `dispose()`. Hook processes are reaped
 *   by the command runner (process groups); callers wait for them before disposing.
 */
import { AgentError, errorMessage } from "../error.ts";
import type { SettingsOverride } from "./scenario_file.ts";

/** Variables passed from the outer environment; everything else is left out. */
export const ENV_ALLOWLIST: readonly string[] = ["PATH", "USER", "LOGNAME", "SHELL"];

/** Fixed so that hook output does not depend on the machine's zone or locale. */
export const FIXED_ENV: Readonly<Record<string, string>> = { TZ: "UTC", LANG: "C.UTF-8" };

/** Used when the outer environment has no PATH at all. */
export const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Directory names never copied into an isolated project. */
export const NOT_COPIED: readonly string[] = ["node_modules", ".git"];

/** Where a case runs: the file's placement with the case's over it, paths already absolute. */
export interface Placement {
  readonly env?: Readonly<Record<string, string>>;
  /** A fixture directory copied as HOME. */
  readonly home?: string;
  readonly isolate?: boolean;
  /** Settings that replace the whole chain. */
  readonly settings?: SettingsOverride;
}

/** The environment hooks see: allowlist, fixed values, the placement's env, the case's HOME. */
export function hermeticEnv(
  outer: (name: string) => string | undefined,
  paths: { readonly home: string; readonly tmp: string },
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
  const base = scratchDir(request.outerEnv);
  await Deno.mkdir(base, { recursive: true });
  const root = await Deno.realPath(await Deno.makeTempDir({ dir: base, prefix: "hooks_test_" }));
  const dispose = () => Deno.remove(root, { recursive: true }).catch(() => {});
  try {
    const home = `${root}/home`;
    const tmp = `${root}/tmp`;
    await Deno.mkdir(tmp);
    if (placement.home !== undefined) {
      await copyFixture(placement.home, home, "home");
    } else {
      await Deno.mkdir(home);
    }
    const isolated = placement.isolate === true || placement.settings !== undefined;
    let cwd = projectDir;
    if (isolated) {
      cwd = `${root}/work/${baseName(projectDir)}`;
      await Deno.mkdir(`${root}/work`);
      await copyFixture(projectDir, cwd, "project");
    }
    if (placement.settings !== undefined) {
      await applySettingsOverride(placement.settings, cwd, home);
    }
    const env = hermeticEnv(request.outerEnv, { home, tmp }, placement.env);
    return {
      root,
      home,
      tmp,
      cwd,
      isolated,
      env,
      lookup: (name) => env[name],
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

async function applySettingsOverride(
  settings: SettingsOverride,
  cwd: string,
  home: string,
): Promise<void> {
  let text: string;
  if (settings.kind === "file") {
    try {
      text = await Deno.readTextFile(settings.path);
    } catch (error) {
      throw new AgentError(
        "INPUT_INVALID",
        `Cannot read the settings override "${settings.path}": ${errorMessage(error)}`,
      );
    }
  } else {
    text = JSON.stringify(settings.settings, null, 2) + "\n";
  }
  await Deno.mkdir(`${cwd}/.claude`, { recursive: true });
  await Deno.writeTextFile(`${cwd}/.claude/settings.json`, text);
  await removeIfPresent(`${cwd}/.claude/settings.local.json`);
  await removeIfPresent(`${home}/.claude/settings.json`);
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

async function copyFixture(from: string, to: string, what: "home" | "project"): Promise<void> {
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
  await copyTree(from, to);
}

/**
 * Copies a directory tree, leaving out `NOT_COPIED` directories. Symlinks stay symlinks, but one
 * whose absolute target lies inside the tree points to the same place in the copy: a command run
 * in the copy must not reach the original through it.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  const origins = [...new Set([trimSlashes(from), trimSlashes(await Deno.realPath(from))])];
  await copyEntries(from, to, (link) => {
    for (const origin of origins) {
      if (link === origin) return to;
      if (link.startsWith(`${origin}/`)) return `${to}${link.slice(origin.length)}`;
    }
    return link;
  });
}

async function copyEntries(
  from: string,
  to: string,
  retarget: (link: string) => string,
): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  // One entry at a time: a big tree must not open thousands of files at once.
  for await (const entry of Deno.readDir(from)) {
    const source = `${from}/${entry.name}`;
    const target = `${to}/${entry.name}`;
    if (entry.isSymlink) {
      const link = await Deno.readLink(source);
      await Deno.symlink(link.startsWith("/") ? retarget(link) : link, target);
    } else if (entry.isDirectory) {
      if (!NOT_COPIED.includes(entry.name)) await copyEntries(source, target, retarget);
    } else if (entry.isFile) {
      await Deno.copyFile(source, target);
    }
    // Sockets, fifos and devices are no part of a project's files.
  }
}

function trimSlashes(path: string): string {
  return path.replace(/\/+$/, "") || "/";
}

function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1) || "project";
}
