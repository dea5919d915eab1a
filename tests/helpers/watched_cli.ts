/**
 * Runs the real launcher like `runCli`, watched: the run is killed when it outlives a deadline
 * or its resident memory passes a ceiling, so a test of a reader that might never stop (a
 * settings file linked to `/dev/zero`) fails with a reason instead of taking the machine down.
 * Linux only: memory is read from `/proc/<pid>/status`.
 */
import { type CliRun, cliRunOf, type CliRunOptions, spawnLauncher } from "./run_cli.ts";

export interface WatchedRunOptions extends CliRunOptions {
  /** Default 60 s: generous, since only a run that never ends should reach it. */
  readonly deadlineMs?: number;
  /** Default 1 GiB. */
  readonly maxRssBytes?: number;
}

export interface WatchedRun extends CliRun {
  /** The highest resident set size seen (VmHWM), in bytes. */
  readonly peakRssBytes: number;
  /** Why the run was killed; undefined when it exited by itself. */
  readonly killed: string | undefined;
}

const POLL_MS = 25;

export async function runCliWatched(
  args: readonly string[],
  options: WatchedRunOptions,
): Promise<WatchedRun> {
  const deadlineMs = options.deadlineMs ?? 60_000;
  const maxRssBytes = options.maxRssBytes ?? 1024 ** 3;
  // The launcher execs Deno, so the child's pid is the program's own.
  const child = await spawnLauncher(args, options);
  const output = child.output();
  let ended = false;
  output.finally(() => ended = true).catch(() => {});

  const started = performance.now();
  let peakRssBytes = 0;
  let killed: string | undefined;
  while (!ended && killed === undefined) {
    peakRssBytes = Math.max(peakRssBytes, peakRssOf(child.pid));
    if (peakRssBytes > maxRssBytes) {
      killed = `its memory passed ${Math.round(maxRssBytes / 1024 ** 2)} MiB`;
    } else if (performance.now() - started > deadlineMs) {
      killed = `it ran past ${deadlineMs} ms`;
    } else {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  if (killed !== undefined) {
    try {
      child.kill("SIGKILL");
    } catch {
      // It exited between the last check and the kill.
    }
  }
  return { ...cliRunOf(await output), peakRssBytes, killed };
}

function peakRssOf(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
    return kib === undefined ? 0 : Number(kib) * 1024;
  } catch {
    // Gone already, or not yet a process we can read: nothing to add.
    return 0;
  }
}
