/**
 * Appends records to a session's transcript as the session goes. Writes are queued so that lines
 * keep their order, and lines that pile up while a write is in flight go out in one append: a
 * token-by-token stream costs one file write per batch, not one per chunk.
 */
import { dirname } from "node:path";
import { errorMessage } from "../error.ts";
import type { TranscriptRecord } from "./transcript_record.ts";

export class TranscriptWriter {
  #pending: string[] = [];
  #flushing: Promise<void> | undefined;
  #failure: string | undefined;

  private constructor(readonly path: string, private readonly log: (line: string) => void) {}

  /** Creates the file's directory; the file exists (possibly empty) when this resolves. */
  static async open(path: string, log: (line: string) => void): Promise<TranscriptWriter> {
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, "", { append: true });
    return new TranscriptWriter(path, log);
  }

  append(record: TranscriptRecord): void {
    this.#pending.push(JSON.stringify(record) + "\n");
    this.#flushing ??= this.#drain();
  }

  /** Resolves when every appended record is on disk. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.join("");
      this.#pending = [];
      try {
        await Deno.writeTextFile(this.path, batch, { append: true });
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
