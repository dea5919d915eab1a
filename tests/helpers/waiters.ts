/**
 * Conditions a test waits for on incoming traffic: each predicate is checked when it is added and
 * again on every `checkAll()`, until it returns a truthy value, its time runs out, or `failAll()`
 * ends the wait (the source has gone).
 */

interface Waiter {
  readonly check: () => boolean;
  readonly reject: (error: Error) => void;
}

export interface WaitOptions {
  readonly timeoutMs: number;
  /** The error when the time runs out. */
  readonly timedOut: () => Error;
  /** Given when the source has already gone: the error when the first check fails. */
  readonly ended?: () => Error;
}

export class Waiters {
  private readonly waiting = new Set<Waiter>();

  /** Resolves with the predicate's first truthy value. */
  wait<T>(predicate: () => T | undefined | null | false, options: WaitOptions): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(waiter);
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
      const timer = setTimeout(() => waiter.reject(options.timedOut()), options.timeoutMs);
      this.waiting.add(waiter);
      if (safeCheck(waiter)) return;
      if (options.ended !== undefined) waiter.reject(options.ended());
    });
  }

  /** Checks every predicate (after a new message). */
  checkAll(): void {
    for (const waiter of this.waiting) safeCheck(waiter);
  }

  /** Checks every predicate a last time and fails the waits that are still unmet. */
  failAll(error: () => Error): void {
    for (const waiter of this.waiting) {
      if (!safeCheck(waiter)) waiter.reject(error());
    }
  }
}

/** Checks one waiter; a predicate that throws rejects its wait. True when the wait has ended. */
function safeCheck(waiter: Waiter): boolean {
  try {
    return waiter.check();
  } catch (error) {
    waiter.reject(error instanceof Error ? error : new Error(String(error)));
    return true;
  }
}
