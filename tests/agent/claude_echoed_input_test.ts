/** A call's input as Claude Code echoes it back to the model (claude-compat.md §0.3). */
import { claudeEchoedInput } from "../../src/agent/tools/claude_echoed_input.ts";
import { assertEquals } from "../helpers/assert.ts";

const echoed = (capability: Parameters<typeof claudeEchoedInput>[0], input: unknown) =>
  JSON.stringify(claudeEchoedInput(capability, input, "/proj"));

Deno.test("Bash: command, description, timeout, run_in_background, in that order, each only when given", () => {
  assertEquals(
    echoed("shell", { run_in_background: true, timeout: 5000, command: "make", description: "d" }),
    '{"command":"make","description":"d","timeout":5000,"run_in_background":true}',
  );
  assertEquals(echoed("shell", { command: "ls" }), '{"command":"ls"}');
});

Deno.test("Bash: a leading cd into the session's directory is dropped, and \\\\; reads \\;", () => {
  assertEquals(
    echoed("shell", { command: "cd /proj && find . -exec rm {} \\\\;" }),
    JSON.stringify({ command: "find . -exec rm {} \\;" }),
  );
  assertEquals(
    echoed("shell", { command: "cd /elsewhere && ls" }),
    '{"command":"cd /elsewhere && ls"}',
  );
  // The same words after the start are the model's own, and stay.
  assertEquals(
    echoed("shell", { command: "make && cd /proj && ls" }),
    '{"command":"make && cd /proj && ls"}',
  );
});

Deno.test("Edit: replace_all first, false when not given", () => {
  assertEquals(
    echoed("fs_edit", { file_path: "a.txt", old_string: "x", new_string: "y" }),
    '{"replace_all":false,"file_path":"a.txt","old_string":"x","new_string":"y"}',
  );
  assertEquals(
    echoed("fs_edit", { new_string: "y", old_string: "x", file_path: "a.txt", replace_all: true }),
    '{"replace_all":true,"file_path":"a.txt","old_string":"x","new_string":"y"}',
  );
});

Deno.test("the other tools' input is echoed as sent", () => {
  const read = { file_path: "hello.txt", limit: 2 };
  assertEquals(claudeEchoedInput("fs_read", read, "/proj"), read);
  assertEquals(claudeEchoedInput("fs_glob", { pattern: "**/*.ts" }, "/proj"), {
    pattern: "**/*.ts",
  });
});
