/**
 * Splits a byte stream into lines ended by LF or CRLF, each at most `maxLineBytes` long without
 * its line ending. Every byte is looked at once. A line is held until it ends, but never past the
 * limit: a longer one is dropped as it streams, and only its start (where its id usually is) and
 * its length are kept.
 */

export type SplitLine =
  | { readonly kind: "line"; readonly text: string }
  | { readonly kind: "too_long"; readonly start: Uint8Array; readonly bytes: number }
  | { readonly kind: "not_utf8"; readonly bytes: number };

/** How much of a line that is too long is kept for reading its id. */
export const KEPT_START_BYTES = 4096;

const LF = 0x0a;
const CR = 0x0d;
/** A buffer grown past this for one long line is freed when the line ends. */
const KEPT_BUFFER_BYTES = 1024 * 1024;

export class LineSplitter {
  readonly #maxLineBytes: number;
  readonly #decoder = new TextDecoder();
  // A fatal decoder holds about three times the line while decoding: used only to tell a real
  // U+FFFD from a replaced invalid byte.
  readonly #strictDecoder = new TextDecoder("utf-8", { fatal: true });
  #buffer = new Uint8Array(0);
  #length = 0;
  /** Set once the current line has outgrown the limit: what is left of it. */
  #dropped: { readonly start: Uint8Array; bytes: number } | undefined;
  #lastByte = 0;

  constructor(maxLineBytes: number) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError(
        `The maximum line length must be a positive integer, got ${maxLineBytes}`,
      );
    }
    this.#maxLineBytes = maxLineBytes;
  }

  /** The lines that `chunk` ends, in order. */
  push(chunk: Uint8Array): SplitLine[] {
    const lines: SplitLine[] = [];
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(LF, from);
      this.#take(chunk.subarray(from, newline === -1 ? chunk.length : newline));
      if (newline === -1) break;
      lines.push(this.#endLine());
      from = newline + 1;
    }
    return lines;
  }

  /** The last line, when the stream ended without a line ending after it. */
  finish(): SplitLine[] {
    return this.#length > 0 || this.#dropped !== undefined ? [this.#endLine()] : [];
  }

  #take(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#lastByte = bytes[bytes.length - 1] ?? 0;
    if (this.#dropped !== undefined) {
      this.#dropped.bytes += bytes.length;
      return;
    }
    const length = this.#length + bytes.length;
    // One byte over is allowed for now: it may be the CR of a CRLF, which does not count.
    if (length > this.#maxLineBytes + 1) {
      const start = new Uint8Array(Math.min(KEPT_START_BYTES, length));
      start.set(this.#buffer.subarray(0, Math.min(this.#length, start.length)));
      if (this.#length < start.length) {
        start.set(bytes.subarray(0, start.length - this.#length), this.#length);
      }
      this.#dropped = { start, bytes: length };
      this.#reset();
      return;
    }
    if (length > this.#buffer.length) {
      const capacity = Math.min(
        this.#maxLineBytes + 1,
        Math.max(length, this.#buffer.length * 2, 1024),
      );
      const grown = new Uint8Array(capacity);
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
    this.#buffer.set(bytes, this.#length);
    this.#length = length;
  }

  #endLine(): SplitLine {
    const endsWithCr = this.#lastByte === CR;
    this.#lastByte = 0;
    const dropped = this.#dropped;
    if (dropped !== undefined) {
      this.#dropped = undefined;
      return {
        kind: "too_long",
        start: dropped.start,
        bytes: dropped.bytes - (endsWithCr ? 1 : 0),
      };
    }
    const length = this.#length - (endsWithCr && this.#length > 0 ? 1 : 0);
    const line = this.#buffer.subarray(0, length);
    let result: SplitLine;
    if (length > this.#maxLineBytes) {
      result = { kind: "too_long", start: line.slice(0, KEPT_START_BYTES), bytes: length };
    } else {
      const text = this.#decoder.decode(line);
      result = text.includes("\uFFFD") && !this.#isUtf8(line)
        ? { kind: "not_utf8", bytes: length }
        : { kind: "line", text };
    }
    this.#reset();
    return result;
  }

  #isUtf8(bytes: Uint8Array): boolean {
    try {
      this.#strictDecoder.decode(bytes);
      return true;
    } catch {
      return false;
    }
  }

  #reset(): void {
    this.#length = 0;
    if (this.#buffer.length > KEPT_BUFFER_BYTES) this.#buffer = new Uint8Array(0);
  }
}
