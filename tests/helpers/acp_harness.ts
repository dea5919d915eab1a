/**
 * A raw NDJSON ACP client for end-to-end tests: spawns the agent (`bin/llama-agent acp ...` by
 * default, any command for fakes) with a pinned environment, writes JSON-RPC lines, reads lines,
 * and checks what an SDK would hide:
 *
 * - stdout hygiene: every stdout line is one JSON-RPC 2.0 message (`stdout` violations);
 * - every agent message is valid against the ACP schema, strict by default (`schema`);
 * - ordering: a `session/update` only for a session the agent created (after its `session/new`
 *   answer) or the client named (`session/load`, `session/resume`); a `tool_call_update` only for
 *   a `toolCallId` announced by a `tool_call` in the same session (`ordering`);
 * - responses answer a pending request exactly once (`protocol`);
 * - the agent exits by itself when its stdin closes (`lifecycle`, checked by `close()`).
 *
 * `close()` ends the agent and fails on any violation; `assertClean()` checks without closing.
 *
 * ```ts
 * const agent = await AcpHarness.start({ cwd, home, args: ["--model", path] });
 * await agent.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
 * const { sessionId } = await agent.call("session/new", { cwd, mcpServers: [] }) as { sessionId: string };
 * agent.onRequest("session/request_permission", () => ({ outcome: { outcome: "cancelled" } }));
 * await agent.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
 * assertEquals(agent.agentText(sessionId), "Hello");
 * await agent.close();
 * ```
 */
import { agentMessageDefs, validateAgentMessage } from "./acp_schema.ts";
import { AssertionError } from "./assert.ts";
import { LAUNCHER } from "./run_cli.ts";

export type JsonObject = Readonly<Record<string, unknown>>;
export type RequestId = string | number | null;

export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** The agent's answer to a request: `result`, or `error`. */
export type AcpResponse =
  | { readonly id: RequestId; readonly result: unknown; readonly error?: undefined }
  | { readonly id: RequestId; readonly result?: undefined; readonly error: RpcErrorObject };

export interface LoggedMessage {
  readonly from: "client" | "agent";
  /** Milliseconds since the harness started. */
  readonly at: number;
  /** The line as written or read (without its newline). */
  readonly line: string;
  /** The parsed message; undefined when the line is not JSON. */
  readonly message: unknown;
}

export type ViolationKind = "stdout" | "schema" | "ordering" | "protocol" | "lifecycle";

export interface Violation {
  readonly kind: ViolationKind;
  readonly message: string;
}

/** Thrown by an `onRequest` handler to answer with a JSON-RPC error. */
export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
  return value === null || typeof value === "string" || typeof value === "number";
}

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/**
 * Watches one connection's messages in order and records what breaks the protocol. Pure: the
 * harness feeds it what it writes and reads; the acpx helper feeds it acpx's transcript.
 */
export class TrafficMonitor {
  readonly violations: Violation[] = [];
  /** Client requests awaiting the agent's answer, by id. */
  private readonly clientPending = new Map<RequestId, string>();
  /** Agent requests awaiting the client's answer, by id. */
  private readonly agentPending = new Map<RequestId, string>();
  private readonly sessions = new Set<string>();
  private readonly toolCalls = new Map<string, Set<string>>();

  constructor(private readonly options: { readonly strictSchema?: boolean } = {}) {}

  /** Records a message the client sent. */
  clientSent(message: unknown): void {
    if (!isObject(message)) return;
    const { id, method } = message;
    if (typeof method === "string") {
      if (isRequestId(id) && "id" in message) this.clientPending.set(id, method);
      const params = isObject(message.params) ? message.params : {};
      if (
        (method === "session/load" || method === "session/resume") &&
        typeof params.sessionId === "string"
      ) {
        this.sessions.add(params.sessionId);
      }
    } else if (isRequestId(id)) {
      this.agentPending.delete(id);
    }
  }

