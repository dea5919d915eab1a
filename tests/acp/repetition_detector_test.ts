import { assert, assertEquals } from "../helpers/assert.ts";
import {
  type Repetition,
  REPETITION_MIN_COPIES,
  REPETITION_MIN_SPAN,
  RepetitionDetector,
} from "../../src/acp/turn/repetition_detector.ts";

/** What a detector finds in `text` streamed in chunks of `size` characters. */
function detect(text: string, size = 7): Repetition | undefined {
  const detector = new RepetitionDetector();
  for (let i = 0; i < text.length; i += size) {
    const found = detector.push(text.slice(i, i + size));
    if (found !== undefined) return found;
  }
  return undefined;
}

const TABLE = "| name | size | kind |\n|------|------|------|\n" +
  Array.from({ length: 60 }, (_, i) => `| file${i}.ts | ${i * 37} | module |\n`).join("");

const BRACES = "function f() {\n  if (a) {\n    for (;;) {\n      while (b) {\n" +
  "        x();\n      }\n    }\n  }\n}\n" + "}\n".repeat(12);

const CSV = "a,b,c,d\n" + "0,0,0,0\n".repeat(30);

const SIMILAR_LINES = Array.from(
  { length: 80 },
  (_, i) => `assertEquals(double(${i}), ${2 * i});\n`,
)
  .join("");

const FIXTURE_TWICE = "const rows = [\n" +
  '  { "name": "duplicate", "age": 41, "email": "same@example.com", "tags": ["a", "b"] },\n'
    .repeat(2) +
  "];\n";

const BLOCK = Array.from({ length: 10 }, (_, i) => `  step${i}(input, options); // ${i}\n`).join(
  "",
);

/** Written on purpose, and never cut. */
const KEPT: Record<string, string> = {
  "a table whose rows differ": TABLE,
  "a cascade of closing braces, then a dozen more": BRACES,
  "a CSV of 30 identical rows": CSV,
  "eighty similar test lines": SIMILAR_LINES,
  "a fixture with a duplicated record": FIXTURE_TWICE,
  "a rule of 120 equals signs": "Results\n" + "=".repeat(120) + "\nok\n",
  "a list of a hundred zeros": "const zeros = [" + "0, ".repeat(100) + "0];\n",
  "a block written twice": "```ts\n" + BLOCK + BLOCK + "```\n",
  "a hex dump of zero bytes": Array.from(
    { length: 16 },
    (_, i) =>
      `${(i * 16).toString(16).padStart(8, "0")}  ${"00 ".repeat(16)} |${".".repeat(16)}|\n`,
  ).join(""),
};

for (const [what, text] of Object.entries(KEPT)) {
  Deno.test(`${what} is not a repetition`, () => {
    assertEquals(detect(text), undefined);
    assertEquals(detect(text, 1), undefined);
  });
}

Deno.test("a word said again and again is found once it spans 800 characters, keeping one copy", () => {
  const loop = "Here:\n" + "abc ".repeat(400);
  const found = detect(loop);
  assert(found !== undefined);
  assertEquals(found.unit, "abc ");
  assertEquals(found.at, "Here:\n".length + REPETITION_MIN_SPAN);
  assertEquals(found.copies, REPETITION_MIN_SPAN / 4);
  assertEquals(loop.slice(0, found.keep), "Here:\nabc ");
});

Deno.test("a paragraph said a third time is found when its third copy is complete", () => {
  const paragraph = "The function reads the configuration, checks each entry against the " +
    "schema, and reports every problem with its line number so that the user can fix all of " +
    "them in one pass instead of one at a time. Then it writes the result back to the file it " +
    "came from, keeping the comments.\n";
  assert(paragraph.length * 3 >= REPETITION_MIN_SPAN, "long enough to be found at 3 copies");
  const text = "Plan:" + paragraph.repeat(5);
  const found = detect(text);
  assert(found !== undefined);
  assertEquals(found.copies, REPETITION_MIN_COPIES);
  assertEquals(found.at, "Plan:".length + paragraph.length * 3);
  assertEquals(text.slice(0, found.keep), "Plan:" + paragraph);
  assertEquals(found.unit, paragraph);
});

Deno.test("twice is never a repetition, however long the unit", () => {
  const long = Array.from({ length: 40 }, (_, i) => `line ${i} of a long generated block\n`)
    .join("");
  assertEquals(detect(long + long + "done\n"), undefined);
});

Deno.test("a line said over and over is cut after its first copy, at its line end, though the text before it ends as the line does", () => {
  const line = "I will now read the file to understand it.\n";
  // "Okay.\n" ends in ".\n" as the line does: the repetition starts two characters early.
  const found = detect("Okay.\n" + line.repeat(40));
  assert(found !== undefined);
  assertEquals(found.unit, line);
  assertEquals(found.keep, "Okay.\n".length + line.length);
  assertEquals(found.copies, Math.floor(REPETITION_MIN_SPAN / line.length));
});

Deno.test("a run of newlines is found and cut after the first", () => {
  const found = detect("Done." + "\n".repeat(2000));
  assertEquals(found?.unit, "\n");
  assertEquals(found?.keep, "Done.\n".length);
});

Deno.test("what is found does not depend on how the text was split into chunks", () => {
  const text = "x".repeat(10) + "the same words again ".repeat(60);
  const whole = detect(text, text.length);
  assert(whole !== undefined);
  for (const size of [1, 2, 5, 64, 333]) assertEquals(detect(text, size), whole);
});

Deno.test("once found, the detector reads nothing more and answers the same", () => {
  const detector = new RepetitionDetector({ minCopies: 3, minSpan: 6, maxPeriod: 4 });
  assertEquals(detector.push("hello"), undefined);
  const found = detector.push(" ab ab ab ab");
  assertEquals(found, { unit: "ab ", copies: 3, keep: 9, at: 14 });
  assertEquals(detector.push("anything"), found);
  assertEquals(detector.found, found);
});

Deno.test("a unit longer than the longest period looked for is not found", () => {
  const detector = new RepetitionDetector({ minCopies: 3, minSpan: 6, maxPeriod: 4 });
  assertEquals(detector.push("abcde".repeat(10)), undefined);
});
