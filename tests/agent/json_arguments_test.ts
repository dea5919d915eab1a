/**
 * Arguments a model sends as JSON text (json_arguments.ts): decoded when they hold an object, and
 * otherwise called invalid JSON with the parser's words and the place it stopped, in both
 * profiles' checks.
 */
import { claudeToolKit } from "../../src/agent/tools/claude_tool_kit.ts";
import { decodeArguments, jsonSyntaxProblem } from "../../src/agent/tools/json_arguments.ts";
import { assertEquals } from "../helpers/assert.ts";

const problemOf = (text: string) => {
  const decoded = decodeArguments(text);
  return decoded.ok ? undefined : decoded.problem;
};

Deno.test("an object, or JSON text holding one (even encoded twice), is that object", () => {
  assertEquals(decodeArguments({ command: "ls" }), { ok: true, value: { command: "ls" } });
  assertEquals(decodeArguments('{"command": "ls"}'), { ok: true, value: { command: "ls" } });
  assertEquals(decodeArguments(JSON.stringify('{"command": "ls"}')), {
    ok: true,
    value: { command: "ls" },
  });
  // JSON text of something else is that thing: the tool's check says it is not an object.
  assertEquals(decodeArguments('"ls"'), { ok: true, value: "ls" });
  assertEquals(decodeArguments("[1]"), { ok: true, value: [1] });
});

Deno.test("text that is not JSON gives the parser's message and the position, line and column", () => {
  // V8 does not say where an unexpected token is: the position is found.
  assertEquals(
    problemOf('{"command": ls}'),
    `Unexpected token 'l', "{"command": ls}" is not valid JSON (at position 12, line 1 column 13)`,
  );
  // "null" misspelt on line 3: V8 stops at its second letter, and quotes only the text near it.
  const problem = problemOf('{\n  "a": 1,\n  "b": nope\n}') ?? "";
  assertEquals(problem.startsWith("Unexpected token 'o', "), true, problem);
  assertEquals(problem.endsWith(" (at position 20, line 3 column 9)"), true, problem);
  // Nor where the text ended.
  assertEquals(problemOf(""), "Unexpected end of JSON input (at position 0, line 1 column 1)");
  // Where V8 says it, its words stand.
  assertEquals(
    problemOf('{"a": 1,}'),
    "Expected double-quoted property name in JSON at position 8 (line 1 column 9)",
  );
  assertEquals(
    problemOf('{"command": "ls"}}'),
    "Unexpected non-whitespace character after JSON at position 17 (line 1 column 18)",
  );
});

Deno.test("a message from elsewhere is passed on as it is", () => {
  assertEquals(jsonSyntaxProblem("x", new Error("something else")), "something else");
});

Deno.test("the claude profile calls text that is not JSON invalid JSON, in Claude Code's frame", () => {
  const parsed = claudeToolKit().parse("shell", '{"command": "ls"', "Bash", "/proj");
  assertEquals(parsed, {
    ok: false,
    message: "InputValidationError: Bash failed due to the following issue:\n" +
      "The input is not valid JSON: Expected ',' or '}' after property value in JSON at " +
      "position 16 (line 1 column 17)",
  });
  const decoded = claudeToolKit().parse("shell", '{"command": "ls"}', "Bash", "/proj");
  assertEquals(decoded.ok && decoded.hookInput, { command: "ls" });
});
