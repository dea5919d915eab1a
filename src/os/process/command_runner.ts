/**
 * The only place hooks touch `Deno.Command`: run one process with bounded I/O and a guaranteed
 * end. Every failure (cannot start, timeout, cancel) is a result, never a throw, and the process
 * group is gone (or SIGKILLed) before the promise settles: no orphan outlives a hook.
 */
import { errorMessage } from "../../error.ts";
import { type CapturedStream, captureStream, feedStream } from "./child_io.ts";
import type { GroupChild } from "./group_child.ts";
import { spawnGuarded } from "./guard_group.ts";
import { delay, setsidExecFailure, spawnInOwnGroup, terminateGroup } from "./process_group.ts";

/**
 * `<program> -c <command>` (`program`: `/bin/sh` when absent), or a program spawned directly with
 * its arguments (no shell).
 */
export type CommandLine =
  | { readonly kind: "shell"; readonly command: string; readonly program?: string }
  | { readonly kind: "exec"; readonly command: string; readonly args: readonly string[] };

export interface CommandRunOptions {
  readonly commandLine: CommandLine;
  /** Written to the child's stdin, which is then closed. */
  readonly stdin?: Uint8Array;
  readonly cwd: string;
  /** The child's whole environment: nothing is inherited. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Bytes kept per stream (default 1 MiB); the rest is read and discarded. */
  readonly stdoutCapBytes?: number;
  readonly stderrCapBytes?: number;
  /** Time between SIGTERM and SIGKILL of the group (default 1000 ms). */
  readonly killGraceMs?: number;
  /** Once the process exits, end its whole group, background children included. */
  readonly reapGroupOnExit?: boolean;
  /** How long the pipes may stay open after the process exits (default 250 ms). */
  readonly drainMs?: number;
}

/** A process that ran to its exit, or was killed by a signal it did not get from us. */
export interface CommandExit {
  readonly kind: "exited";
  readonly exitCode: number;
  readonly signal: string | null;
  readonly stdout: CapturedStream;
  readonly stderr: CapturedStream;
  readonly durationMs: number;
}

export type CommandRunResult =
  /** The process exited by itself (or died of a signal we did not send): a hook's own result. */
  | CommandExit
  /** We stopped it: its timeout passed, or the caller aborted. */
  | {
    readonly kind: "timed_out" | "cancelled";
    readonly stdout: CapturedStream;
    readonly stderr: CapturedStream;
    readonly durationMs: number;
  }
  | { readonly kind: "spawn_failed"; readonly message: string; readonly durationMs: number };

export type CommandRunner = (options: CommandRunOptions) => Promise<CommandRunResult>;

export const DEFAULT_CAPTURE_CAP_BYTES = 1024 * 1024;
export const DEFAULT_KILL_GRACE_MS = 1000;
export const DEFAULT_DRAIN_MS = 250;

