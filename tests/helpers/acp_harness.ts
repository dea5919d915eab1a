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
 * The schema, ordering and protocol checks are `TrafficMonitor`'s (`acp_traffic.ts`); the process
 * is an `AgentProcess` (`agent_process.ts`).
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
import { AgentProcess } from "./agent_process.ts";
import { agentTextOf, sessionUpdatesOf, toolCallUpdatesOf } from "./acp_session_updates.ts";
import { TrafficMonitor, type Violation } from "./acp_traffic.ts";
import { AssertionError } from "./assert.ts";
import { isObject, type JsonObject } from "./json_object.ts";
import { type AcpResponse, clip, replyTo } from "./json_rpc.ts";
import { PendingRequests } from "./pending_requests.ts";
import { LAUNCHER } from "./run_cli.ts";
import { Waiters } from "./waiters.ts";
import { within } from "./within.ts";

// Names that live elsewhere now, importable from here as before.
export { agentTextOf, isObject, sessionUpdatesOf, toolCallUpdatesOf, TrafficMonitor };
export type { JsonObject, Violation };
export type { ViolationKind } from "./acp_traffic.ts";
export { type AcpResponse, type RequestId, RpcError, type RpcErrorObject } from "./json_rpc.ts";

export interface LoggedMessage {
  readonly from: "client" | "agent";
  /** Milliseconds since the harness started. */
  readonly at: number;
  /** The line as written or read (without its newline). */
  readonly line: string;
  /** The parsed message; undefined when the line is not JSON. */
  readonly message: unknown;
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

export class AcpHarness {
  readonly messages: LoggedMessage[] = [];
  /** Every notification the agent sent, in order. */
  readonly notifications: JsonObject[] = [];
  readonly monitor: TrafficMonitor;
  /** Violations the harness itself finds (stdout, lifecycle); the monitor has the rest. */
  private readonly ownViolations: Violation[] = [];
  private readonly startedAt = performance.now();
  private readonly process: AgentProcess;
  private readonly pending = new PendingRequests();
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly waiters = new Waiters();
  private nextId = 1;
  private exit: Deno.CommandStatus | undefined;
  private readonly status: Promise<Deno.CommandStatus>;
  private closing: Promise<CloseResult> | undefined;

  private constructor(private readonly options: AcpHarnessOptions) {
    this.monitor = new TrafficMonitor({ strictSchema: options.strictSchema });
    const [program, ...args] = options.command ?? [LAUNCHER, "acp", ...(options.args ?? [])];
    if (program === undefined) throw new Error("AcpHarness: the command is empty");
    this.process = new AgentProcess(program, args, options, (line, terminated) => {
      if (!terminated) {
        this.stdoutProblem(`The last stdout line has no newline: ${JSON.stringify(clip(line))}`);
      }
      this.received(line);
    });
    this.status = this.process.status.then((status) => {
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
    if (this.exit !== undefined) {
      return Promise.reject(
        new AssertionError(`The agent had exited: cannot send "${method}"\n${this.diagnostics()}`),
      );
    }
    const answer = this.pending.add(
      id,
      method,
      timeoutMs,
      () =>
        new AssertionError(
          `No answer to request ${id} "${method}" within ${timeoutMs} ms\n${this.diagnostics()}`,
        ),
    );
    this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })
      .catch((error) => this.pending.settle(id, error));
    return answer;
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
    return this.waiters.wait(predicate, {
      timeoutMs,
      timedOut: () =>
        new AssertionError(
          `Timed out after ${timeoutMs} ms waiting for ${what}\n${this.diagnostics()}`,
        ),
      ended: this.exit === undefined
        ? undefined
        : () => new AssertionError(`The agent had exited: no ${what}\n${this.diagnostics()}`),
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
    return this.process.stderr;
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
    await within(this.process.closeStdin(), timeoutMs);
    let status = await within(this.status, timeoutMs);
    if (status === undefined) {
      this.ownViolations.push({
        kind: "lifecycle",
        message: `The agent did not exit within ${timeoutMs} ms of its stdin closing`,
      });
    }
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (status !== undefined) break;
      this.process.kill(signal);
      status = await within(this.status, 2_000);
    }
    status ??= await this.status;
    await this.process.stopReading();
    await Promise.all(this.inFlight);
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
    await this.process.writeLine(line);
  }

  private received(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.messages.push({ from: "agent", at: this.now(), line, message: undefined });
      this.stdoutProblem(`A stdout line is not JSON: ${JSON.stringify(clip(line))}`);
      this.waiters.checkAll();
      return;
    }
    this.messages.push({ from: "agent", at: this.now(), line, message });
    if (
      !isObject(message) || message.jsonrpc !== "2.0" || !("method" in message || "id" in message)
    ) {
      this.stdoutProblem(
        `A stdout line is not a JSON-RPC 2.0 message: ${JSON.stringify(clip(line))}`,
      );
      this.waiters.checkAll();
      return;
    }
    this.monitor.agentSent(message);
    if (typeof message.method === "string") {
      if ("id" in message) this.answer(message, message.method);
      else this.notifications.push(message);
    } else if (typeof message.id === "number" && this.pending.has(message.id)) {
      this.pending.settle(message.id, undefined, message);
    }
    this.waiters.checkAll();
  }

  private answer(request: JsonObject, method: string): void {
    const task = (async () => {
      const reply = await replyTo(request, method, this.handlers.get(method));
      if (this.exit === undefined) await this.send(reply).catch(() => {});
    })();
    this.inFlight.add(task);
    task.finally(() => this.inFlight.delete(task));
  }

  private agentGone(reason: string): void {
    this.pending.failAll((id, method) =>
      new AssertionError(
        `${reason} before answering request ${id} "${method}"\n${this.diagnostics()}`,
      )
    );
    this.waiters.failAll(() => new AssertionError(`${reason}\n${this.diagnostics()}`));
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
