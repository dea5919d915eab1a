/**
 * JSONC edits at a pointer: each changes only the span of its value (and the comma beside it),
 * so comments, blank lines and the layout of the rest stay byte for byte.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import {
  formatValue,
  lineOfPointer,
  removeProperty,
  replaceValue,
  valueSpan,
} from "../../src/testing/snapshot/jsonc_edit.ts";

function edited(result: { ok: true; text: string } | { ok: false; message: string }): string {
  if (!result.ok) throw new Error(result.message);
  return result.text;
}

const DOC = `{
  // The cases.
  "cases": [
    {
      "name": "a \\"quoted\\" name, with a // not-a-comment",
      /* the expectation */
      "expect": {
        "decision": "deny", // what the guard says
        "reason": { "matches": "^Please" },
        "exitCodes": [2],
      },
    },
  ],
}
`;

Deno.test("the span of a value skips comments, escapes and trailing commas", () => {
  const span = valueSpan(DOC, "/cases/0/expect/reason");
  assert(span !== undefined);
  assertEquals(DOC.slice(span.offset, span.offset + span.length), '{ "matches": "^Please" }');
  const name = valueSpan(DOC, "/cases/0/name")!;
  assertEquals(
    DOC.slice(name.offset, name.offset + name.length),
    '"a \\"quoted\\" name, with a // not-a-comment"',
  );
  assertEquals(valueSpan(DOC, "/cases/0/expect/missing"), undefined);
  assertEquals(valueSpan(DOC, "/cases/1"), undefined);
  assertEquals(lineOfPointer(DOC, "/cases/0/expect/reason"), 9);
});

Deno.test("a repeated key: the last one is edited, as the loader reads it", () => {
  const text = '{ "a": 1, "a": 2 }';
  assertEquals(edited(replaceValue(text, "/a", 3)), '{ "a": 1, "a": 3 }');
});

Deno.test("replacing a value changes only its span", () => {
  const text = edited(replaceValue(DOC, "/cases/0/expect/reason", "[guard.sh]: Refusing"));
  assertEquals(
    text,
    DOC.replace('{ "matches": "^Please" }', '"[guard.sh]: Refusing"'),
  );
});

Deno.test("a pointer segment with / and ~ is decoded", () => {
  const text = '{ "files": { "a/b~c.txt": "old" } }';
  assertEquals(
    edited(replaceValue(text, "/files/a~1b~0c.txt", null)),
    '{ "files": { "a/b~c.txt": null } }',
  );
});

Deno.test("a value too wide for one line is laid out one entry a line, a step deeper", () => {
  const long = Array.from({ length: 6 }, (_, i) => `project:/hooks/PreToolUse/${i}/hooks/0`);
  const text = edited(replaceValue(DOC, "/cases/0/expect/exitCodes", long));
  const expected = DOC.replace(
    '"exitCodes": [2],',
    `"exitCodes": [\n${
      long.map((id) => `          ${JSON.stringify(id)}`).join(",\n")
    }\n        ],`,
  );
  assertEquals(text, expected);
});

Deno.test("a property whose value is undefined is left out, on one line or laid out", () => {
  const options = { indent: "", step: "  ", column: 0 };
  assertEquals(formatValue({ a: 1, b: undefined }, options), '{ "a": 1 }');
  assertEquals(formatValue({ b: undefined }, { ...options, expand: true }), "{}");
  assertEquals(
    formatValue({ a: "x".repeat(100), b: undefined }, options),
    `{\n  "a": "${"x".repeat(100)}"\n}`,
  );
});

Deno.test("a value that was on several lines stays on several lines", () => {
  const text = '{\n  "a": [\n    1\n  ]\n}\n';
  assertEquals(edited(replaceValue(text, "/a", [1, 2])), '{\n  "a": [\n    1,\n    2\n  ]\n}\n');
});

Deno.test("the file's indentation step is used: tabs", () => {
  const text = '{\n\t"a": {\n\t\t"b": 1\n\t}\n}\n';
  assertEquals(
    formatValue({ x: "y".repeat(120) }, { indent: "\t", step: "\t", column: 6 }),
    `{\n\t\t"x": "${"y".repeat(120)}"\n\t}`,
  );
  assertEquals(
    edited(replaceValue(text, "/a", { b: 1, c: 2 })),
    '{\n\t"a": {\n\t\t"b": 1,\n\t\t"c": 2\n\t}\n}\n',
  );
});

Deno.test("removing a property on its own line takes the line and its trailing comment", () => {
  const text = edited(removeProperty(DOC, "/cases/0/expect/decision"));
  assertEquals(text, DOC.replace('        "decision": "deny", // what the guard says\n', ""));
});

Deno.test("removing the last property removes the comma before it, and keeps its comment", () => {
  const text = '{\n  "a": 1, // one\n  "b": 2\n}\n';
  assertEquals(edited(removeProperty(text, "/b")), '{\n  "a": 1 // one\n}\n');
});

Deno.test("removing the last property keeps a trailing comma style", () => {
  const text = edited(removeProperty(DOC, "/cases/0/expect/exitCodes"));
  assertEquals(text, DOC.replace('        "exitCodes": [2],\n', ""));
});

Deno.test("removing a property from an object on one line", () => {
  const text = '{ "expect": { "decision": "deny", "reason": { "matches": "x" }, "errors": 0 } }';
  assertEquals(
    edited(removeProperty(text, "/expect/reason")),
    '{ "expect": { "decision": "deny", "errors": 0 } }',
  );
  assertEquals(
    edited(removeProperty(text, "/expect/errors")),
    '{ "expect": { "decision": "deny", "reason": { "matches": "x" } } }',
  );
  assertEquals(
    edited(removeProperty(text, "/expect/decision")),
    '{ "expect": { "reason": { "matches": "x" }, "errors": 0 } }',
  );
  assertEquals(edited(removeProperty('{ "a": 1 }', "/a")), "{}");
});

Deno.test("removing an array element or the root is refused", () => {
  const result = removeProperty('{ "a": [1, 2] }', "/a/0");
  assertEquals(result, { ok: false, message: '"/a/0" is not a property of an object' });
  assertEquals(removeProperty("{", "/a"), { ok: false, message: "The text is not valid JSONC" });
});

Deno.test("a byte order mark and CRLF line ends are kept", () => {
  const text = '\ufeff{\r\n  "a": 1,\r\n  "b": 2\r\n}\r\n';
  assertEquals(edited(replaceValue(text, "/b", 3)), '\ufeff{\r\n  "a": 1,\r\n  "b": 3\r\n}\r\n');
  assertEquals(edited(removeProperty(text, "/a")), '\ufeff{\r\n  "b": 2\r\n}\r\n');
  assertEquals(lineOfPointer(text, "/b"), 3);
});

Deno.test("a value inside a one-line object stays on its line, however wide", () => {
  const text = `{ "expect": { "reason": "${"r".repeat(90)}", "exitCodes": [0] } }`;
  assertEquals(
    edited(replaceValue(text, "/expect/exitCodes", [2, 0])),
    text.replace("[0]", "[2, 0]"),
  );
});
