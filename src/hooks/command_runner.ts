/**
 * The only place hooks touch `Deno.Command`: run one process with bounded I/O and a guaranteed
 * end. Every failure (cannot start, timeout, cancel) is a result, never a throw, and the process
 * group is gone (or SIGKILLed) before the promise settles: no orphan outlives a hook.
 */
import { errorMessage } from "../error.ts";
import type { CapturedStream, HandlerResult } from "./handler_result.ts";
import type { GroupChild } from "./group_child.ts";
import { spawnGuarded } from "./guard_group.ts";
import { delay, setsidExecFailure, spawnInOwnGroup, terminateGroup } from "./process_group.ts";

/** `/bin/sh -c <command>`, or a program spawned directly with its arguments (no shell). */
export type CommandLine =
  | { readonly kind: "shell"; readonly command: string }
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

export type CommandRunResult =
  /** The process exited by itself (or died of a signal we did not send): a hook's own result. */
  | Extract<HandlerResult, { readonly kind: "exited" }>
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

const READ_CHUNK_BYTES = 64 * 1024;

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
  const stdout = capture(child.stdout, options.stdoutCapBytes ?? DEFAULT_CAPTURE_CAP_BYTES);
  const stderr = capture(child.stderr, options.stderrCapBytes ?? DEFAULT_CAPTURE_CAP_BYTES);
  const stdinWritten = writeAndClose(child.stdin, options.stdin ?? new Uint8Array());
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
    if (!stdinWritten.finished()) await settle(stdinWritten.done, drainMs);
    releaseGroup();
  }
};

function programAndArgs(line: CommandLine): { program: string; args: readonly string[] } {
  switch (line.kind) {
    case "shell":
      // Always /bin/sh, as Claude Code does, whatever $SHELL says.
      return { program: "/bin/sh", args: ["-c", line.command] };
    case "exec":
      return { program: line.command, args: line.args };
    default:
      return line satisfies never;
  }
}

function describe(line: CommandLine): string {
  return line.kind === "shell" ? `"/bin/sh -c ${line.command}"` : `"${line.command}"`;
}

/**
 * Writes stdin while the readers run. A child may exit or close stdin without reading it
 * (BrokenPipe): that is its right, not an error.
 */
function writeAndClose(stream: WritableStream<Uint8Array>, bytes: Uint8Array) {
  const writer = stream.getWriter();
  let finished = false;
  const done = (async () => {
    try {
      if (bytes.byteLength > 0) await writer.write(bytes);
      await writer.close();
    } catch {
      await writer.abort().catch(() => {});
    } finally {
      finished = true;
    }
  })();
  return { done, finished: () => finished };
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

interface Capture {
  /** Settles when the stream ends, fails, or is cancelled. */
  readonly done: Promise<void>;
  /** Whether `done` has settled, for a caller that need not wait then. */
  readonly finished: () => boolean;
  readonly cancel: () => Promise<void>;
  readonly result: () => CapturedStream;
}

/**
 * Reads a stream to its end into at most `capBytes` bytes. One reused buffer (BYOB), so a hook
 * writing gigabytes costs time, not memory.
 */
function capture(stream: ReadableStream<Uint8Array>, capBytes: number): Capture {
  const reader = stream.getReader({ mode: "byob" });
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let discardedBytes = 0;
  let finished = false;
  const done = (async () => {
    let buffer = new Uint8Array(READ_CHUNK_BYTES);
    try {
      while (true) {
        const { done, value } = await reader.read(buffer);
        if (done || value === undefined) break;
        const take = Math.min(value.byteLength, capBytes - keptBytes);
        if (take > 0) {
          kept.push(value.slice(0, take));
          keptBytes += take;
        }
        discardedBytes += value.byteLength - take;
        buffer = new Uint8Array(value.buffer);
      }
    } catch {
      // A pipe error ends the capture; what was read so far is kept.
    } finally {
      finished = true;
    }
  })();
  return {
    done,
    finished: () => finished,
    cancel: async () => {
      if (!finished) await reader.cancel().catch(() => {});
      await done;
      reader.releaseLock();
    },
    result: () => {
      const bytes = new Uint8Array(keptBytes);
      let offset = 0;
      for (const chunk of kept) {
        bytes.set(chunk, offset);
        offset += chunk.byteLength;
      }
      return { text: new TextDecoder().decode(bytes), discardedBytes };
    },
  };
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
