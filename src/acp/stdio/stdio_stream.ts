/**
 * The agent's side of ACP over stdio: NDJSON framing with a bounded line length, and the order in
 * which messages reach the SDK.
 *
 * - A line over `maxLineBytes` is discarded as it streams and answered with `-32600`, naming the
 *   limit, with the request's id when the line's start shows it (else `id: null`).
 * - Messages reach the SDK one at a time, in the order they arrive. After `initialize`, nothing
 *   more is read until its answer is written: the SDK refuses any request that comes before. A
 *   message naming a session that a `session/load` or `session/resume` before it is opening
 *   waits for that answer (session_holds.ts); other messages go on.
 * - When stdin ends, nothing more can come from the client. The agent's own requests to it fail at
 *   once, each prompt still running gets a `session/cancel` as if the client had sent one, and the
 *   stream ends (so the connection closes) once every request already read has been answered,
 *   or after `answerLimitMs`, when those still open are answered with an error.
 */
import type { AnyMessage, JsonRpcId, Stream } from "@agentclientprotocol/sdk";
import { DEFAULT_MAX_MESSAGE_BYTES, RequestError } from "@agentclientprotocol/sdk";
import { parseJsonRpcMessage, readableId } from "./json_rpc_message.ts";
import { LineSplitter, type SplitLine } from "./line_splitter.ts";
import { readMessageStart } from "./message_start.ts";
import { RequestLedger } from "./request_ledger.ts";
import { SessionHolds } from "./session_holds.ts";

const MIB = 1024 * 1024;
/** The SDK's own limit (32 MiB): every line its stream took keeps working. */
export const DEFAULT_MAX_LINE_BYTES = DEFAULT_MAX_MESSAGE_BYTES;
/**
 * The most `--max-line-bytes` may be. A line is held as bytes, as a string and as parsed JSON at
 * once; past this that is gigabytes, and V8 strings stop at 2^29 - 24 code units (512 MiB).
 */
export const MAX_LINE_BYTES_LIMIT = 256 * MIB;
/** How long the requests read before stdin ended may take to be answered. */
const DEFAULT_ANSWER_LIMIT_MS = 5_000;

export interface StdioStreamOptions {
  readonly maxLineBytes?: number;
  readonly answerLimitMs?: number;
  /** For what the client is not told on stdout (a discarded line, requests left unanswered). */
  readonly log?: (line: string) => void;
}

/** An ACP stream over NDJSON byte streams (the process's stdout and stdin). */
export function stdioStream(
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
  options: StdioStreamOptions = {},
): Stream {
  return new StdioChannel(output, input, options);
}

class StdioChannel implements Stream {
  readonly readable: ReadableStream<AnyMessage>;
  readonly writable: WritableStream<AnyMessage>;
  readonly #input: ReadableStreamDefaultReader<Uint8Array>;
  readonly #output: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();
  readonly #splitter: LineSplitter;
  // An iterator, not an array shifted line by line: a shift moves every line behind it, seconds
  // for the 65,536 blank lines that one read of stdin can hold.
  #lines: Iterator<SplitLine> = [].values();
  readonly #ledger = new RequestLedger();
  readonly #holds = new SessionHolds();
  readonly #maxLineBytes: number;
  readonly #answerLimitMs: number;
  readonly #log: (line: string) => void;
  #controller: ReadableStreamDefaultController<AnyMessage> | undefined;
  #writing: Promise<void> = Promise.resolve();
  #inputEnded = false;
  #cancelled = false;
  #closed = false;
  readonly #stopped = Promise.withResolvers<void>();

