/** The claude kit's schemas: what hooks see as `tool_input` (claude-compat.md §0.3) and its words. */
import { claudeToolKit } from "../../src/agent/tools/claude_tool_kit.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { assertJson } from "./claude_kit_deps.ts";

const kit = claudeToolKit();
const CWD = "/proj";

Deno.test("the model is offered Claude Code's six tools with their parameters in schema order", () => {
  const offered = kit.definitions().map((tool) => [
    tool.name,
    Object.keys(Object(tool.inputSchema.properties)),
  ]);
  assertEquals(offered, [
    ["Bash", [
      "command",
      "timeout",
      "description",
      "run_in_background",
      "dangerouslyDisableSandbox",
    ]],
    ["Read", ["file_path", "offset", "limit"]],
    ["Write", ["file_path", "content"]],
    ["Edit", ["file_path", "old_string", "new_string", "replace_all"]],
    ["Glob", ["pattern", "path"]],
    [
      "Grep",
      [
        "pattern",
        "path",
        "glob",
        "output_mode",
        "-B",
        "-A",
        "-C",
        "-n",
        "-i",
        "type",
        "head_limit",
        "offset",
        "multiline",
      ],
    ],
  ]);
});

Deno.test("Bash: timeout defaults for the run, not for hooks, and is capped at ten minutes", () => {
  const plain = kit.parse("shell", { command: "ls" }, "Bash", CWD);
  assert(plain.ok);
  assertJson(plain.hookInput, { command: "ls" });
  assertEquals(plain.operation, { capability: "shell", command: "ls", timeoutMs: 120_000 });
  const long = kit.parse("shell", { command: "ls", timeout: 9_000_000 }, "Bash", CWD);
  assert(long.ok && long.operation.capability === "shell");
  assertEquals(long.operation.timeoutMs, 600_000);
  assertJson(long.hookInput, { command: "ls", timeout: 9_000_000 });
});

Deno.test("Edit: keys in schema order whatever order the model sent", () => {
  const parsed = kit.parse(
    "fs_edit",
    {
      replace_all: true,
      new_string: "b",
      old_string: "a",
      file_path: "x.txt",
    },
    "Edit",
    CWD,
  );
  assert(parsed.ok);
  assertJson(parsed.hookInput, {
    file_path: "/proj/x.txt",
    old_string: "a",
    new_string: "b",
    replace_all: true,
  });
});

Deno.test("Write and Read: relative paths become absolute for hooks; Glob and Grep keep theirs", () => {
  const write = kit.parse("fs_write", { content: "c", file_path: "a/b.txt" }, "Write", CWD);
  assert(write.ok);
  assertJson(write.hookInput, { file_path: "/proj/a/b.txt", content: "c" });
  const read = kit.parse("fs_read", { limit: 3, file_path: "../x.txt", offset: 1 }, "Read", CWD);
  assert(read.ok);
  assertJson(read.hookInput, { file_path: "/x.txt", offset: 1, limit: 3 });
  const grep = kit.parse("fs_grep", { "-i": true, pattern: "x", path: "src" }, "Grep", CWD);
  assert(grep.ok);
  assertJson(grep.hookInput, { pattern: "x", path: "src", "-i": true });
});

Deno.test("several problems are listed one a line under `issues`", () => {
  const parsed = kit.parse("fs_edit", { file_path: 3, old_string: "a" }, "Edit", CWD);
  assert(!parsed.ok);
  assertEquals(
    kit.validationFailure(parsed.message),
    "<tool_use_error>InputValidationError: Edit failed due to the following issues:\n" +
      "The parameter `file_path` type is expected as `string` but provided as `number`\n" +
      "The required parameter `new_string` is missing</tool_use_error>",
  );
});

Deno.test("input sent as a JSON string is read as the object it encodes", () => {
  const parsed = kit.parse("fs_glob", '{"pattern":"*.ts"}', "Glob", CWD);
  assert(parsed.ok);
  assertJson(parsed.hookInput, { pattern: "*.ts" });
});
