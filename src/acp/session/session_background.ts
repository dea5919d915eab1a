/**
 * What a session runs beside its turns (Notification hooks), and its wait for the next prompt
 * (the `idle_prompt` notification): both end with the session, which waits a bounded time for
 * the work to wind down so that none outlives it.
 */

/** How long closing waits for a cancelled turn: its tools' kill grace, with room to spare. */
const CLOSE_WAIT_MS = 3_000;

export class SessionBackground {
  /** Aborted when the session closes: hooks that run beside a turn end with it. */
  readonly controller = new AbortController();
  readonly #work = new Set<Promise<unknown>>();
  /** The idle notification's timer, while the session waits for a prompt (`whenIdleFor`). */
  #idleTimer: ReturnType<typeof setTimeout> | undefined;

  /** Work that runs beside the turns: `settled` waits for it to end. */
  run(work: Promise<unknown>): void {
    const tracked = work.catch(() => {}).finally(() => this.#work.delete(tracked));
    this.#work.add(tracked);
  }

  /** Runs `work` after `afterMs`, unless the wait is called off first (or already stopped). */
  whenIdleFor(afterMs: number, work: () => void): void {
    this.clearIdle();
    if (this.controller.signal.aborted) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      work();
    }, afterMs);
  }

  clearIdle(): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  /** Calls off the idle wait and aborts the work beside the turns. */
  stop(): void {
    this.clearIdle();
    this.controller.abort();
  }

  /** Waits (a bounded time) for the work beside the turns to end. */
  settled(): Promise<void> {
    return boundedWait(Promise.allSettled(this.#work));
  }
}

/** Waits for `work`, but at most CLOSE_WAIT_MS. */
export async function boundedWait(work: Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    work,
    new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
  ]);
  clearTimeout(timer);
}
