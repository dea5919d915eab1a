/**
 * `TrafficMonitor` watches one ACP connection's messages in order and records what breaks the
 * protocol:
 *
 * - every agent message is valid against the ACP schema, strict by default (`schema`);
 * - ordering: a `session/update` only for a session the agent created (after its `session/new`
 *   answer) or the client named (`session/load`, `session/resume`); a `tool_call_update` only for
 *   a `toolCallId` announced by a `tool_call` in the same session (`ordering`);
 * - responses answer a pending request exactly once (`protocol`);
 * - what the schema lets an agent send only to a client that advertised it, it sends only then
 *   (`capability`): `type: "boolean"` config options (`session.configOptions.boolean`), `notice`
 *   updates (`session.notices`), compaction updates (`session.compaction`).
 *
 * `stdout` and `lifecycle` violations are the harness's own (it owns the process).
 */
import { agentMessageDefs, validateAgentMessage } from "./acp_schema.ts";
import { isObject, type JsonObject } from "./json_object.ts";
import { clip, isRequestId, type RequestId } from "./json_rpc.ts";

export type ViolationKind =
  | "stdout"
  | "schema"
  | "ordering"
  | "protocol"
  | "lifecycle"
  | "capability";

export interface Violation {
  readonly kind: ViolationKind;
  readonly message: string;
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
  /** The client's `session` capabilities, once it sent `initialize`. */
  private clientSession: JsonObject = {};

  constructor(private readonly options: { readonly strictSchema?: boolean } = {}) {}

  /** Records a message the client sent. */
  clientSent(message: unknown): void {
    if (!isObject(message)) return;
    const { id, method } = message;
    if (typeof method === "string") {
      if (isRequestId(id) && "id" in message) this.clientPending.set(id, method);
      const params = isObject(message.params) ? message.params : {};
      if (method === "initialize") {
        const capabilities = isObject(params.clientCapabilities) ? params.clientCapabilities : {};
        this.clientSession = isObject(capabilities.session) ? capabilities.session : {};
      }
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
    if (isObject(message.result)) this.checkConfigOptions(message.result.configOptions, answered);
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
    if (kind === "config_option_update") {
      this.checkConfigOptions(update.configOptions, "config_option_update");
    }
    if (kind === "notice" && !this.advertised("notices")) {
      this.report(
        "capability",
        `a notice update in session "${sessionId}", but the client did not advertise ` +
          "session.notices",
      );
    }
    if (
      (kind === "compaction_update" || kind === "compaction_summary_chunk") &&
      !this.advertised("compaction")
    ) {
      this.report(
        "capability",
        `a ${kind} in session "${sessionId}", but the client did not advertise session.compaction`,
      );
    }
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

  /** Whether the client's `session` capabilities hold `name` (omitted and null: not). */
  private advertised(name: "notices" | "compaction"): boolean {
    return this.clientSession[name] != null;
  }

  /** Boolean config options go only to a client that advertised `configOptions.boolean`. */
  private checkConfigOptions(options: unknown, where: string): void {
    if (!Array.isArray(options)) return;
    const configOptions = this.clientSession.configOptions;
    if (isObject(configOptions) && configOptions.boolean != null) return;
    for (const option of options) {
      if (!isObject(option) || option.type !== "boolean") continue;
      this.report(
        "capability",
        `the boolean config option ${JSON.stringify(option.id)} in ${where}, but the client ` +
          "did not advertise session.configOptions.boolean",
      );
    }
  }

  private report(kind: ViolationKind, message: string): void {
    this.violations.push({ kind, message });
  }
}
