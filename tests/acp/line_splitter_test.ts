import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  KEPT_START_BYTES,
  LineSplitter,
  type SplitLine,
} from "../../src/acp/stdio/line_splitter.ts";

const encode = (text: string) => new TextEncoder().encode(text);

/** Feeds `chunks` and then the end of the stream; returns every line. */
function split(chunks: readonly (string | Uint8Array)[], maxLineBytes = 1024): SplitLine[] {
  const splitter = new LineSplitter(maxLineBytes);
  const lines: SplitLine[] = [];
  for (const chunk of chunks) {
    lines.push(...splitter.push(typeof chunk === "string" ? encode(chunk) : chunk));
  }
  return [...lines, ...splitter.finish()];
}

const texts = (...values: string[]): SplitLine[] => values.map((text) => ({ kind: "line", text }));

Deno.test("lines come out whole wherever the chunks cut them, inside multi-byte characters too", () => {
  const stream = encode('{"a":"é€😀"}\n{"b":2}\r\n\n{"c":"ü"}\n');
  for (let cut = 0; cut <= stream.length; cut++) {
    for (let second = cut; second <= stream.length; second += 3) {
      const chunks = [
        stream.subarray(0, cut),
        stream.subarray(cut, second),
        stream.subarray(second),
      ];
      assertEquals(
        split(chunks),
        texts('{"a":"é€😀"}', '{"b":2}', "", '{"c":"ü"}'),
        `cut at ${cut} and ${second}`,
      );
    }
  }
});

Deno.test("CRLF ends a line even when CR and LF come in different chunks", () => {
  assertEquals(split(["one\r", "\ntwo\r", "", "\n"]), texts("one", "two"));
});

Deno.test("a lone CR inside a line is part of it", () => {
  assertEquals(split(["a\rb\n"]), texts("a\rb"));
});

Deno.test("empty lines are lines, and CR alone is an empty line", () => {
  assertEquals(split(["\n\r\n\n"]), texts("", "", ""));
});

Deno.test("the last line needs no line ending; an empty end adds nothing", () => {
  assertEquals(split(['{"a":1}\n{"b"', ":2}"]), texts('{"a":1}', '{"b":2}'));
  assertEquals(split(["x\n"]), texts("x"));
  assertEquals(split([]), []);
});

Deno.test("a line of exactly the limit passes, its CRLF not counted; one byte more is too long", () => {
  const limit = 16;
  const exact = "x".repeat(limit);
  assertEquals(split([`${exact}\n${exact}\r\n`], limit), texts(exact, exact));
  const [tooLong, next] = split([`${exact}y\nok\n`], limit);
  assertEquals(tooLong?.kind === "too_long" && tooLong.bytes, limit + 1);
  assertEquals(next, { kind: "line", text: "ok" });
  assertEquals(split([`${exact}y`], limit).map((line) => line.kind), ["too_long"]);
});

Deno.test("a line over the limit is dropped as it streams, its start and length kept", () => {
  const limit = 10_000;
  const line = `{"jsonrpc":"2.0","id":7,"method":"x","params":"${"p".repeat(50_000)}"}`;
  const bytes = encode(`${line}\r\nafter\n`);
  const oneByteChunks = Array.from(bytes, (byte) => Uint8Array.of(byte));
  for (const chunks of [[bytes], oneByteChunks]) {
    const [dropped, after] = split(chunks, limit);
    if (dropped?.kind !== "too_long") throw new Error(`Expected too_long, got ${dropped?.kind}`);
    assertEquals(dropped.bytes, line.length);
    assertEquals(new TextDecoder().decode(dropped.start), line.slice(0, KEPT_START_BYTES));
    assertEquals(after, { kind: "line", text: "after" });
  }
});

Deno.test("a line that is not UTF-8 is reported as such, and the next line is read", () => {
  const bad = Uint8Array.of(0x7b, 0xff, 0xfe, 0x7d, 0x0a);
  assertEquals(split([bad, "{}\n"]), [{ kind: "not_utf8", bytes: 4 }, ...texts("{}")]);
});

Deno.test("a real U+FFFD is text like any other", () => {
  assertEquals(split(['{"a":"\uFFFD"}\n']), texts('{"a":"\uFFFD"}'));
});

Deno.test("the limit must be a positive integer", () => {
  for (const limit of [0, -1, 1.5, Number.NaN]) {
    let thrown: unknown;
    try {
      new LineSplitter(limit);
    } catch (error) {
      thrown = error;
    }
    assertEquals(thrown instanceof RangeError, true, `${limit}`);
    assertStringIncludes(String(thrown), "must be a positive integer");
  }
});
