/**
 * What is open on one connection: the client's requests the agent has not answered yet (the
 * prompts among them by session), the agent's requests the client has not answered, and an
 * `initialize` in flight, which holds back everything after it.
 */
import type { AnyMessage, JsonRpcId } from "@agentclientprotocol/sdk";
import { idKey } from "./json_rpc_message.ts";
import { sessionOf } from "./session_holds.ts";

interface OpenRequest {
  readonly id: JsonRpcId;
  readonly method: string;
  /** The session of a `session/prompt`. */
  readonly sessionId: string | undefined;
  /** Requests sent again under an id still open are each answered. */
  count: number;
}

export class RequestLedger {
  readonly #open = new Map<string, OpenRequest>();
  readonly #awaitingClient = new Map<string, JsonRpcId>();
  /** Requests answered by the stream itself: a late answer from the agent is not sent too. */
  readonly #answeredHere = new Set<string>();
  #initializing: { readonly key: string; readonly done: PromiseWithResolvers<void> } | undefined;
  #allAnswered: PromiseWithResolvers<void> | undefined;
  #stopped = false;

  /** A message from the client is on its way to the agent. */
  delivered(message: AnyMessage): void {
    if (!("method" in message)) {
      this.#awaitingClient.delete(idKey(message.id));
      return;
    }
    if (!("id" in message)) return;
    const key = idKey(message.id);
    const open = this.#open.get(key);
    if (open) {
      open.count++;
    } else {
      this.#open.set(key, {
        id: message.id,
        method: message.method,
        sessionId: message.method === "session/prompt" ? sessionOf(message) : undefined,
        count: 1,
      });
    }
    if (message.method === "initialize" && !this.#stopped) {
      this.#initializing = { key, done: Promise.withResolvers() };
    }
  }

  /** The agent's answer to `id` is written. */
  answered(id: JsonRpcId): void {
    const key = idKey(id);
    const open = this.#open.get(key);
    if (open && --open.count === 0) this.#open.delete(key);
    if (this.#initializing?.key === key) {
      this.#initializing.done.resolve();
      this.#initializing = undefined;
    }
    if (this.#open.size === 0) this.#allAnswered?.resolve();
  }

  /** Resolves when no `initialize` awaits its answer. */
  initialized(): Promise<void> {
    return this.#initializing?.done.promise ?? Promise.resolve();
  }

  /** Resolves when every request delivered so far is answered. */
  allAnswered(): Promise<void> {
    if (this.#open.size === 0 || this.#stopped) return Promise.resolve();
    this.#allAnswered ??= Promise.withResolvers();
    return this.#allAnswered.promise;
  }

  /** The agent sent the client a request. */
  askedClient(id: JsonRpcId): void {
    this.#awaitingClient.set(idKey(id), id);
  }

  awaitsClient(id: JsonRpcId): boolean {
    return this.#awaitingClient.has(idKey(id));
  }

  /** The ids of the agent's requests that the client has not answered. */
  awaitingClient(): JsonRpcId[] {
    return [...this.#awaitingClient.values()];
  }

  /** The sessions with a prompt not answered yet. */
  promptingSessions(): string[] {
    const sessions = new Set<string>();
    for (const open of this.#open.values()) {
      if (open.sessionId !== undefined) sessions.add(open.sessionId);
    }
    return [...sessions];
  }

  /** The requests still open, from now on answered by the caller (once each). */
  takeUnanswered(): { readonly id: JsonRpcId; readonly method: string }[] {
    const open = [...this.#open.entries()];
    this.#open.clear();
    for (const [key] of open) this.#answeredHere.add(key);
    return open.map(([, { id, method }]) => ({ id, method }));
  }

  answeredHere(id: JsonRpcId): boolean {
    return this.#answeredHere.has(idKey(id));
  }

  /** The connection is closing: nothing waits any more. */
  stop(): void {
    this.#stopped = true;
    this.#initializing?.done.resolve();
    this.#initializing = undefined;
    this.#allAnswered?.resolve();
  }
}
