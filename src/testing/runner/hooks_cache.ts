/**
 * The hooks of a `hooks test` run's event cases, read once per project and profile instead of
 * once per case, where that cannot change what a case sees.
 *
 * Only a case that runs in the project itself (not isolated) with a HOME made empty for it and
 * no plugin directories is served from the cache: its user file is missing, so its hooks are
 * those of the project's settings files alone. Everything else is loaded as before.
 *
 * Hooks of earlier cases run in the same project and may rewrite its settings, so before each
 * case the project's `.claude` directory and the chain files in it that existed are stat'ed, and
 * the cache is used only when each is the same (device, inode, size, modification and change
 * times) as when the files were read; a file that appears or is renamed over another changes the
 * directory. Stat times are whole milliseconds here, and a coarse filesystem keeps whole
 * seconds: what changed less than `RACY_MS` before it was read could change again without a new
 * stamp, so it is read again every case until it is older (git's "racily clean" rule).
 */
import {
  type HooksProfile,
  loadSessionHooks,
  type SessionHooks,
} from "../../hooks/session_hooks.ts";
import { type ReadTextFile, settingsChainPaths } from "../../hooks/settings/settings_chain.ts";
import type { HermeticPlace } from "./hermetic_env.ts";

/** A file changed this recently when it was read has no stamp to trust yet (2 s: FAT's step). */
export const RACY_MS = 2000;

/** What a case's hooks depend on, of its place. */
export type PlaceOfHooks = Pick<
  HermeticPlace,
  "cwd" | "home" | "isolated" | "homeIsEmpty" | "pluginDirs"
>;

export interface HooksCacheOptions {
  /** The wall clock the racy rule compares change times with (tests move it). */
  readonly now?: () => number;
  /** How settings files are read (tests count the reads). */
  readonly readTextFile?: ReadTextFile;
}

interface Entry {
  /** The stamp of the project's `.claude` directory: an entry that appears there changes it. */
  readonly dir: string;
  /** The chain files of the project (project, local) that existed, with their stamps. */
  readonly files: readonly { readonly path: string; readonly stamp: string }[];
  readonly hooks: SessionHooks;
}

/** One run's cache: made by `runScenarios`, gone with the run. */
export class HooksCache {
  readonly #entries = new Map<string, Map<HooksProfile, Entry>>();
  readonly #now: () => number;
  readonly #readTextFile: ReadTextFile | undefined;

  constructor(options: HooksCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#readTextFile = options.readTextFile;
  }

  /** The place's hooks: from the cache when the place allows it and the files are unchanged. */
  async load(place: PlaceOfHooks, profile: HooksProfile): Promise<SessionHooks> {
    if (place.isolated || !place.homeIsEmpty || place.pluginDirs.length > 0) {
      return await this.#loadUncached(place, profile);
    }
    // Stamped before reading: a change between the two leaves a stamp the next case misses.
    const since = this.#now() - RACY_MS;
    const dir = stampOf(`${place.cwd.replace(/\/+$/, "")}/.claude`, since, "directory");
    const entry = this.#entries.get(place.cwd)?.get(profile);
    // A file that was missing is still missing while the directory is unchanged: the check
    // stats only what exists, and a missing file costs no failed stat per case.
    if (
      entry !== undefined && dir !== undefined && dir === entry.dir &&
      entry.files.every(({ path, stamp }) => stampOf(path, since, "file") === stamp)
    ) {
      return withUserFileOf(entry.hooks, place.home);
    }
    const paths = settingsChainPaths(place.cwd, undefined).map(({ path }) => path);
    const stamps = paths.map((path) => stampOf(path, since, "file"));
    const hooks = await this.#loadUncached(place, profile);
    if (
      dir !== undefined && stamps.every((stamp) => stamp !== undefined) &&
      servesAnyHome(hooks, place.home, profile)
    ) {
      const files = paths.flatMap((path, i) =>
        stamps[i] === MISSING ? [] : [{ path, stamp: stamps[i]! }]
      );
      const byProfile = this.#entries.get(place.cwd) ?? new Map<HooksProfile, Entry>();
      byProfile.set(profile, { dir, files, hooks });
      this.#entries.set(place.cwd, byProfile);
    }
    return hooks;
  }

  #loadUncached(place: PlaceOfHooks, profile: HooksProfile): Promise<SessionHooks> {
    return loadSessionHooks(place.cwd, place.home, {
      profile,
      pluginDirs: place.pluginDirs,
      ...(this.#readTextFile === undefined ? {} : { readTextFile: this.#readTextFile }),
    });
  }
}

/** The place's hooks, through the run's cache when there is one. */
export function loadPlaceHooks(
  place: PlaceOfHooks,
  profile: HooksProfile,
  cache?: HooksCache,
): Promise<SessionHooks> {
  return cache === undefined
    ? loadSessionHooks(place.cwd, place.home, { profile, pluginDirs: place.pluginDirs })
    : cache.load(place, profile);
}

const MISSING = "missing";

/**
 * `MISSING`, the identity and times of a file or directory, or undefined when they cannot be
 * trusted: changed since `since`, of another kind, a dangling link, or not stat'able. Stats are
 * synchronous: they take microseconds, and the async ones cost several times that in hand-offs
 * to the I/O threads, on every case.
 */
function stampOf(path: string, since: number, kind: "file" | "directory"): string | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) return undefined;
    // A dangling link is missing until its target appears, which changes nothing here.
    return existsAsLink(path) ? undefined : MISSING;
  }
  const changed = info.ctime ?? info.mtime;
  const isKind = kind === "file" ? info.isFile : info.isDirectory;
  if (!isKind || changed === null || info.mtime === null || info.ino === null) return undefined;
  if (changed.getTime() >= since || info.mtime.getTime() >= since) return undefined;
  return `${info.dev}:${info.ino}:${info.size}:${info.mtime.getTime()}:${changed.getTime()}`;
}

function existsAsLink(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the hooks hold nothing of the HOME they were read with but the missing user file's
 * entry: no plugins (installed ones are looked up in HOME, and keep their data there) and a user
 * file that was missing.
 */
function servesAnyHome(hooks: SessionHooks, home: string, profile: HooksProfile): boolean {
  const [user] = hooks.loaded.files;
  const looksUpPlugins = profile.readsPlugins === true && hooks.loaded.enabledPlugins.length > 0;
  return hooks.loaded.plugins.length === 0 && !looksUpPlugins &&
    user !== undefined && user.scope === "user" && user.status === "missing" &&
    user.path === userFileOf(home);
}

/** The cached hooks with the user file's entry naming this case's HOME. */
function withUserFileOf(hooks: SessionHooks, home: string): SessionHooks {
  const [user, ...rest] = hooks.loaded.files;
  if (user === undefined) return hooks;
  return {
    loaded: { ...hooks.loaded, files: [{ ...user, path: userFileOf(home) }, ...rest] },
    registry: hooks.registry,
  };
}

function userFileOf(home: string): string {
  return settingsChainPaths(home, home)[0]!.path;
}
