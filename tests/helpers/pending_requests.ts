/**
 * The client's requests that await the agent's answer, by id: each settles once, with the answer,
 * a failure, or its timeout's error.
 */
import type { JsonObject } from "./json_object.ts";
import { type AcpResponse, responseOf } from "./json_rpc.ts";

interface Pending {
  readonly method: string;
  readonly resolve: (response: AcpResponse) => void;
  readonly reject: (error: Error) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

export class PendingRequests {
  private readonly pending = new Map<number, Pending>();

  /** Resolves with the answer to request `id`; rejects with `timedOut()` after `timeoutMs`. */
  add(id: number, method: string, timeoutMs: number, timedOut: () => Error): Promise<AcpResponse> {
    return new Promise<AcpResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(timedOut());
      }, timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
    });
  }

  has(id: number): boolean {
    return this.pending.has(id);
  }

  /** Settles request `id` with the response `message`, or else fails it with `failure`. */
  settle(id: number, failure?: unknown, message?: JsonObject): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (message === undefined) {
      pending.reject(failure instanceof Error ? failure : new Error(String(failure)));
    } else {
      pending.resolve(responseOf(id, message));
    }
  }

  /** Fails every pending request with the error made for it. */
  failAll(error: (id: number, method: string) => Error): void {
    for (const [id, pending] of this.pending) this.settle(id, error(id, pending.method));
  }
}
