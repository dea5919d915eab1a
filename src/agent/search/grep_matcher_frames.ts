/**
 * The framing between a grep and its matcher process (grep_matcher.ts): each message is a
 * 4-byte little-endian length and then that many bytes, so that file contents pass as they are
 * and many files go in one write.
 */

export const FRAME_HEADER_BYTES = 4;

/** Writes the header of a frame of `length` bytes at `offset`. */
export function writeFrameHeader(into: Uint8Array, offset: number, length: number): void {
  new DataView(into.buffer, into.byteOffset, into.byteLength).setUint32(offset, length, true);
}

/** One frame holding `payload`. */
export function encodeFrame(payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(FRAME_HEADER_BYTES + payload.length);
  writeFrameHeader(frame, 0, payload.length);
  frame.set(payload, FRAME_HEADER_BYTES);
  return frame;
}

/**
 * Frames from a stream cut anywhere. What a push returns are views, valid until the next push:
 * complete frames within one chunk are not copied, and a frame spread over many chunks is
 * gathered in one buffer sized for it once its header is in.
 */
export class FrameDecoder {
  #buffer = new Uint8Array(0);
  #start = 0;
  #end = 0;
  /** The whole size (header included) of the frame being gathered, once its header is in. */
  #wanted = 0;

  /** A frame longer than `maxFrameBytes` throws: the stream is not what it should be. */
  constructor(private readonly maxFrameBytes: number) {}

  push(chunk: Uint8Array): Uint8Array[] {
    const fromChunk = this.#start === this.#end;
    if (!fromChunk) this.#append(chunk);
    const data = fromChunk ? chunk : this.#buffer.subarray(this.#start, this.#end);
    const frames: Uint8Array[] = [];
    let offset = 0;
    this.#wanted = 0;
    while (data.length - offset >= FRAME_HEADER_BYTES) {
      const length = new DataView(data.buffer, data.byteOffset + offset, FRAME_HEADER_BYTES)
        .getUint32(0, true);
      if (length > this.maxFrameBytes) {
        throw new Error(`A frame of ${length} bytes is over the limit of ${this.maxFrameBytes}`);
      }
      const size = FRAME_HEADER_BYTES + length;
      if (data.length - offset < size) {
        this.#wanted = size;
        break;
      }
      frames.push(data.subarray(offset + FRAME_HEADER_BYTES, offset + size));
      offset += size;
    }
    if (fromChunk) {
      this.#start = this.#end = 0;
      if (offset < chunk.length) this.#append(chunk.subarray(offset));
    } else this.#start += offset;
    return frames;
  }

  /** Bytes of a frame not yet complete. */
  get pending(): number {
    return this.#end - this.#start;
  }

  /** Keeps `bytes` after what is kept, moving that to the front (or to a larger buffer) first. */
  #append(bytes: Uint8Array): void {
    const kept = this.#end - this.#start;
    const needed = kept + bytes.length;
    if (needed > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(needed, this.#wanted, this.#buffer.length * 2));
      grown.set(this.#buffer.subarray(this.#start, this.#end));
      this.#buffer = grown;
    } else if (this.#start > 0) {
      this.#buffer.copyWithin(0, this.#start, this.#end);
    }
    this.#buffer.set(bytes, kept);
    this.#start = 0;
    this.#end = needed;
  }
}
