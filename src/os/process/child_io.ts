/**
 * How a bounded run reads a child's output and feeds its stdin: to the end, into at most a cap
 * of bytes (the rest read and counted), and written whole, then closed. Over web streams here,
 * for any child; the posix_spawn spawner does the same on its descriptors without them
 * (fd_capture.ts), since a byte stream costs more to make and end than a short hook takes to run.
 */
/** What a bounded run kept of one of a child's output streams. */
export interface CapturedStream {
  readonly text: string;
  /** Bytes that were read but discarded past the cap. */
  readonly discardedBytes: number;
}

export interface OutputCapture {
  /** Settles when the output ends, fails, or is cancelled. */
  readonly done: Promise<void>;
  /** Whether `done` has settled, for a caller that need not wait then. */
  readonly finished: () => boolean;
  readonly cancel: () => Promise<void>;
  readonly result: () => CapturedStream;
}

export interface StdinFeed {
  /** Settles once everything is written and stdin closed, or the child would take no more. */
  readonly done: Promise<void>;
  readonly finished: () => boolean;
  /**
   * Stops waiting to write and closes stdin: for a pipe someone outside the group holds. Settles
   * once it is closed (a web stream's, once a write in flight lets its abort through).
   */
  readonly abandon: () => Promise<void>;
}

export const READ_CHUNK_BYTES = 64 * 1024;

/** Keeps the first `capBytes` bytes of what is added, and counts the rest. */
export class CappedBytes {
  readonly #kept: Uint8Array[] = [];
  #keptBytes = 0;
  #discardedBytes = 0;

  constructor(private readonly capBytes: number) {}

  add(bytes: Uint8Array): void {
    const take = Math.min(bytes.byteLength, this.capBytes - this.#keptBytes);
    if (take > 0) {
      this.#kept.push(bytes.slice(0, take));
      this.#keptBytes += take;
    }
    this.#discardedBytes += bytes.byteLength - take;
  }

  result(): CapturedStream {
    const bytes = new Uint8Array(this.#keptBytes);
    let offset = 0;
    for (const chunk of this.#kept) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return { text: new TextDecoder().decode(bytes), discardedBytes: this.#discardedBytes };
  }
}

/**
 * Reads a stream to its end into at most `capBytes` bytes. One reused buffer (BYOB), so a hook
 * writing gigabytes costs time, not memory.
 */
export function captureStream(stream: ReadableStream<Uint8Array>, capBytes: number): OutputCapture {
  const reader = stream.getReader({ mode: "byob" });
  const kept = new CappedBytes(capBytes);
  let finished = false;
  const done = (async () => {
    let buffer = new Uint8Array(READ_CHUNK_BYTES);
    try {
      while (true) {
        const { done, value } = await reader.read(buffer);
        if (done || value === undefined) break;
        kept.add(value);
        buffer = new Uint8Array(value.buffer);
      }
    } catch {
      // A pipe error ends the capture; what was read so far is kept.
    } finally {
      finished = true;
    }
  })();
  return {
    done,
    finished: () => finished,
    cancel: async () => {
      if (!finished) await reader.cancel().catch(() => {});
      await done;
      reader.releaseLock();
    },
    result: () => kept.result(),
  };
}

/**
 * Writes stdin while the readers run. A child may exit or close stdin without reading it
 * (BrokenPipe): that is its right, not an error.
 */
export function feedStream(stream: WritableStream<Uint8Array>, bytes: Uint8Array): StdinFeed {
  const writer = stream.getWriter();
  let finished = false;
  const done = (async () => {
    try {
      if (bytes.byteLength > 0) await writer.write(bytes);
      await writer.close();
    } catch {
      await writer.abort().catch(() => {});
    } finally {
      finished = true;
    }
  })();
  return { done, finished: () => finished, abandon: () => writer.abort().catch(() => {}) };
}
