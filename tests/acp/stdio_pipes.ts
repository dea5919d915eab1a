/**
 * The stdio stream in memory for tests: byte pipes in place of stdin and stdout, between the
 * test and a real SDK agent.
 */
import * as acp from "@agentclientprotocol/sdk";
import { isObject, type JsonObject } from "../helpers/json_object.ts";
import { stdioStream, type StdioStreamOptions } from "../../src/acp/stdio_stream.ts";

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
  const waiting = new Set<() => void>();
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
        for (const check of waiting) check();
      }
    }
  })();
  const closed = connection.closed.then(async () => {
    await writer.close().catch(() => {});
    // The stream keeps stdout, as a process does until it exits: what it wrote is read by now.
    await sleep(0);
    await reader.cancel();
    await reading;
  });
  return {
    write: (text) => writer.write(new TextEncoder().encode(text)),
    writeBytes: (bytes) => writer.write(bytes),
    end: () => writer.close().catch(() => {}),
    out,
    answer: (id) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = out.find((message) => !("method" in message) && message.id === id);
          if (found) {
            waiting.delete(check);
            resolve(found);
          }
        };
        waiting.add(check);
        check();
        closed.then(() => {
          check();
          reject(new Error(`No answer to ${JSON.stringify(id)}: ${JSON.stringify(out)}`));
        });
      }),
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
