/** The JSONC `hooks init` writes: comments above their entries, short values inline. */
import { assertEquals } from "../helpers/assert.ts";
import {
  array,
  object,
  renderJsonc,
  value,
  wrap,
} from "../../src/testing/scaffold/scaffold_render.ts";

Deno.test("comments go above their entry, and short values stay on one line", () => {
  const text = renderJsonc(object([
    { key: "name", node: value("a"), comments: ["first", "second"] },
    { key: "cases", node: array([{ node: value({ x: [1, 2] }), comments: ["a case"] }]) },
  ]));
  assertEquals(
    text,
    [
      "{",
      "  // first",
      "  // second",
      '  "name": "a",',
      '  "cases": [',
      "    // a case",
      '    { "x": [1, 2] }',
      "  ]",
      "}",
    ].join("\n"),
  );
});

Deno.test("a value too long for one line is laid out one member per line", () => {
  const long = { tool_name: "shell", tool_input: { command: "x".repeat(90) } };
  const text = renderJsonc(object([{ key: "input", node: value(long) }]));
  assertEquals(text.split("\n").slice(0, 3), ["{", '  "input": {', '    "tool_name": "shell",']);
  assertEquals(JSON.parse(text), { input: long });
});

Deno.test("comment text is wrapped at word boundaries", () => {
  assertEquals(wrap("aaa bbb ccc", 7), "aaa bbb\nccc");
});
