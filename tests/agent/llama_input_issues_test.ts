/**
 * What is wrong with a llama tool input, in Claude Code's words (hooks.md §12.9): the issue
 * sentence inside the message of a hook's invalid `updatedInput`.
 */
import { assertEquals } from "../helpers/assert.ts";
import { inputSchemaFailure } from "../../src/agent/tools/llama_input_issues.ts";

Deno.test("a missing required parameter reads as Claude Code's", () => {
  assertEquals(
    inputSchemaFailure("shell", { description: "x" }, "shell"),
    "shell failed due to the following issue:\nThe required parameter `command` is missing",
  );
  assertEquals(
    inputSchemaFailure("fs_write", { content: "x" }, "write_file"),
    "write_file failed due to the following issue:\n" +
      "The required parameter `file_path` is missing",
  );
});

Deno.test("a parameter of the wrong type reads as Claude Code's, naming both types", () => {
  assertEquals(
    inputSchemaFailure("shell", { command: 5 }, "shell"),
    "shell failed due to the following issue:\n" +
      "The parameter `command` type is expected as `string` but provided as `number`",
  );
  assertEquals(
    inputSchemaFailure("fs_read", "not an object", "fs_read"),
    "fs_read failed due to the following issue:\n" +
      "The input type is expected as `object` but provided as `string`",
  );
});

Deno.test("several issues are listed one per line; other problems keep the llama schema's words", () => {
  assertEquals(
    inputSchemaFailure("fs_edit", { file_path: "a", new_string: 1 }, "fs_edit"),
    "fs_edit failed due to the following issues:\n" +
      "The required parameter `old_string` is missing\n" +
      "The parameter `new_string` type is expected as `string` but provided as `number`",
  );
  assertEquals(
    inputSchemaFailure("shell", { command: "x", timeout: 0 }, "shell"),
    'shell failed due to the following issue:\n"timeout" must be a whole number, 1 or more',
  );
  assertEquals(
    inputSchemaFailure("fs_grep", { pattern: "x", "-A": 1.5 }, "fs_grep"),
    'fs_grep failed due to the following issue:\n"-A" must be a whole number, 0 or more',
  );
});

Deno.test("an input that fits has no issue", () => {
  assertEquals(inputSchemaFailure("shell", { command: "ls" }, "shell"), null);
});
