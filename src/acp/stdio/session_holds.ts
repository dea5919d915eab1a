/**
 * Messages held back until the session they name is open: a `session/load` or `session/resume`
 * in flight opens a session, and a message written after it that names the same session (a
 * prompt, a mode change, a cancel) reaches the agent only once that request is answered. The
 * agent would otherwise take the message before the session exists and refuse it, although the
 * client wrote it in the right order. Messages of other sessions are not held: a slow
 * SessionStart hook of one session's load does not hold up the others.
 */
import { z } from "zod";
import type { AnyMessage, JsonRpcId } from "@agentclientprotocol/sdk";
import { idKey } from "./json_rpc_message.ts";

/** The requests that make a session exist in this agent process. */
const OPENING_METHODS: ReadonlySet<string> = new Set(["session/load", "session/resume"]);

const SessionParams = z.looseObject({ sessionId: z.string() });

export class SessionHolds {
  /** Session id → the id key of the request opening it. */
  readonly #opening = new Map<string, string>();
  /** Session id → the messages that wait for it, in arrival order. */
  readonly #held = new Map<string, AnyMessage[]>();

  /** Holds `message` when it names a session being opened; true when it was held. */
  hold(message: AnyMessage): boolean {
    const sessionId = sessionOf(message);
    if (sessionId === undefined || !this.#opening.has(sessionId)) return false;
    const held = this.#held.get(sessionId) ?? [];
    held.push(message);
    this.#held.set(sessionId, held);
    return true;
  }

  /** `message` reached the agent: a load or resume opens its session until it is answered. */
  delivered(message: AnyMessage): void {
    if (!("method" in message) || !("id" in message)) return;
    if (!OPENING_METHODS.has(message.method)) return;
    const sessionId = sessionOf(message);
    if (sessionId !== undefined) this.#opening.set(sessionId, idKey(message.id));
  }

  /**
   * The agent answered `id`: when that opened a session, the messages held for it, in order,
   * for the caller to deliver (through `hold` again: one of them may open the session anew).
   */
  answered(id: JsonRpcId): AnyMessage[] {
    const key = idKey(id);
    for (const [sessionId, opening] of this.#opening) {
      if (opening !== key) continue;
      this.#opening.delete(sessionId);
      const held = this.#held.get(sessionId) ?? [];
      this.#held.delete(sessionId);
      return held;
    }
    return [];
  }

  /** Every message still held, given up (the connection is ending). */
  takeAll(): AnyMessage[] {
    const all = [...this.#held.values()].flat();
    this.#held.clear();
    this.#opening.clear();
    return all;
  }
}

/** The session a request or notification names in its params, if any. */
export function sessionOf(message: AnyMessage): string | undefined {
  if (!("method" in message)) return undefined;
  const params = SessionParams.safeParse(message.params);
  return params.success ? params.data.sessionId : undefined;
}
