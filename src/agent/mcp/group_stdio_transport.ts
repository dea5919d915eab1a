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
} from "../../hooks/process_group.ts";

export interface StdioServerLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** The server's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Time between SIGTERM and SIGKILL of the group when the transport closes. */
  readonly killGraceMs: number;
}

/** How the server process ended, as far as it did. */
export interface ServerExit {
  readonly code: number;
  readonly signal: Deno.Signal | null;
  /** Set when the command could not be executed at all (not found, not executable). */
  readonly execFailure: string | undefined;
}

const STDERR_TAIL_CHARS = 4000;
const PIPE_DRAIN_MS = 500;
const ENCODER = new TextEncoder();

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #child: Deno.ChildProcess | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #exit: ServerExit | undefined;
  #stderrTail = "";
  #closing = false;
  #closed: Promise<void> | undefined;

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

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error("The MCP server process was already started");
    // Closed before it started (the session ended while connecting): start nothing.
    if (this.#closing) throw new Error("The MCP server connection was closed before it started");
    const { command, args, env, cwd } = this.launch;
    const child = spawnInOwnGroup({ program: command, args }, { cwd, env, stdin: "piped" });
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    const stdoutDone = this.#readMessages(child.stdout);
    const stderrDone = this.#keepStderrTail(child.stderr);
    this.#closed = (async () => {
      const status = await child.status;
      // Closes our end of its stdin: nothing more can be written to a process that is gone.
      await this.#writer?.abort().catch(() => {});
      // The pipes may outlive the leader (a grandchild holds them); end the group first.
      await terminateGroup(child.pid, this.launch.killGraceMs, Promise.resolve());
      // A process that left the group may still hold the pipes: wait for them, but not forever.
      const drain = delay(PIPE_DRAIN_MS);
      await Promise.race([Promise.all([stdoutDone, stderrDone]), drain.promise]);
      drain.cancel();
      this.#exit = {
        code: status.code,
        signal: status.signal,
        execFailure: setsidExecFailure(status.code, this.#stderrTail),
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
  async close(): Promise<void> {
    const child = this.#child;
    const wasClosing = this.#closing;
    this.#closing = true;
    // A server that exited was reaped: its pid (and group id) may already be someone else's.
    if (!child || wasClosing || this.#exit) return await this.#closed;
    // Closing stdin is the polite request (the MCP spec's first step); the group signal follows.
    // Aborted, not closed: a close would wait for writes a stuck server never reads.
    await this.#writer?.abort().catch(() => {});
    await terminateGroup(child.pid, this.launch.killGraceMs, child.status);
    await this.#closed;
  }

  async #readMessages(stream: ReadableStream<Uint8Array>): Promise<void> {
    let pending = "";
    try {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        pending += chunk;
        let newline: number;
        while ((newline = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, newline).replace(/\r$/, "");
          pending = pending.slice(newline + 1);
          if (line.trim() !== "") this.#deliver(line);
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
    try {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        this.#stderrTail = (this.#stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
      }
    } catch {
      // As above.
    }
  }
}
