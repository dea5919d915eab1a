/**
 * MCP's stdio transport (newline-delimited JSON-RPC on the server's stdin and stdout), with the
 * server as the leader of its own process group. The SDK's own stdio transport signals only the
 * process it started; a server launched through `npx`, `uvx` or a shell script is a tree, and
 * closing the session must end all of it. The server's stderr is kept (its tail), so a server
 * that fails can say why.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/client";
import { errorMessage } from "../../error.ts";
import {
  delay,
  setsidExecFailure,
  spawnInOwnGroup,
  terminateGroup,
} from "../../os/process/process_group.ts";
import { spawnGuarded } from "../../os/process/guard_group.ts";
import type { GroupChild } from "../../os/process/group_child.ts";

export interface StdioServerLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** The server's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Time between SIGTERM and SIGKILL of the group when the transport closes. */
  readonly killGraceMs: number;
  /** The longest message the server may write, in characters (default 64 Mi); past it, the server is ended. */
  readonly maxMessageBytes?: number;
}

/** How the server process ended, as far as it did. */
export interface ServerExit {
  readonly code: number;
  readonly signal: Deno.Signal | null;
  /** Set when the command could not be executed at all (not found, not executable). */
  readonly execFailure: string | undefined;
  /** It exited before anyone closed the transport: the exit is the server's own doing. */
  readonly byItself: boolean;
}

const STDERR_TAIL_CHARS = 4000;
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const PIPE_DRAIN_MS = 500;
const ENCODER = new TextEncoder();

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #child: GroupChild | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #exit: ServerExit | undefined;
  #stderrTail = "";
  #closing = false;
  #closed: Promise<void> | undefined;
  #shutdown: Promise<void> | undefined;
  #violation: string | undefined;
  #readers: ReadableStreamDefaultReader<string>[] = [];

  constructor(private readonly launch: StdioServerLaunch) {}

  /** The last few thousand characters the server wrote on stderr. */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** Undefined while the server runs (or before it started). */
  get exit(): ServerExit | undefined {
    return this.#exit;
  }

  /** Settles once the process has exited and its pipes are read (now, if it never started). */
  ended(): Promise<void> {
    return this.#closed ?? Promise.resolve();
  }

  /** Why the transport ended the server itself (it broke the framing), if it did. */
  get violation(): string | undefined {
    return this.#violation;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error("The MCP server process was already started");
    // Closed before it started (the session ended while connecting): start nothing.
    if (this.#closing) throw new Error("The MCP server connection was closed before it started");
    const { command, args, env, cwd } = this.launch;
    // Until the group is over, the agent's death (even SIGKILL) ends it too.
    let spawned: ReturnType<typeof spawnGuarded>;
    try {
      spawned = spawnGuarded(() =>
        spawnInOwnGroup({ program: command, args }, { cwd, env, stdin: "piped" })
      );
    } catch (error) {
      // posix_spawn reports an exec failure at once (setsid(1) reports it as exit 127).
      this.#exit = { code: 127, signal: null, execFailure: errorMessage(error), byItself: true };
      throw error;
    }
    const { child, release: releaseGroup } = spawned;
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    const stdoutDone = this.#readMessages(child.stdout);
    const stderrDone = this.#keepStderrTail(child.stderr);
    this.#closed = (async () => {
      const status = await child.status;
      const byItself = !this.#closing;
      // Closes our end of its stdin: nothing more can be written to a process that is gone.
      this.#writer?.abort().catch(() => {});
      // The pipes may outlive the leader (a grandchild holds them); end the group first.
      await terminateGroup(child.pid, this.launch.killGraceMs, Promise.resolve());
      releaseGroup();
      // A process that left the group may still hold the pipes: wait for them, but not forever,
      // then stop reading them.
      const drain = delay(PIPE_DRAIN_MS);
      await Promise.race([Promise.all([stdoutDone, stderrDone]), drain.promise]);
      drain.cancel();
      await Promise.all(this.#readers.map((reader) => reader.cancel().catch(() => {})));
      this.#exit = {
        code: status.code,
        signal: status.signal,
        execFailure: setsidExecFailure(status.code, this.#stderrTail),
        byItself,
      };
      this.onclose?.();
    })();
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#exit || this.#closing) {
      throw new Error("The MCP server is not running");
    }
    await this.#writer.write(ENCODER.encode(serializeMessage(message)));
  }

  /** Ends the server's whole process group: SIGTERM, then SIGKILL after the grace. */
  close(): Promise<void> {
    this.#closing = true;
    // Every caller (the SDK, the session) waits for the same, whole shutdown.
    this.#shutdown ??= this.#shutDown();
    return this.#shutdown;
  }

  async #shutDown(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    // A server that exited was reaped: its pid (and group id) may already be someone else's.
    if (!this.#exit) {
      // Closing stdin is the polite request (the MCP spec's first step); the group signal
      // follows at once. Aborted, not closed, and not waited for: both wait for a write in
      // flight, which a stuck server (or a child holding its stdin) may never take.
      this.#writer?.abort().catch(() => {});
      await terminateGroup(
        child.pid,
        this.launch.killGraceMs,
        child.status,
        (signal) => child.kill(signal),
      );
    }
    await this.#closed;
  }

  /**
   * Splits stdout into lines. The part of a line not yet ended is kept as a list of chunks, so a
   * long message costs its length once, not once per chunk; one longer than the limit ends the
   * server, which would otherwise grow the agent's memory without bound.
   */
  async #readMessages(stream: ReadableStream<Uint8Array>): Promise<void> {
    const limit = this.launch.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    let parts: string[] = [];
    let partLength = 0;
    const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
    this.#readers.push(reader);
    try {
      while (true) {
        const { done, value: chunk } = await reader.read();
        if (done) break;
        let start = 0;
        let newline: number;
        while ((newline = chunk.indexOf("\n", start)) >= 0) {
          parts.push(chunk.slice(start, newline));
          const line = parts.join("").replace(/\r$/, "");
          parts = [];
          partLength = 0;
          start = newline + 1;
          if (line.trim() !== "") this.#deliver(line);
        }
        if (start < chunk.length) {
          parts.push(chunk.slice(start));
          partLength += chunk.length - start;
        }
        if (partLength > limit) {
          this.#violation = `it wrote a message longer than ${sizeInWords(limit)}`;
          this.onerror?.(new Error(`The MCP server ${this.#violation}`));
          parts = [];
          void this.close();
          break;
        }
      }
    } catch {
      // A pipe error ends reading; the exit that follows reports it.
    }
  }

  #deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      // A stray print on stdout is the server's bug, not the end of the connection.
      this.onerror?.(
        new Error(`The MCP server wrote a line that is not JSON-RPC: ${errorMessage(error)}`),
      );
      return;
    }
    this.onmessage?.(message);
  }

  async #keepStderrTail(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
    this.#readers.push(reader);
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#stderrTail = (this.#stderrTail + value).slice(-STDERR_TAIL_CHARS);
      }
    } catch {
      // As above.
    }
  }
}

function sizeInWords(bytes: number): string {
  if (bytes >= 2 ** 20 && bytes % 2 ** 20 === 0) return `${bytes / 2 ** 20} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
