/**
 * Work a handler leaves for after its response: a client must know a session's id before an
 * update names it, so a new session's first updates wait for the next turn of the event loop,
 * when the response has been written. The waits are the agent's: `cancel` drops those not yet
 * run when it shuts down, so none outlives the agent (a timer left behind would still send on a
 * connection that is gone).
 */
export class AfterResponse {
  readonly #pending = new Set<ReturnType<typeof setTimeout>>();

  /** Runs `work` on the next turn of the event loop, unless `cancel` comes first. */
  run(work: () => void): void {
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      work();
    }, 0);
    this.#pending.add(timer);
  }

  /** Drops the work not yet run. */
  cancel(): void {
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
  }
}
