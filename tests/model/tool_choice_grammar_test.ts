import {
  type CallSyntax,
  firstChoiceOf,
  toolChoiceGrammar,
} from "../../src/model/llama/tool_choice_grammar.ts";
import { assertEquals, assertThrows } from "../helpers/assert.ts";

const GENERIC: CallSyntax = { prefix: "||call: ", paramsPrefix: "(" };
const NAMES = ["fs_read", "fs_read_lines", "shell"];

Deno.test("the choice grammar is a call to one of the tools, text that leaves the call prefix, or nothing", () => {
  assertEquals(toolChoiceGrammar({ prefix: "|c", paramsPrefix: "(" }, ["a", "b"]).split("\n"), [
    "root ::= call | text | empty",
    'call ::= "|c" name "("',
    'name ::= "a" | "b"',
    // Text may start with "|" as long as it is not followed by "c": a Markdown table is text.
    'text ::= ([^\\u007c] | "|" [^c]) rest',
    "rest ::= [^\\x00]*",
    'empty ::= ""',
  ]);
});

Deno.test("the choice grammar writes quotes, backslashes and other characters as GBNF escapes", () => {
  const grammar = toolChoiceGrammar({ prefix: '"\\', paramsPrefix: "(" }, ['say"it']);
  assertEquals(grammar.split("\n").slice(1, 4), [
    String.raw`call ::= "\"\\" name "("`,
    String.raw`name ::= "say\"it"`,
    String.raw`text ::= ([^\u0022] | "\"" [^\u005c]) rest`,
  ]);
});

Deno.test("the choice grammar needs a tool and a call prefix", () => {
  assertThrows(() => toolChoiceGrammar(GENERIC, []), RangeError, "at least one tool");
  assertThrows(
    () => toolChoiceGrammar({ prefix: "", paramsPrefix: "(" }, NAMES),
    RangeError,
    "call prefix",
  );
});

Deno.test("a start of the call prefix, or of a tool's name after it, is not a choice yet", () => {
  for (const text of ["", "|", "||", "||call:", "||call: ", "||call: fs", "||call: fs_read"]) {
    assertEquals(firstChoiceOf(text, GENERIC, NAMES), undefined, text);
  }
});

Deno.test("the prefix, a tool's name and the params' opening choose that tool", () => {
  assertEquals(firstChoiceOf("||call: fs_read(", GENERIC, NAMES), {
    kind: "call",
    name: "fs_read",
  });
  // A name that starts another is told apart by the opening that follows it.
  assertEquals(firstChoiceOf("||call: fs_read_lines(", GENERIC, NAMES), {
    kind: "call",
    name: "fs_read_lines",
  });
  assertEquals(firstChoiceOf('||call: shell({"command"', GENERIC, NAMES), {
    kind: "call",
    name: "shell",
  });
});

Deno.test("text that leaves the call prefix anywhere chooses text", () => {
  for (const text of ["The", " ||call: shell(", "| a | b |", "|| is or", "||call: nope("]) {
    assertEquals(firstChoiceOf(text, GENERIC, NAMES), { kind: "text" }, text);
  }
});
