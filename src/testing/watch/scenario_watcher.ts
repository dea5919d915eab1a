/**
 * Watches what a `hooks test --watch` run depends on (watch_inputs.ts) and hands out batches of
 * the scenario files to rerun.
 *
 * Decisions:
 * - Only the directories involved are watched, never the whole repository (its `node_modules`
 *   and `.git` would flood the watcher): each dependency's directory on its own, and the
 *   scenario directories, fixture HOMEs and plugin directories with everything below them. A
 *   directory that does not exist yet is watched through its nearest existing ancestor, so
 *   creating it (a first `.claude/settings.local.json`) is seen too.
 * - Directories are watched rather than files: editors save by writing a new file and renaming
 *   it over the old one, which a watch on the old file would miss.
 * - A batch is what changed until nothing more did for `debounceMs` (one save is often several
 *   events). Changes that come while the caller is busy (a run) wait for its next call.
 * - Changes that affect no scenario give no batch. When the system cannot say what changed (its
 *   queue overflowed), every scenario file is rerun.
 * - The watchers are closed when the signal aborts or `close()` is called, and `next()` answers
 *   undefined from then on.
 * - On Linux the directories are watched with inotify (inotify_watch.ts), which never opens what
 *   changed: `Deno.watchFs` opens each changed path, and a FIFO put in a watched directory makes
 *   it wait for good, taking the next watch call, Ctrl-C and all, with it. Elsewhere
 *   `Deno.watchFs` is what there is.
 */
import { dirname } from "node:path";
import { watchDirectories } from "../../os/inotify_watch.ts";
import {
  type AffectedScenarios,
  affectedScenarios,
  canonicalPath,
  isWithin,
  type WatchInputs,
} from "./watch_inputs.ts";

export interface WatchBatch extends AffectedScenarios {
  /** What changed (canonical paths), sorted; empty when the system could not say. */
  readonly changed: readonly string[];
}

export interface ScenarioWatcherOptions {
  /** Ends the watch: `next()` answers undefined and the watchers are closed. */
  readonly signal: AbortSignal;
  /** How long nothing must change before a batch is handed out (default 100 ms). */
  readonly debounceMs?: number;
}

export interface ScenarioWatcher {
  /** The next batch that affects a scenario file; undefined once the watch has ended. */
  next(): Promise<WatchBatch | undefined>;
  /** From now on, classify and watch by `inputs` (after a run, what it depends on may differ). */
  update(inputs: WatchInputs): Promise<void>;
  /** Stops watching; waits until the watchers are closed. */
  close(): Promise<void>;
}

/** The directories watched: `recursive` with everything below them, `flat` their entries. */
export interface WatchRoots {
  readonly recursive: readonly string[];
  readonly flat: readonly string[];
}

export const DEFAULT_DEBOUNCE_MS = 100;

