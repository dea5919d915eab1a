/**
 * `hooks test --watch`: run the scenario files once, then again whenever a file they depend on
 * changes (watch_inputs.ts), only the affected ones, until Ctrl-C.
 *
 * Decisions:
 * - The watcher starts before the first run, so a file saved while a run is going is not lost:
 *   it is rerun when that run ends.
 * - What the files depend on is read again after every run: an edited settings file may name
 *   other scripts. The list of scenario files is looked for again when one may have appeared or
 *   gone in a scenario directory; new ones run at once, removed ones are dropped.
 * - On a terminal the screen is cleared before each run, so the report on it is always the
 *   latest; elsewhere (a log) the runs follow one another. Each run ends with one line:
 *   `3 passed, 1 failed · watching 12 files · Ctrl-C to stop`.
 * - Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops the watch; a run it interrupts stops too (it gets the
 *   signal). The exit code is the last run's. The loop stops listening at the first, as a plain
 *   run does, so a second Ctrl-C ends the program at once whatever the first is waiting for.
 * - Nothing the loop waits on opens a watched file: a FIFO put in place of a scenario is an
 *   invalid file of the next run (the watcher reports names only, see scenario_watcher.ts, and
 *   discovery and loading tell it by its type).
 */
import { relative } from "node:path";
import type { CliIo } from "../command_spec.ts";
import type { ProfileSetting } from "../../profile/compat_profile.ts";
import { plural } from "../../testing/reporters/summary_line.ts";
import { openScenarioWatcher, type WatchBatch } from "../../testing/watch/scenario_watcher.ts";
import {
  canonicalPath,
  collectWatchInputs,
  type WatchInputs,
} from "../../testing/watch/watch_inputs.ts";

/** What the loop needs of one run: its exit code and its counts. */
export interface WatchedRun {
  readonly exitCode: number;
  readonly passed: number;
  /** Cases that ran and failed. */
  readonly failed: number;
  /** Cases that could not run. */
  readonly errors: number;
  /** Scenario files that did not load. */
  readonly invalidFiles?: number;
}

export interface WatchLoopOptions {
  /** The repository whose settings the cases run against. */
  readonly projectDir: string;
  /** The scenario files of a run, as `hooks test` finds them (absolute). */
  readonly discover: () => Promise<readonly string[]>;
  /** Where new scenario files join the run: the scenario directory, or the directories named. */
  readonly scenarioDirs: readonly string[];
  /** Runs these scenario files once; `signal` aborts on Ctrl-C. */
  readonly runOnce: (files: readonly string[], signal: AbortSignal) => Promise<WatchedRun>;
  readonly io: Pick<CliIo, "stdout" | "stdoutIsTty" | "onTermination">;
  /** `--compat` and `--plugin-dir`, as the runs get them: they decide which hooks a case loads. */
  readonly profile?: ProfileSetting;
  readonly pluginDirs?: readonly string[];
  readonly debounceMs?: number;
  /** Ends the watch as Ctrl-C does. */
  readonly signal?: AbortSignal;
}

/** Clears the screen and its scrollback, and puts the cursor at the top. */
export const CLEAR_SCREEN = "\x1b[2J\x1b[3J\x1b[H";

/** Runs until Ctrl-C (or `signal`); answers the exit code of the last run. */
export async function watchLoop(options: WatchLoopOptions): Promise<number> {
  const stop = new AbortController();
  let listening = true;
  const stopListening = () => {
    if (listening) unlisten();
    listening = false;
  };
  const unlisten = options.io.onTermination(() => {
    stop.abort();
    stopListening();
  });
  const signal = options.signal === undefined
    ? stop.signal
    : AbortSignal.any([stop.signal, options.signal]);
  try {
    return await watchUntilStopped(options, signal);
  } finally {
    stopListening();
  }
}

