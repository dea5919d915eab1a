/**
 * Deno's nonblocking FFI calls do not keep the event loop alive: a program whose only pending work
 * is a poll or waitpid on a worker thread would end with it unanswered. While any such call is
 * out, one timer that never fires (ref'd, as every timer is) holds the loop open.
 */

let holds = 0;
let timer: ReturnType<typeof setInterval> | undefined;
const NEVER_MS = 2 ** 30;

/** Holds the event loop open until the returned release is called (once; again is harmless). */
export function holdEventLoop(): () => void {
  holds++;
  timer ??= setInterval(() => {}, NEVER_MS);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds--;
    if (holds === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}
