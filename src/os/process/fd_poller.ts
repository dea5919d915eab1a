/**
 * One poll(2) loop for the pipes of every process the posix_spawn spawner started. The wait runs
 * on a worker thread (a nonblocking FFI call); readiness is handled back on the event loop's
 * thread, where the reads and writes themselves are quick calls that cannot block. A self-pipe
 * wakes the wait when the set of descriptors changes. A wait in flight keeps the event loop alive,
 * as a running Deno.ChildProcess does; with nothing to wait for (no child running, no read or
 * write waiting) there is none, so an agent with no children keeps no thread busy and its event
 * loop can end, and a pipe that nobody reads holds nothing up.
 */
import type { LibcSymbols } from "./libc.ts";

export const POLLIN = 0x1;
export const POLLOUT = 0x4;

/** A descriptor and what its owner waits for; `events` 0 pauses it (no read is waiting). */
export interface FdWatch {
  readonly fd: number;
  events: number;
  /** Called on the event loop's thread with the poll revents; never while it is being polled. */
  onReady(revents: number): void;
}

const POLLFD_BYTES = 8;
const MAX_QUICK_LOOKS = 4;

export class FdPoller {
  readonly #libc: LibcSymbols;
  readonly #watches = new Set<FdWatch>();
  /** Descriptors to close once no wait includes them (closing one mid-poll is a race). */
  #toClose: number[] = [];
  #closedWaiters: (() => void)[] = [];
  /** The self-pipe: its read end is in every wait, a byte on its write end ends the wait. */
  readonly #wake: { readonly read: number; readonly write: number };
  #running = false;
  #waiting = false;
  #wakeSent = false;

  constructor(
    libc: LibcSymbols,
    wakePipe: readonly [read: number, write: number],
    /** How a descriptor is closed: the spawner's, which keeps count of what it has open. */
    readonly close: (fd: number) => void = (fd) => libc.close(fd),
  ) {
    this.#libc = libc;
    this.#wake = { read: wakePipe[0], write: wakePipe[1] };
  }

  watch(watch: FdWatch): void {
    this.#watches.add(watch);
    this.changed();
  }

  /** Stops watching; the descriptor stays open. */
  forget(watch: FdWatch): void {
    this.#watches.delete(watch);
    // A set with nothing to wait for ends the loop, which a wait in flight would hold up.
    if (!this.#anyActive()) this.changed();
  }

  /** Stops watching and closes the descriptor once no wait holds it; settles then. */
  closeWatched(watch: FdWatch): Promise<void> {
    this.#watches.delete(watch);
    if (!this.#waiting) {
      this.close(watch.fd);
      return Promise.resolve();
    }
    this.#toClose.push(watch.fd);
    const closed = new Promise<void>((resolve) => this.#closedWaiters.push(resolve));
    this.changed();
    return closed;
  }

  /** Call after changing a watch's events: the wait in flight is redone with the new set. */
  changed(): void {
    if (!this.#running) {
      // Started after the current task, so the first wait has every descriptor a spawn
      // registers (pipes and pidfd) instead of being woken for each one.
      if (this.#anyActive()) {
        this.#running = true;
        queueMicrotask(() => void this.#loop());
      }
      return;
    }
    if (this.#waiting && !this.#wakeSent) {
      this.#wakeSent = true;
      this.#libc.write(this.#wake.write, new Uint8Array(1), 1n);
    }
  }

  async #loop(): Promise<void> {
    let quickLooks = 0;
    try {
      while (this.#anyActive()) {
        const polled = [...this.#watches].filter((watch) => watch.events !== 0);
        const buffer = new ArrayBuffer((polled.length + 1) * POLLFD_BYTES);
        const ints = new Int32Array(buffer);
        const shorts = new Int16Array(buffer);
        ints[0] = this.#wake.read;
        shorts[2] = POLLIN;
        polled.forEach((watch, index) => {
          ints[(index + 1) * 2] = watch.fd;
          shorts[(index + 1) * 4 + 2] = watch.events;
        });
        const count = BigInt(polled.length + 1);
        // What one wake-up brings often makes the rest ready too (a child's pipes close a
        // moment before its pidfd says it exited): a look on this thread first spares a round
        // trip through the worker. A few in a row at most, so the event loop still turns.
        const readyNow = quickLooks < MAX_QUICK_LOOKS && this.#libc.poll(ints, count, 0) > 0;
        if (readyNow) quickLooks++;
        else {
          quickLooks = 0;
          this.#waiting = true;
          // -1 with EINTR (a signal reached the worker thread) just means "look again".
          await this.#libc.poll_wait(ints, count, -1);
          this.#waiting = false;
          this.#finishClosing();
        }
        if (shorts[3] !== 0) this.#drainWake();
        polled.forEach((watch, index) => {
          const revents = shorts[(index + 1) * 4 + 3] ?? 0;
          if (revents !== 0 && this.#watches.has(watch)) watch.onReady(revents);
        });
        // A reader that just got its bytes asks for more (pull) before the next set is made.
        await Promise.resolve();
      }
    } finally {
      this.#running = false;
      this.#finishClosing();
    }
  }

  /** Whether any watch waits for something: paused ones alone keep no wait in flight. */
  #anyActive(): boolean {
    for (const watch of this.#watches) if (watch.events !== 0) return true;
    return false;
  }

  #drainWake(): void {
    // At most one byte is ever pending (#wakeSent), so one read cannot block.
    this.#libc.read(this.#wake.read, new Uint8Array(16), 16n);
    this.#wakeSent = false;
  }

  #finishClosing(): void {
    for (const fd of this.#toClose) this.close(fd);
    this.#toClose = [];
    const waiters = this.#closedWaiters;
    this.#closedWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
