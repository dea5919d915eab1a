import { assertEquals, assertThrows } from "../helpers/assert.ts";
import { encodeFrame, FrameDecoder } from "../../src/agent/search/grep_matcher_frames.ts";
import { runGrepMatcher } from "../../src/agent/search/grep_matcher_process.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
}

const PAYLOADS = ["first", "", "x".repeat(300), "last one"];
const STREAM = concat(PAYLOADS.map((text) => encodeFrame(encoder.encode(text))));

Deno.test("frames come out whole however the stream is cut", () => {
  for (const size of [1, 2, 3, 5, 7, 64, STREAM.length]) {
    const frames = new FrameDecoder(1024);
    const out: string[] = [];
    for (let offset = 0; offset < STREAM.length; offset += size) {
      for (const frame of frames.push(STREAM.subarray(offset, offset + size))) {
        out.push(decoder.decode(frame));
      }
    }
    assertEquals(out, PAYLOADS, `cut every ${size} bytes`);
    assertEquals(frames.pending, 0);
  }
});

Deno.test("a frame longer than the limit is refused; a cut frame is pending", () => {
  const frames = new FrameDecoder(100);
  assertThrows(() => frames.push(encodeFrame(new Uint8Array(101))), Error, "over the limit");
  const partial = new FrameDecoder(100);
  assertEquals(partial.push(encodeFrame(new Uint8Array(10)).subarray(0, 7)), []);
  assertEquals(partial.pending, 7);
});

Deno.test("the matcher process answers a bad spec with an error and exit code 1", async () => {
  const replies: Uint8Array[] = [];
  const input = ReadableStream.from([encodeFrame(encoder.encode('{"source":1}'))]);
  const code = await runGrepMatcher(input, (bytes) => replies.push(bytes));
  assertEquals(code, 1);
  const [reply] = new FrameDecoder(1024).push(concat(replies));
  assertEquals(JSON.parse(decoder.decode(reply)), { error: 'Invalid match spec: {"source":1}' });
});