  /** Records and checks a message the agent sent. */
  agentSent(message: unknown): void {
    const methodOf = (id: unknown) => isRequestId(id) ? this.clientPending.get(id) : undefined;
    const strict = this.options.strictSchema;
    for (const problem of validateAgentMessage(message, methodOf, { strict })) {
      this.report("schema", `${problem} in ${clip(JSON.stringify(message))}`);
    }
    if (!isObject(message)) return;
    const { id, method } = message;
    if (typeof method === "string") {
      if ("id" in message && isRequestId(id)) {
        if (this.agentPending.has(id)) {
          this.report("protocol", `Agent reused the id ${JSON.stringify(id)} of a pending request`);
        }
        this.agentPending.set(id, method);
      }
      if (method === "session/update" && isObject(message.params)) this.update(message.params);
      return;
    }
    if (!isRequestId(id)) return;
    const answered = this.clientPending.get(id);
    if (answered === undefined) {
      // A parse error or an invalid request is answered with id null (JSON-RPC 2.0 §5).
      if (id === null && "error" in message) return;
      this.report(
        "protocol",
        `Agent answered id ${JSON.stringify(id)}, which no pending client request has`,
      );
      return;
    }
    this.clientPending.delete(id);
    if (answered === "session/new" && isObject(message.result)) {
      const { sessionId } = message.result;
      if (typeof sessionId === "string") this.sessions.add(sessionId);
    }
  }

  /**
   * Records a message whose direction is not known (a client's transcript) and returns its side:
   * methods the schema lists as the agent's requests and notifications come from the agent, other
   * methods from the client; a response from the side that did not send the request it answers
   * (the latest pending one when both sides use the id).
   */
  observe(message: unknown): "client" | "agent" {
    let from: "client" | "agent" = "agent";
    if (isObject(message) && typeof message.method === "string") {
      const { requests, notifications } = agentMessageDefs();
      const agentMethod = requests.has(message.method) || notifications.has(message.method);
      from = agentMethod ? "agent" : "client";
    } else if (isObject(message) && isRequestId(message.id)) {
      // When both sides await the id, the agent's request (nested in a client's) ends first.
      from = this.agentPending.has(message.id) ? "client" : "agent";
    }
    if (from === "client") this.clientSent(message);
    else this.agentSent(message);
    return from;
  }

  private update(params: JsonObject): void {
    const { sessionId, update } = params;
    if (typeof sessionId !== "string" || !isObject(update)) return;
    const kind = update.sessionUpdate;
    if (!this.sessions.has(sessionId)) {
      this.report(
        "ordering",
        `session/update ${JSON.stringify(kind)} for session "${sessionId}", which no session/new ` +
          "answer has returned and no session/load or session/resume has named (yet)",
      );
    }
    const toolCallId = update.toolCallId;
    if (typeof toolCallId !== "string") return;
    const announced = this.toolCalls.get(sessionId) ?? new Set<string>();
    this.toolCalls.set(sessionId, announced);
    if (kind === "tool_call") announced.add(toolCallId);
    if (kind === "tool_call_update" && !announced.has(toolCallId)) {
      this.report(
        "ordering",
        `tool_call_update for toolCallId "${toolCallId}" in session "${sessionId}" before any ` +
          "tool_call announced it",
      );
    }
  }

  private report(kind: ViolationKind, message: string): void {
    this.violations.push({ kind, message });
  }
}

/** The `update` objects of `session/update` notifications, in order, for one session or all. */
export function sessionUpdatesOf(
  notifications: readonly unknown[],
  sessionId?: string,
): JsonObject[] {
  const updates: JsonObject[] = [];
  for (const notification of notifications) {
    if (!isObject(notification) || notification.method !== "session/update") continue;
    const params = notification.params;
    if (!isObject(params) || !isObject(params.update)) continue;
    if (sessionId !== undefined && params.sessionId !== sessionId) continue;
    updates.push(params.update);
  }
  return updates;
}

/** The text of the `agent_message_chunk` updates, concatenated. */
export function agentTextOf(notifications: readonly unknown[], sessionId?: string): string {
  return sessionUpdatesOf(notifications, sessionId)
    .filter((update) => update.sessionUpdate === "agent_message_chunk")
    .map((update) => isObject(update.content) ? update.content.text : undefined)
    .filter((text): text is string => typeof text === "string")
    .join("");
}

