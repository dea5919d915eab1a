/**
 * Lets the event loop run (a cancel, a message from the client) during a long synchronous job,
 * at most every few milliseconds of it: a walk on descriptors (descriptor_directory.ts) makes
 * only synchronous calls, and a signal is only ever aborted from the loop. A message to itself is
 * the cheapest turn of the loop (tens of microseconds; a timer's is a millisecond or more). The
 * channel, opened on the first pause, is a resource: close it when the job ends.
 */
export class EventLoopPause {
  /** Calls between looks at the clock, which is itself a call into the runtime. */
  static readonly CALLS_PER_LOOK = 8;
  #calls = 0;
  #last = performance.now();
  #channel: MessageChannel | undefined;
  #resume: (() => void) | undefined;

  constructor(private readonly everyMs = 10) {}

  /** Pauses when `everyMs` have passed since the last pause (or the start). */
  async now(): Promise<void> {
    if (++this.#calls % EventLoopPause.CALLS_PER_LOOK !== 0) return;
    if (performance.now() - this.#last < this.everyMs) return;
    if (this.#channel === undefined) {
      this.#channel = new MessageChannel();
      this.#channel.port1.onmessage = () => this.#resume?.();
    }
    const { port2 } = this.#channel;
    await new Promise<void>((resolve) => {
      this.#resume = resolve;
      port2.postMessage(undefined);
    });
    this.#last = performance.now();
  }

  close(): void {
    this.#channel?.port1.close();
    this.#channel?.port2.close();
    this.#channel = undefined;
  }
}