export async function openScenarioWatcher(
  initial: WatchInputs,
  options: ScenarioWatcherOptions,
): Promise<ScenarioWatcher> {
  const { signal } = options;
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  let inputs = initial;
  const pending = new Set<string>();
  let unsure = false;
  let changes = 0;
  let wake: (() => void) | undefined;
  const onEvent = (event: Deno.FsEvent) => {
    if (event.kind === "access") return;
    if (event.flag === "rescan" || event.paths.length === 0) unsure = true;
    event.paths.forEach((path) => pending.add(path));
    changes++;
    wake?.();
  };

  let roots: WatchRoots = { recursive: [], flat: [] };
  let open: OpenWatch[] = [];
  let closed = false;
  const watch = async (next: WatchInputs) => {
    const wanted = await watchRoots(next);
    if (closed || sameRoots(wanted, roots)) return;
    // The new watchers start before the old ones stop, so no change falls between them.
    const opened = [
      ...await openWatches(wanted.recursive, true, onEvent),
      ...await openWatches(wanted.flat, false, onEvent),
    ];
    if (closed) {
      await Promise.all(opened.map(stop));
      return;
    }
    const old = open;
    open = opened;
    roots = wanted;
    await Promise.all(old.map(stop));
  };
  const close = async () => {
    closed = true;
    signal.removeEventListener("abort", onAbort);
    wake?.();
    const old = open;
    open = [];
    await Promise.all(old.map(stop));
  };
  const onAbort = () => void close();
  signal.addEventListener("abort", onAbort, { once: true });
  await watch(inputs);
  if (signal.aborted) await close();

  /** Resolves on the next event or the end of the watch; false when `ms` passed first. */
  const nextChange = (ms?: number) =>
    new Promise<boolean>((done) => {
      const timer = ms === undefined ? undefined : setTimeout(() => finish(false), ms);
      const finish = (changed: boolean) => {
        clearTimeout(timer);
        wake = undefined;
        done(changed);
      };
      wake = () => finish(true);
    });

  return {
    async next() {
      while (!closed) {
        if (pending.size === 0 && !unsure) await nextChange();
        // Quiet for a while: one save is often several events.
        let seen = changes;
        while (!closed && await nextChange(debounceMs) && changes !== seen) seen = changes;
        if (closed) return undefined;
        if (pending.size === 0 && !unsure) continue;
        const raw = [...pending];
        const wasUnsure = unsure;
        pending.clear();
        unsure = false;
        const changed = [...new Set(await Promise.all(raw.map(canonicalPath)))].sort();
        const batch: AffectedScenarios = wasUnsure
          ? { files: [...inputs.scenarios].sort(), rediscover: true }
          : affectedScenarios(inputs, changed);
        if (batch.files.length > 0 || batch.rediscover) return { ...batch, changed };
      }
      return undefined;
    },
    async update(next) {
      inputs = next;
      await watch(next);
    },
    close,
  };
}

interface OpenWatch {
  /** Settles once no event can come any more. */
  close(): Promise<void>;
}

async function openWatches(
  paths: readonly string[],
  recursive: boolean,
  onEvent: (event: Deno.FsEvent) => void,
): Promise<OpenWatch[]> {
  if (paths.length === 0) return [];
  const watched = await watchDirectories(paths, recursive, onEvent);
  if (watched !== undefined) return [watched];
  const start = (watcher: Deno.FsWatcher): OpenWatch => {
    const reading = (async () => {
      try {
        for await (const event of watcher) onEvent(event);
      } catch {
        // Closed while reading: the watch is over.
      }
    })();
    return {
      close: async () => {
        try {
          watcher.close();
        } catch {
          // Already closed.
        }
        await reading;
      },
    };
  };
  try {
    return [start(Deno.watchFs([...paths], { recursive }))];
  } catch {
    // One of them went away since it was found: watch the others one by one.
    return paths.flatMap((path) => {
      try {
        return [start(Deno.watchFs(path, { recursive }))];
      } catch {
        return [];
      }
    });
  }
}

function stop(watch: OpenWatch): Promise<void> {
  return watch.close();
}

/** The directories to watch for `inputs`, each once, none inside a recursive one. */
export async function watchRoots(inputs: WatchInputs): Promise<WatchRoots> {
  const recursive = new Set<string>();
  const flat = new Set<string>();
  for (const dir of [...inputs.trees.keys(), ...inputs.scenarioDirs]) {
    const existing = await nearestDirectory(dir);
    (existing === dir ? recursive : flat).add(existing);
  }
  for (const file of inputs.files.keys()) flat.add(await nearestDirectory(dirname(file)));
  const tops = [...recursive].filter((dir) =>
    ![...recursive].some((other) => other !== dir && isWithin(other, dir))
  );
  const insideTop = (dir: string) => tops.some((top) => isWithin(top, dir));
  return {
    recursive: tops.sort(),
    flat: [...flat].filter((dir) => !insideTop(dir)).sort(),
  };
}

/** The path when it is a directory, else its nearest ancestor that is. */
async function nearestDirectory(path: string): Promise<string> {
  for (let dir = path;; dir = dirname(dir)) {
    try {
      if ((await Deno.stat(dir)).isDirectory) return dir;
    } catch {
      // Not there (yet): its parent will tell of its creation.
    }
    if (dirname(dir) === dir) return dir;
  }
}

function sameRoots(a: WatchRoots, b: WatchRoots): boolean {
  return a.recursive.join("\n") === b.recursive.join("\n") &&
    a.flat.join("\n") === b.flat.join("\n");
}