/** The `tool_call` and `tool_call_update` updates, in order. */
export function toolCallUpdatesOf(
  notifications: readonly unknown[],
  sessionId?: string,
): JsonObject[] {
  return sessionUpdatesOf(notifications, sessionId).filter((update) =>
    update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update"
  );
}

export interface AcpHarnessOptions {
  /** The agent's working directory. */
  readonly cwd: string;
  /** HOME for the agent: a hermetic temporary one. */
  readonly home: string;
  /** Arguments after `acp` for the launcher. */
  readonly args?: readonly string[];
  /** The whole command line instead of `[LAUNCHER, "acp", ...args]` (a fake agent). */
  readonly command?: readonly string[];
  /** Added to the pinned environment (PATH, HOME, LANG, TZ, NO_COLOR). */
  readonly env?: Readonly<Record<string, string>>;
  /** How much of the end of stderr to keep (default 1 MiB). */
  readonly stderrLimitBytes?: number;
  /** Default time a request waits for its answer (default 120 s). */
  readonly requestTimeoutMs?: number;
  /** Report properties the schema does not declare (default true). */
  readonly strictSchema?: boolean;
}

export interface CloseResult {
  readonly code: number;
  readonly signal: Deno.Signal | null;
  readonly stderr: string;
  readonly violations: readonly Violation[];
}

type RequestHandler = (params: unknown, request: JsonObject) => unknown;

interface Pending {
  readonly method: string;
  readonly resolve: (response: AcpResponse) => void;
  readonly reject: (error: Error) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

interface Waiter {
  readonly check: () => boolean;
  readonly reject: (error: Error) => void;
}

const encoder = new TextEncoder();

export class AcpHarness {
  readonly messages: LoggedMessage[] = [];
  /** Every notification the agent sent, in order. */
  readonly notifications: JsonObject[] = [];
  readonly monitor: TrafficMonitor;
  /** Violations the harness itself finds (stdout, lifecycle); the monitor has the rest. */
  private readonly ownViolations: Violation[] = [];
  private readonly startedAt = performance.now();
  private readonly child: Deno.ChildProcess;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly stdoutReader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly stderrReader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly stdoutDone: Promise<void>;
  private readonly stderrDone: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly waiters = new Set<Waiter>();
  private readonly stderrChunks: Uint8Array[] = [];
  private stderrBytes = 0;
  private stderrDropped = 0;
  private nextId = 1;
  private exit: Deno.CommandStatus | undefined;
  private readonly status: Promise<Deno.CommandStatus>;
  private closing: Promise<CloseResult> | undefined;

