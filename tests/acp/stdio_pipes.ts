/**
 * The stdio stream in memory for tests: byte pipes in place of stdin and stdout, between the
 * test and a real SDK agent.
 */
import * as acp from "@agentclientprotocol/sdk";
import { isObject, type JsonObject } from "../helpers/json_object.ts";
import { Waiters } from "../helpers/waiters.ts";
import { stdioStream, type StdioStreamOptions } from "../../src/acp/stdio/stdio_stream.ts";

export const INITIALIZE_RESPONSE = {
  protocolVersion: 1,
  agentCapabilities: {},
  authMethods: [],
};

export type AgentApp = ReturnType<typeof acp.agent>;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Pipes {
  /** Writes text to the agent's stdin as one chunk. */
  write(text: string): Promise<void>;
  writeBytes(bytes: Uint8Array): Promise<void>;
  /** Closes the agent's stdin. */
  end(): Promise<void>;
  /** Every message the agent wrote so far. */
  readonly out: JsonObject[];
  /** Waits for the first message the agent writes (or wrote) that `matches`. */
  waitFor(matches: (message: JsonObject) => boolean, what: string): Promise<JsonObject>;
  /** Waits for the agent's answer to `id`. */
  answer(id: unknown): Promise<JsonObject>;
  /** Resolves when the agent's connection has closed and its stdout is read. */
  readonly closed: Promise<void>;
  readonly connection: { close(): void };
  readonly log: string[];
}

/** Connects `app` to in-memory stdin and stdout through the stdio stream. */
export function connect(app: AgentApp, options: StdioStreamOptions = {}): Pipes {
  const stdin = new TransformStream<Uint8Array, Uint8Array>();
  const stdout = new TransformStream<Uint8Array, Uint8Array>();
  const log: string[] = [];
  const connection = app.connect(
    stdioStream(stdout.writable, stdin.readable, { log: (line) => log.push(line), ...options }),
  );
  const writer = stdin.writable.getWriter();
  const out: JsonObject[] = [];
  const waiters = new Waiters();
  let ended = false;
  const reader = stdout.readable.getReader();
  const reading = (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    while (true) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      buffer += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const message: unknown = JSON.parse(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        if (isObject(message)) out.push(message);
        waiters.checkAll();
      }
    }
  })();
  const closed = connection.closed.then(async () => {
    await writer.close().catch(() => {});
    // The stream keeps stdout, as a process does until it exits: what it wrote is read by now.
    await sleep(0);
    await reader.cancel();
    await reading;
    ended = true;
    waiters.failAll(() =>
      new Error(`The connection closed before what was awaited came: ${JSON.stringify(out)}`)
    );
  });
  const waitFor = (matches: (message: JsonObject) => boolean, what: string) =>
    waiters.wait(() => out.find(matches), {
      timeoutMs: 30_000,
      timedOut: () => new Error(`Timed out waiting for ${what}: ${JSON.stringify(out)}`),
      ended: ended ? () => new Error(`No ${what}: ${JSON.stringify(out)}`) : undefined,
    });
  return {
    write: (text) => writer.write(new TextEncoder().encode(text)),
    writeBytes: (bytes) => writer.write(bytes),
    end: () => writer.close().catch(() => {}),
    out,
    waitFor,
    answer: (id) =>
      waitFor(
        (message) => !("method" in message) && message.id === id,
        `the answer to ${JSON.stringify(id)}`,
      ),
    closed,
    connection,
    log,
  };
}

export const line = (message: unknown) => JSON.stringify(message) + "\n";
export const request = (id: unknown, method: string, params: unknown = {}) =>
  line({ jsonrpc: "2.0", id, method, params });
export const initialize = (id: unknown = 1) =>
  request(id, "initialize", { protocolVersion: 1, clientCapabilities: {} });

/** An agent that answers `initialize`. */
export const testAgent = () =>
  acp.agent({ name: "test" }).onRequest("initialize", () => INITIALIZE_RESPONSE);