/** setTimeout fires at once past this (about 24.8 days), so longer timeouts are clamped. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

type StopReason = "timed_out" | "cancelled";

export const runCommand: CommandRunner = async (options) => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const empty: CapturedStream = { text: "", discardedBytes: 0 };
  if (options.signal?.aborted) {
    return { kind: "cancelled", stdout: empty, stderr: empty, durationMs: elapsed() };
  }

  let child: GroupChild;
  // Until the group is over, the agent's death (even SIGKILL) ends it too.
  let releaseGroup: () => void;
  try {
    ({ child, release: releaseGroup } = spawnGuarded(() =>
      spawnInOwnGroup(programAndArgs(options.commandLine), {
        cwd: options.cwd,
        env: options.env,
        stdin: "piped",
      })
    ));
  } catch (error) {
    return {
      kind: "spawn_failed",
      message: `Cannot start ${describe(options.commandLine)}: ${errorMessage(error)}`,
      durationMs: elapsed(),
    };
  }

  const group = child.pid;
  const stdoutCap = options.stdoutCapBytes ?? DEFAULT_CAPTURE_CAP_BYTES;
  const stderrCap = options.stderrCapBytes ?? DEFAULT_CAPTURE_CAP_BYTES;
  // Without web streams where the child offers it (the posix_spawn spawner does).
  const stdout = child.captureOutput?.("stdout", stdoutCap) ??
    captureStream(child.stdout, stdoutCap);
  const stderr = child.captureOutput?.("stderr", stderrCap) ??
    captureStream(child.stderr, stderrCap);
  const stdinBytes = options.stdin ?? new Uint8Array();
  const stdinWritten = child.feedStdin?.(stdinBytes) ?? feedStream(child.stdin, stdinBytes);
  const stop = stopTrigger(options.timeoutMs, options.signal);
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  const outputClosed = Promise.all([stdout.done, stderr.done]);

  try {
    const first = await Promise.race([
      child.status.then((status) => ({ status })),
      stop.reason.then((reason) => ({ reason })),
    ]);
    if ("reason" in first) {
      await terminateGroup(group, graceMs, child.status, (signal) => child.kill(signal));
      await child.status;
      await settle(outputClosed, drainMs);
      return {
        kind: first.reason,
        stdout: stdout.result(),
        stderr: stderr.result(),
        durationMs: elapsed(),
      };
    }
    // The leader is gone, but a background grandchild may still hold the pipes open: reading
    // them would never end, so give them a short drain, then end the whole group. (Mostly they
    // closed with it, and there is nothing to wait for.)
    const drained = (stdout.finished() && stderr.finished()) || await drainOrStop(
      outputClosed,
      drainMs,
      stop.reason,
    );
    if (!drained) {
      await terminateGroup(group, graceMs, Promise.resolve());
      await settle(outputClosed, drainMs);
    } else if (options.reapGroupOnExit) {
      await terminateGroup(group, graceMs, Promise.resolve());
    }
    const execFailure = setsidExecFailure(first.status.code, stderr.result().text);
    if (execFailure !== undefined) {
      return {
        kind: "spawn_failed",
        message: `Cannot start ${describe(options.commandLine)}: ${execFailure}`,
        durationMs: elapsed(),
      };
    }
    return {
      kind: "exited",
      exitCode: first.status.code,
      signal: first.status.signal,
      stdout: stdout.result(),
      stderr: stderr.result(),
      durationMs: elapsed(),
    };
  } finally {
    stop.dispose();
    await Promise.all([stdout.cancel(), stderr.cancel()]);
    // Only a process that left the group can still hold stdin unread; do not wait on it forever.
    if (!stdinWritten.finished()) {
      await settle(stdinWritten.done, drainMs);
      // Closed before the run returns, so no descriptor outlives it.
      await settle(stdinWritten.abandon(), drainMs);
    }
    releaseGroup();
  }
};

function programAndArgs(line: CommandLine): { program: string; args: readonly string[] } {
  switch (line.kind) {
    case "shell":
      // Hooks: always /bin/sh, as Claude Code does, whatever $SHELL says. The shell tool may
      // name bash (shell_program.ts).
      return { program: line.program ?? "/bin/sh", args: ["-c", line.command] };
    case "exec":
      return { program: line.command, args: line.args };
    default:
      return line satisfies never;
  }
}

function describe(line: CommandLine): string {
  return line.kind === "shell"
    ? `"${line.program ?? "/bin/sh"} -c ${line.command}"`
    : `"${line.command}"`;
}

/** True once the pipes closed, false when the drain time passed or the run was stopped first. */
async function drainOrStop(closed: Promise<unknown>, ms: number, stopped: Promise<unknown>) {
  const timer = delay(ms);
  const drained = await Promise.race([
    closed.then(() => true),
    timer.promise.then(() => false),
    stopped.then(() => false),
  ]);
  timer.cancel();
  return drained;
}

/** Settles with a stop reason when the timeout passes or the signal aborts; never rejects. */
function stopTrigger(timeoutMs: number, signal: AbortSignal | undefined) {
  let fire: (reason: StopReason) => void = () => {};
  const reason = new Promise<StopReason>((resolve) => fire = resolve);
  const timer = setTimeout(() => fire("timed_out"), Math.min(timeoutMs, MAX_TIMEOUT_MS));
  const onAbort = () => fire("cancelled");
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    reason,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** Waits for the pipes to close, but at most `ms`: a process outside the group may hold them. */
async function settle(closed: Promise<unknown>, ms: number) {
  const timer = delay(ms);
  await Promise.race([closed, timer.promise]);
  timer.cancel();
}