  private constructor(private readonly options: AcpHarnessOptions) {
    this.monitor = new TrafficMonitor({ strictSchema: options.strictSchema });
    const [program, ...args] = options.command ?? [LAUNCHER, "acp", ...(options.args ?? [])];
    if (program === undefined) throw new Error("AcpHarness: the command is empty");
    this.child = new Deno.Command(program, {
      args,
      cwd: options.cwd,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: options.home,
        LANG: "C.UTF-8",
        TZ: "UTC",
        NO_COLOR: "1",
        ...options.env,
      },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.writer = this.child.stdin.getWriter();
    this.stdoutReader = this.child.stdout.getReader();
    this.stderrReader = this.child.stderr.getReader();
    this.stdoutDone = this.readStdout();
    this.stderrDone = this.readStderr();
    this.status = this.child.status.then(async (status) => {
      // Lines the agent wrote before exiting may still be in the pipe: read them first.
      await within(this.stdoutDone, 2_000);
      this.exit = status;
      this.agentGone(
        `The agent exited (code ${status.code}${status.signal ? `, ${status.signal}` : ""})`,
      );
      return status;
    });
  }

  /** Spawns the agent. */
  static start(options: AcpHarnessOptions): Promise<AcpHarness> {
    return Promise.resolve(new AcpHarness(options));
  }

  /** Sends a request and resolves with the agent's answer (a result or an error object). */
  request(
    method: string,
    params?: unknown,
    options: { timeoutMs?: number } = {},
  ): Promise<AcpResponse> {
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs ?? 120_000;
    return new Promise<AcpResponse>((resolve, reject) => {
      if (this.exit !== undefined) {
        reject(
          new AssertionError(
            `The agent had exited: cannot send "${method}"\n${this.diagnostics()}`,
          ),
        );
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new AssertionError(
            `No answer to request ${id} "${method}" within ${timeoutMs} ms\n${this.diagnostics()}`,
          ),
        );
      }, timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })
        .catch((error) => this.settle(id, error));
    });
  }

  /** Sends a request and returns its result; an error answer fails the test. */
  async call(
    method: string,
    params?: unknown,
    options: { timeoutMs?: number } = {},
  ): Promise<unknown> {
    const response = await this.request(method, params, options);
    if (response.error !== undefined) {
      throw new AssertionError(
        `Request "${method}" failed: ${JSON.stringify(response.error)}\n${this.diagnostics()}`,
      );
    }
    return response.result;
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): Promise<void> {
    return this.send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /** Writes `line` and a newline as is (malformed input, hand-made ids). */
  sendRaw(line: string): Promise<void> {
    return this.write(line);
  }

  /**
   * Answers the agent's requests of `method` (`session/request_permission`, `fs/read_text_file`,
   * `terminal/create`, ...) with the handler's return value (`{}` for undefined); a thrown
   * `RpcError` becomes that error, anything else thrown `-32603`. Unhandled methods get `-32601`.
   */
  onRequest(method: string, handler: RequestHandler): this {
    this.handlers.set(method, handler);
    return this;
  }

  /** The `update` objects of `session/update` notifications so far. */
  sessionUpdates(sessionId?: string): JsonObject[] {
    return sessionUpdatesOf(this.notifications, sessionId);
  }

  /** The agent's message text so far. */
  agentText(sessionId?: string): string {
    return agentTextOf(this.notifications, sessionId);
  }

  /** The `tool_call` and `tool_call_update` updates so far. */
  toolCallUpdates(sessionId?: string): JsonObject[] {
    return toolCallUpdatesOf(this.notifications, sessionId);
  }

  /**
   * Resolves with the predicate's first truthy value, checked now and after each message from the
   * agent; rejects on timeout or when the agent exits first.
   */
  waitFor<T>(
    predicate: () => T | undefined | null | false,
    options: { timeoutMs?: number; what?: string } = {},
  ): Promise<T> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const what = options.what ?? "the condition";
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      const waiter: Waiter = {
        check: () => {
          const value = predicate();
          if (!value) return false;
          done();
          resolve(value);
          return true;
        },
        reject: (error) => {
          done();
          reject(error);
        },
      };
      const timer = setTimeout(
        () =>
          waiter.reject(
            new AssertionError(
              `Timed out after ${timeoutMs} ms waiting for ${what}\n${this.diagnostics()}`,
            ),
          ),
        timeoutMs,
      );
      this.waiters.add(waiter);
      if (safeCheck(waiter)) return;
      if (this.exit !== undefined) {
        waiter.reject(
          new AssertionError(`The agent had exited: no ${what}\n${this.diagnostics()}`),
        );
      }
    });
  }

  /** Waits for a notification matching `predicate` (among those already received too). */
  waitForNotification(
    predicate: (notification: JsonObject) => boolean,
    options: { timeoutMs?: number; what?: string } = {},
  ): Promise<JsonObject> {
    return this.waitFor(() => this.notifications.find(predicate), options);
  }

  get violations(): Violation[] {
    return [...this.ownViolations, ...this.monitor.violations];
  }
  get stdoutViolations(): Violation[] {
    return this.violations.filter((violation) => violation.kind === "stdout");
  }
  get schemaViolations(): Violation[] {
    return this.violations.filter((violation) => violation.kind === "schema");
  }
  get orderingViolations(): Violation[] {
    return this.violations.filter((violation) => violation.kind === "ordering");
  }
  get protocolViolations(): Violation[] {
    return this.violations.filter((violation) => violation.kind === "protocol");
  }

  /** The end of stderr so far (bounded). */
  get stderr(): string {
    const text = new TextDecoder().decode(concat(this.stderrChunks));
    return this.stderrDropped > 0 ? `[${this.stderrDropped} bytes dropped]\n${text}` : text;
  }

  /** Fails on any recorded violation. */
  assertClean(): void {
    const violations = this.violations;
    if (violations.length === 0) return;
    throw new AssertionError(
      `The agent broke the protocol ${violations.length} time(s):\n` +
        violations.map((violation) => `  [${violation.kind}] ${violation.message}`).join("\n") +
        `\n${this.diagnostics()}`,
    );
  }

  /**
   * Closes stdin, waits up to `timeoutMs` (default 10 s) for the agent to exit (else a `lifecycle`
   * violation), then SIGTERM and, 2 s later, SIGKILL. Fails on violations unless
   * `allowViolations`; the result is the same for every call.
   */
  close(options: { timeoutMs?: number; allowViolations?: boolean } = {}): Promise<CloseResult> {
    this.closing ??= this.shutdown(options.timeoutMs ?? 10_000);
    return this.closing.then((result) => {
      if (!options.allowViolations) this.assertClean();
      return result;
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async shutdown(timeoutMs: number): Promise<CloseResult> {
    await within(this.writer.close().catch(() => {}), timeoutMs);
    let status = await within(this.status, timeoutMs);
    if (status === undefined) {
      this.ownViolations.push({
        kind: "lifecycle",
        message: `The agent did not exit within ${timeoutMs} ms of its stdin closing`,
      });
    }
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (status !== undefined) break;
      try {
        this.child.kill(signal);
      } catch {
        // It exited meanwhile.
      }
      status = await within(this.status, 2_000);
    }
    status ??= await this.status;
    // A grandchild may hold stdout or stderr open after the agent exits: stop reading then.
    if (await within(this.stdoutDone, 2_000) === undefined) {
      await this.stdoutReader.cancel().catch(() => {});
    }
    if (await within(this.stderrDone, 2_000) === undefined) {
      await this.stderrReader.cancel().catch(() => {});
    }
    await Promise.all([this.stdoutDone, this.stderrDone, ...this.inFlight]);
    this.agentGone("The harness closed the connection");
    return {
      code: status.code,
      signal: status.signal,
      stderr: this.stderr,
      violations: this.violations,
    };
  }

  private send(message: JsonObject): Promise<void> {
    this.monitor.clientSent(message);
    return this.write(JSON.stringify(message), message);
  }

  private async write(line: string, message?: unknown): Promise<void> {
    let parsed = message;
    if (parsed === undefined) {
      try {
        parsed = JSON.parse(line);
        this.monitor.clientSent(parsed);
      } catch {
        parsed = undefined;
      }
    }
    this.messages.push({ from: "client", at: this.now(), line, message: parsed });
    await this.writer.write(encoder.encode(line + "\n"));
  }

  private async readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    while (true) {
      const { done, value } = await this.stdoutReader.read().catch(() => ({
        done: true,
        value: undefined,
      }));
      if (done || value === undefined) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        this.received(line);
      }
    }
    buffer += decoder.decode();
    if (buffer !== "") {
      this.stdoutProblem(`The last stdout line has no newline: ${JSON.stringify(clip(buffer))}`);
      this.received(buffer);
    }
  }

  private async readStderr(): Promise<void> {
    const limit = this.options.stderrLimitBytes ?? 1024 * 1024;
    while (true) {
      const { done, value } = await this.stderrReader.read().catch(() => ({
        done: true,
        value: undefined,
      }));
      if (done || value === undefined) break;
      this.stderrChunks.push(value);
      this.stderrBytes += value.length;
      while (this.stderrBytes > limit && this.stderrChunks.length > 1) {
        const dropped = this.stderrChunks.shift()?.length ?? 0;
        this.stderrBytes -= dropped;
        this.stderrDropped += dropped;
      }
    }
  }

  private received(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.messages.push({ from: "agent", at: this.now(), line, message: undefined });
      this.stdoutProblem(`A stdout line is not JSON: ${JSON.stringify(clip(line))}`);
      this.checkWaiters();
      return;
    }
    this.messages.push({ from: "agent", at: this.now(), line, message });
    if (
      !isObject(message) || message.jsonrpc !== "2.0" || !("method" in message || "id" in message)
    ) {
      this.stdoutProblem(
        `A stdout line is not a JSON-RPC 2.0 message: ${JSON.stringify(clip(line))}`,
      );
      this.checkWaiters();
      return;
    }
    this.monitor.agentSent(message);
    if (typeof message.method === "string") {
      if ("id" in message) this.answer(message, message.method);
      else this.notifications.push(message);
    } else if (typeof message.id === "number" && this.pending.has(message.id)) {
      this.settle(message.id, undefined, message);
    }
    this.checkWaiters();
  }

  private answer(request: JsonObject, method: string): void {
    const id = isRequestId(request.id) ? request.id : null;
    const handler = this.handlers.get(method);
    const task = (async () => {
      let reply: JsonObject;
      try {
        if (handler === undefined) throw new RpcError(-32601, "Method not found", { method });
        reply = { jsonrpc: "2.0", id, result: await handler(request.params, request) ?? {} };
      } catch (error) {
        const rpc = error instanceof RpcError
          ? error
          : new RpcError(-32603, error instanceof Error ? error.message : String(error));
        reply = {
          jsonrpc: "2.0",
          id,
          error: {
            code: rpc.code,
            message: rpc.message,
            ...(rpc.data === undefined ? {} : { data: rpc.data }),
          },
        };
      }
      if (this.exit === undefined) await this.send(reply).catch(() => {});
    })();
    this.inFlight.add(task);
    task.finally(() => this.inFlight.delete(task));
  }

  private settle(id: number, failure?: unknown, message?: JsonObject): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (message === undefined) {
      pending.reject(failure instanceof Error ? failure : new Error(String(failure)));
      return;
    }
    const error = message.error;
    if (isObject(error)) {
      pending.resolve({
        id,
        error: {
          code: typeof error.code === "number" ? error.code : NaN,
          message: typeof error.message === "string" ? error.message : "",
          ...("data" in error ? { data: error.data } : {}),
        },
      });
    } else {
      pending.resolve({ id, result: message.result });
    }
  }

  private agentGone(reason: string): void {
    for (const [id, pending] of this.pending) {
      this.settle(
        id,
        new AssertionError(
          `${reason} before answering request ${id} "${pending.method}"\n${this.diagnostics()}`,
        ),
      );
    }
    for (const waiter of this.waiters) {
      if (!safeCheck(waiter)) waiter.reject(new AssertionError(`${reason}\n${this.diagnostics()}`));
    }
  }

  private checkWaiters(): void {
    for (const waiter of this.waiters) safeCheck(waiter);
  }

  private stdoutProblem(message: string): void {
    this.ownViolations.push({ kind: "stdout", message });
  }

  private now(): number {
    return Math.round((performance.now() - this.startedAt) * 10) / 10;
  }

  /** The last messages and the end of stderr, for failure messages. */
  diagnostics(): string {
    const last = this.messages.slice(-12).map((logged) =>
      `  ${logged.at.toFixed(1).padStart(9)} ms ${logged.from === "client" ? "->" : "<-"} ${
        clip(logged.line, 300)
      }`
    );
    const stderr = this.stderr.split("\n").slice(-30).join("\n");
    return `Last messages:\n${last.join("\n") || "  (none)"}\nStderr (end):\n${
      stderr || "  (empty)"
    }`;
  }
}

function safeCheck(waiter: Waiter): boolean {
  try {
    return waiter.check();
  } catch (error) {
    waiter.reject(error instanceof Error ? error : new Error(String(error)));
    return true;
  }
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The promise's value, or undefined after `ms` (the timer is always cleared). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), ms)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
