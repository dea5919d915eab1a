import { assertEquals } from "../../helpers/assert.ts";
import {
  diffLines,
  diffValues,
  markLine,
  MAX_DIFF_LINES,
  plainDiff,
  showValue,
} from "../../../src/testing/reporters/text_diff.ts";

const marks = (lines: ReturnType<typeof diffLines>) =>
  lines.map((l) => `${l.op === "same" ? " " : l.op === "expected" ? "-" : "+"}${l.text}`);

Deno.test("diffLines keeps common lines and aligns the changed ones", () => {
  assertEquals(marks(diffLines(["a", "b", "c", "d"], ["a", "c", "x", "d"])), [
    " a",
    "-b",
    " c",
    "+x",
    " d",
  ]);
  assertEquals(marks(diffLines([], ["new"])), ["+new"]);
  assertEquals(marks(diffLines(["same"], ["same"])), [" same"]);
});

Deno.test("diffValues: multi-line texts by line, one-line texts quoted, JSON indented", () => {
  assertEquals(marks(diffValues("one\ntwo\n", "one\n2\n")), [" one", "-two", "+2", " "]);
  assertEquals(marks(diffValues("a b", "a  b")), ['-"a b"', '+"a  b"']);
  assertEquals(marks(diffValues({ a: 1, b: [true] }, { a: 2, b: [true] })), [
    " {",
    '-  "a": 1,',
    '+  "a": 2,',
    '   "b": [',
    "     true",
    "   ]",
    " }",
  ]);
  assertEquals(marks(diffValues("x", undefined)), ['-"x"', "+undefined"]);
  assertEquals(marks(diffValues("x", null)), ['-"x"', "+null"]);
});

Deno.test("diffValues compares objects of texts (file contents) key by key, line by line", () => {
  const expected = { "a.md": "# A\none\n", "b.txt": null, "same.txt": "x\ny" };
  const actual = { "a.md": "# A\ntwo\n", "b.txt": "made", "same.txt": "x\ny", "c.txt": "new" };
  assertEquals(marks(diffValues(expected, actual)), [
    ' "a.md":',
    "   # A",
    "-  one",
    "+  two",
    "   ",
    ' "b.txt":',
    "-  null",
    '+  "made"',
    ' "c.txt":',
    "-  undefined",
    '+  "new"',
  ]);
});

Deno.test("diffValues shows a regex expectation above the text it did not match", () => {
  assertEquals(marks(diffValues({ matches: "^deny" }, "allow\nnow")), [
    "-/^deny/",
    "+allow",
    "+now",
  ]);
  assertEquals(showValue({ matches: "a|b" }), ["/a|b/"]);
  assertEquals(showValue({ matches: "a", other: 1 }), [
    "{",
    '  "matches": "a",',
    '  "other": 1',
    "}",
  ]);
});

Deno.test("plainDiff: one-line values as a pair, longer ones as a diff with a legend", () => {
  assertEquals(plainDiff("a", "b"), ['expected: "a"', 'actual:   "b"']);
  assertEquals(plainDiff({ matches: "^a" }, null), ["expected: /^a/", "actual:   null"]);
  assertEquals(plainDiff("a", "a\nb"), ["- expected", "+ actual", "", '- "a"', "+ a", "+ b"]);
  const long = Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n");
  const cut = plainDiff(long, long + "\nmore");
  assertEquals(cut.length, 3 + MAX_DIFF_LINES + 1);
  assertEquals(cut.at(-1), `… ${201 - MAX_DIFF_LINES} more lines`);
});

Deno.test("diffLines shows both sides whole when they are too large to align", () => {
  const a = Array.from({ length: 1500 }, (_, i) => `a${i}`);
  const b = Array.from({ length: 1500 }, (_, i) => `b${i}`);
  const lines = diffLines(a, b);
  assertEquals(lines.length, 3000);
  assertEquals([lines[0]!.op, lines[1500]!.op], ["expected", "actual"]);
});

Deno.test("markLine leaves no trailing spaces on context or empty lines", () => {
  assertEquals(
    diffValues("hello\n\nworld  \n", "hi\n\nworld  \n").map(markLine),
    ["- hello", "+ hi", "", "  world", ""],
  );
  assertEquals(diffValues("a\n", null).map(markLine), ["- a", "-", "+ null"]);
});