  constructor(
    output: WritableStream<Uint8Array>,
    input: ReadableStream<Uint8Array>,
    options: StdioStreamOptions,
  ) {
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#answerLimitMs = options.answerLimitMs ?? DEFAULT_ANSWER_LIMIT_MS;
    this.#log = options.log ?? (() => {});
    this.#splitter = new LineSplitter(this.#maxLineBytes);
    this.#input = input.getReader();
    this.#output = output.getWriter();
    this.readable = new ReadableStream<AnyMessage>({
      start: (controller) => {
        this.#controller = controller;
      },
      pull: () => this.#pull(),
      cancel: (reason) => this.#cancel(reason),
    }, { highWaterMark: 0 });
    this.writable = new WritableStream<AnyMessage>({ write: (message) => this.#send(message) });
  }

  /** Delivers the next message, answering the lines that hold none; ends the stream at EOF. */
  async #pull(): Promise<void> {
    while (!this.#cancelled) {
      await this.#ledger.initialized();
      const line = await this.#nextLine();
      if (this.#cancelled) return;
      if (line === undefined) {
        await this.#drain();
        return;
      }
      const message = await this.#receive(line);
      if (message === undefined || this.#cancelled) continue;
      if (this.#holds.hold(message)) continue;
      this.#deliver(message);
      return;
    }
  }

  async #nextLine(): Promise<SplitLine | undefined> {
    while (true) {
      const next = this.#lines.next();
      if (!next.done) return next.value;
      if (this.#inputEnded) return undefined;
      const { done, value } = await this.#input.read();
      this.#inputEnded = done;
      this.#lines = (done ? this.#splitter.finish() : this.#splitter.push(value)).values();
    }
  }

  /** The message a line holds; a line that holds none is answered here. */
  async #receive(line: SplitLine): Promise<AnyMessage | undefined> {
    switch (line.kind) {
      case "too_long":
        return await this.#tooLong(line.start, line.bytes);
      case "not_utf8":
        await this.#reply(null, RequestError.parseError(undefined, "the line is not valid UTF-8"));
        return undefined;
      case "line":
        return await this.#parse(line.text);
      default:
        return line satisfies never;
    }
  }

  async #parse(text: string): Promise<AnyMessage | undefined> {
    if (text.trim() === "") return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      await this.#reply(null, RequestError.parseError());
      return undefined;
    }
    const message = parseJsonRpcMessage(value);
    if (message !== undefined) return message;
    if (Array.isArray(value)) {
      await this.#reply(
        null,
        RequestError.invalidRequest(undefined, "JSON-RPC batches are not supported"),
      );
      return undefined;
    }
    const object = typeof value === "object" && value !== null ? value : {};
    const id = "id" in object ? readableId(object.id) : undefined;
    // A malformed answer to one of our requests fails that request, as the SDK would.
    if (!("method" in object) && id !== undefined && this.#ledger.awaitsClient(id)) {
      return answerFor(
        id,
        RequestError.invalidRequest(undefined, "the client's response is malformed"),
      );
    }
    await this.#reply(
      id ?? null,
      RequestError.invalidRequest(
        undefined,
        'not a JSON-RPC 2.0 message ("jsonrpc" must be "2.0", "method" a string, "id" a string or number)',
      ),
    );
    return undefined;
  }

  async #tooLong(startBytes: Uint8Array, bytes: number): Promise<AnyMessage | undefined> {
    const start = readMessageStart(new TextDecoder().decode(startBytes));
    const limit = this.#maxLineBytes;
    const error = new RequestError(
      -32600,
      `Message too long: a line of ${bytes} bytes is over the ${limit} byte limit and was ` +
        `discarded; send a smaller message, or start the agent with a larger --max-line-bytes`,
      { maxLineBytes: limit, lineBytes: bytes },
    );
    const what = start.method !== undefined ? `"${start.method}" ` : "";
    this.#log(
      `Discarded a ${what}message of ${bytes} bytes from stdin: over the ${limit} byte limit`,
    );
    // An answer of ours too long to read: the request it answers fails with the same error.
    if (start.isResponse && start.id !== undefined && this.#ledger.awaitsClient(start.id)) {
      return answerFor(start.id, error);
    }
    await this.#reply(start.method !== undefined ? start.id ?? null : null, error);
    return undefined;
  }

  /** Stdin ended: fail what awaits the client, cancel prompts, wait for answers, then end. */
  async #drain(): Promise<void> {
    // Every message delivered so far reaches its handler through queued microtasks: after this,
    // a prompt among them has begun its turn, and the cancel below finds it.
    await nextTask();
    for (const sessionId of this.#ledger.promptingSessions()) {
      this.#deliver({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
    }
    // Cancelled first, a prompt takes a failed permission request for the cancel it is, not for
    // a refusal to go on from.
    await nextTask();
    for (const id of this.#ledger.awaitingClient()) this.#deliver(inputEndedAnswer(id));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#answerLimitMs);
    });
    await Promise.race([this.#ledger.allAnswered(), limit, this.#stopped.promise]);
    clearTimeout(timer);
    if (this.#cancelled) return;
    // Requests held for a session that never opened are unanswered too.
    const held = this.#holds.takeAll().flatMap((message) =>
      "method" in message && "id" in message ? [{ id: message.id, method: message.method }] : []
    );
    const open = [...this.#ledger.takeUnanswered(), ...held];
    if (open.length > 0) {
      this.#log(
        `Stdin ended and ${open.length} request(s) were not answered within ` +
          `${this.#answerLimitMs} ms: answering them with an error`,
      );
    }
    for (const { id, method } of open) {
      await this.#reply(
        id,
        new RequestError(
          -32603,
          `Cannot finish "${method}": stdin ended and the agent is exiting; send the request again to a new agent`,
        ),
      );
    }
    this.#closed = true;
    this.#controller?.close();
  }

  /** Hands a message to the SDK. */
  #deliver(message: AnyMessage): void {
    if (this.#cancelled || this.#closed) return;
    this.#ledger.delivered(message);
    this.#holds.delivered(message);
    this.#controller?.enqueue(message);
  }

  #cancel(reason: unknown): Promise<void> {
    this.#cancelled = true;
    this.#stopped.resolve();
    this.#ledger.stop();
    return this.#input.cancel(reason).catch(() => {});
  }

  /** Writes a message from the SDK: one line, in order with ours. */
  #send(message: AnyMessage): Promise<void> {
    if (!("method" in message) && this.#ledger.answeredHere(message.id)) {
      // Answered with an error when stdin ended and the wait ran out: one answer per request.
      return Promise.resolve();
    }
    if ("method" in message && "id" in message) {
      this.#ledger.askedClient(message.id);
      // Asked after stdin ended (before a cancel landed): no answer can come.
      if (this.#inputEnded) this.#deliver(inputEndedAnswer(message.id));
    }
    return this.#write(message).then(() => {
      if ("method" in message) return;
      // Released before the answer is counted: what was held is open before "all answered".
      this.#release(message.id);
      this.#ledger.answered(message.id);
    });
  }

  /** Delivers what waited for the session that the request `id` opened. */
  #release(id: JsonRpcId): void {
    for (const held of this.#holds.answered(id)) {
      if (this.#holds.hold(held)) continue;
      this.#deliver(held);
      // Read before stdin ended, run after: cancelled as the prompts running then were.
      if (
        this.#inputEnded && "method" in held && "id" in held && held.method === "session/prompt"
      ) {
        const cancel = { jsonrpc: "2.0" as const, method: "session/cancel", params: held.params };
        void nextTask().then(() => this.#deliver(cancel));
      }
    }
  }

  #reply(id: JsonRpcId, error: RequestError): Promise<void> {
    return this.#write(answerFor(id, error));
  }

  #write(message: AnyMessage): Promise<void> {
    const bytes = this.#encoder.encode(JSON.stringify(message) + "\n");
    const written = this.#writing.then(() => this.#output.write(bytes));
    this.#writing = written.catch(() => {});
    return written;
  }
}

function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function answerFor(id: JsonRpcId, error: RequestError): AnyMessage {
  return { jsonrpc: "2.0", id, error: error.toErrorResponse() };
}

function inputEndedAnswer(id: JsonRpcId): AnyMessage {
  return answerFor(
    id,
    new RequestError(-32603, "No answer can come: the client closed the agent's stdin"),
  );
}