async function watchUntilStopped(options: WatchLoopOptions, signal: AbortSignal): Promise<number> {
  let files = await options.discover();
  let inputs = await inputsOf(options, files);
  const watcher = await openScenarioWatcher(inputs, {
    signal,
    ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
  });
  try {
    // Changes are shown relative to the project, as the watcher names them: links resolved.
    const from = await canonicalPath(options.projectDir);
    let last = (await runRound({ options, files, inputs, signal })).exitCode;
    for (;;) {
      const batch = await watcher.next();
      if (batch === undefined || signal.aborted) break;
      let chosen = batch.files;
      if (batch.rediscover) {
        const before = new Set(files);
        files = await options.discover();
        // Removed files drop out, new ones join; in the order the run finds them.
        chosen = files.filter((file) => batch.files.includes(file) || !before.has(file));
      }
      if (chosen.length > 0) {
        const rerun = { batch, total: files.length, from };
        const ran = await runRound({ options, files: chosen, inputs, signal, rerun });
        last = ran.exitCode;
        if (ran.interrupted) break;
      }
      inputs = await inputsOf(options, files);
      await watcher.update(inputs);
    }
    return last;
  } finally {
    await watcher.close();
  }
}

interface Round {
  readonly options: WatchLoopOptions;
  readonly files: readonly string[];
  /** What the files depend on, for the summary line. */
  readonly inputs: WatchInputs;
  readonly signal: AbortSignal;
  /** Set for a rerun: what changed, and how many scenario files there are in all. */
  readonly rerun?: { readonly batch: WatchBatch; readonly total: number; readonly from: string };
}

/** One run: the screen cleared on a terminal, what changed, the run, the summary line. */
async function runRound(
  { options, files, inputs, signal, rerun }: Round,
): Promise<{ exitCode: number; interrupted: boolean }> {
  const { io } = options;
  if (io.stdoutIsTty) io.stdout(CLEAR_SCREEN);
  if (rerun !== undefined) io.stdout(rerunLine(rerun.batch, files.length, rerun.total, rerun.from));
  const run = await options.runOnce(files, signal);
  io.stdout(`\n${watchSummaryLine(run, inputs)}\n`);
  return { exitCode: run.exitCode, interrupted: signal.aborted };
}

async function inputsOf(options: WatchLoopOptions, files: readonly string[]): Promise<WatchInputs> {
  return await collectWatchInputs({
    projectDir: options.projectDir,
    files,
    scenarioDirs: options.scenarioDirs,
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    ...(options.pluginDirs === undefined ? {} : { pluginDirs: options.pluginDirs }),
  });
}

/** `3 passed, 1 failed (1 error) · watching 12 files · Ctrl-C to stop`. */
export function watchSummaryLine(run: WatchedRun, inputs: WatchInputs): string {
  const errors = run.errors > 0 ? ` (${plural(run.errors, "error")})` : "";
  const invalid = (run.invalidFiles ?? 0) > 0
    ? `, ${plural(run.invalidFiles ?? 0, "invalid file")}`
    : "";
  const dirs = inputs.trees.size;
  const trees = dirs === 0 ? "" : ` and ${dirs} ${dirs === 1 ? "directory" : "directories"}`;
  return `${run.passed} passed, ${run.failed + run.errors} failed${errors}${invalid} · ` +
    `watching ${plural(inputs.files.size, "file")}${trees} · Ctrl-C to stop`;
}

/** `Changed .claude/hooks/guard.sh: rerunning 1 of 3 scenario files`. */
function rerunLine(batch: WatchBatch, count: number, total: number, from: string): string {
  const shown = batch.changed.slice(0, 3).map((path) => relative(from, path) || ".");
  const more = batch.changed.length > 3 ? ` and ${batch.changed.length - 3} more` : "";
  const what = batch.changed.length === 0 ? "Files changed" : `Changed ${shown.join(", ")}${more}`;
  return `${what}: rerunning ${count} of ${plural(total, "scenario file")}\n`;
}
