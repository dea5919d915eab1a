/**
 * Appends records to a session's transcript as the session goes. Writes are queued so that lines
 * keep their order, and lines that pile up while a write is in flight go out in one append: a
 * token-by-token stream costs one file write per batch, not one per chunk. The file stays open
 * for the session's life (an append is one write, not an open, a write and a close); `close`
 * writes what is pending and releases it.
 */
import { dirname } from "node:path";
import { errorMessage } from "../error.ts";
import type { TranscriptRecord } from "./transcript_record.ts";

export class TranscriptWriter {
  #pending: string[] = [];
  #flushing: Promise<void> | undefined;
  #failure: string | undefined;
  #closed = false;

  private constructor(
    readonly path: string,
    private readonly file: Deno.FsFile,
    private readonly log: (line: string) => void,
  ) {}

  /** Creates the file's directory; the file exists (possibly empty) when this resolves. */
  static async open(path: string, log: (line: string) => void): Promise<TranscriptWriter> {
    await Deno.mkdir(dirname(path), { recursive: true });
    const file = await Deno.open(path, { append: true, create: true });
    return new TranscriptWriter(path, file, log);
  }

  /** Queues a record; after `close`, records are dropped (the transcript is complete). */
  append(record: TranscriptRecord): void {
    if (this.#closed) return;
    this.#pending.push(JSON.stringify(record) + "\n");
    this.#flushing ??= this.#drain();
  }

  /** Resolves when every appended record is on disk. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  /** Writes what is pending, then releases the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.flush();
    this.file.close();
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = new TextEncoder().encode(this.#pending.join(""));
      this.#pending = [];
      try {
        for (let written = 0; written < batch.length;) {
          written += await this.file.write(batch.subarray(written));
        }
      } catch (error) {
        // Reported once: the session goes on, but the user must know its history is incomplete.
        if (this.#failure === undefined) {
          this.#failure = errorMessage(error);
          this.log(`Cannot write the transcript "${this.path}": ${this.#failure}`);
        }
      }
    }
    this.#flushing = undefined;
  }
}
