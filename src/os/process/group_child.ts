/**
 * A process that leads a group of its own, as its users see it: the shape of Deno.ChildProcess
 * that the command runner and the MCP transport use, whichever way it was spawned.
 */
import type { OutputCapture, StdinFeed } from "./child_io.ts";

export interface GroupCommand {
  readonly program: string;
  readonly args: readonly string[];
}

export interface SpawnOptions {
  readonly cwd: string;
  /** The child's whole environment: nothing is inherited. */
  readonly env: Readonly<Record<string, string>>;
  readonly stdin: "piped" | "null";
  /** Stdout and stderr: read by the caller (the default), or discarded. */
  readonly output?: "piped" | "null";
}

export interface GroupChild {
  /** Also the id of its process group. */
  readonly pid: number;
  /** Throws unless spawned with stdin "piped"; stdout and stderr unless output is "piped". */
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<Deno.CommandStatus>;
  /** Signals the leader only; throws once it has been reaped. */
  kill(signal?: Deno.Signal): void;
  /**
   * Reads stdout or stderr to its end without a web stream, where the spawner can (the stream
   * of the same name then throws: one reader per pipe).
   */
  readonly captureOutput?: (which: "stdout" | "stderr", capBytes: number) => OutputCapture;
  /** Writes `bytes` to stdin and closes it, without a web stream, where the spawner can. */
  readonly feedStdin?: (bytes: Uint8Array) => StdinFeed;
}
