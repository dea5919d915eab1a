/**
 * A promise's value, or undefined as soon as the signal aborts: a cancelled turn stops waiting
 * for a model that is still loading or a permission answer that may never come. A rejection of
 * the promise still rejects.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
