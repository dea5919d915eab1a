import { assert, assertEquals } from "../helpers/assert.ts";
import {
  DEFAULT_SHELL_TIMEOUT_MS,
  MAX_SHELL_TIMEOUT_MS,
  parseToolInput,
} from "../../src/agent/tools/tool_input.ts";
import type { ToolCapability } from "../../src/profile/tool_identity.ts";

function ok(capability: ToolCapability, raw: unknown) {
  const parsed = parseToolInput(capability, raw);
  assert(parsed.ok, `expected ${JSON.stringify(raw)} to parse: ${JSON.stringify(parsed)}`);
  return parsed.operation;
}

function error(capability: ToolCapability, raw: unknown, toolName?: string): string {
  const parsed = parseToolInput(capability, raw, toolName);
  assert(!parsed.ok, `expected ${JSON.stringify(raw)} to be refused`);
  return parsed.message;
}

Deno.test("shell input: the command, the default timeout, the description kept", () => {
  assertEquals(ok("shell", { command: "ls -la" }), {
    capability: "shell",
    command: "ls -la",
    timeoutMs: DEFAULT_SHELL_TIMEOUT_MS,
  });
  assertEquals(ok("shell", { command: "make", timeout: 5000, description: "Build" }), {
    capability: "shell",
    command: "make",
    timeoutMs: 5000,
    description: "Build",
  });
});

Deno.test("shell input: a timeout over the maximum is clamped, a string of digits accepted", () => {
  const timeout = (raw: unknown) => {
    const parsed = parseToolInput("shell", { command: "x", timeout: raw });
    assert(parsed.ok && parsed.operation.capability === "shell");
    return parsed.operation.timeoutMs;
  };
  assertEquals(timeout(10_000_000), MAX_SHELL_TIMEOUT_MS);
  assertEquals(timeout("3000"), 3000);
  assertEquals(timeout(null), DEFAULT_SHELL_TIMEOUT_MS);
});

Deno.test("shell input: unknown keys are ignored, as Claude Code does", () => {
  assertEquals(ok("shell", { command: "x", run_in_background: false }), {
    capability: "shell",
    command: "x",
    timeoutMs: DEFAULT_SHELL_TIMEOUT_MS,
  });
});

Deno.test("shell input: missing, empty or mistyped fields say what is wrong and the shape", () => {
  assertEquals(
    error("shell", {}),
    'Invalid input for shell: "command" is required and must be a string. ' +
      'Expected {"command": string, "timeout"?: number (milliseconds)}',
  );
  assertEquals(
    error("shell", { command: "  " }, "terminal"),
    'Invalid input for terminal: "command" must not be empty. ' +
      'Expected {"command": string, "timeout"?: number (milliseconds)}',
  );
  assertEquals(
    error("shell", { command: "x", timeout: -1 }).split(". ")[0],
    'Invalid input for shell: "timeout" must be a whole number, 1 or more',
  );
  assertEquals(
    error("shell", { command: "x", timeout: 1.5 }).split(". ")[0],
    'Invalid input for shell: "timeout" must be a whole number, 1 or more',
  );
  assertEquals(
    error("shell", '"ls"').split(". ")[0],
    "Invalid input for shell: the input must be a JSON object, not a string",
  );
  assertEquals(
    error("shell", [1]).split(". ")[0],
    "Invalid input for shell: the input must be a JSON object, not an array",
  );
});

Deno.test("arguments sent as text that is not JSON are called invalid JSON, with where it broke", () => {
  assertEquals(
    error("shell", "ls"),
    "Invalid input for shell: the arguments are not valid JSON: Unexpected token 'l', \"ls\" is " +
      "not valid JSON (at position 0, line 1 column 1). " +
      'Expected {"command": string, "timeout"?: number (milliseconds)}',
  );
  assertEquals(
    error("fs_read", '{"file_path": "a.txt",}').split(". Expected")[0],
    "Invalid input for fs_read: the arguments are not valid JSON: Expected double-quoted " +
      "property name in JSON at position 22 (line 1 column 23)",
  );
});

Deno.test("input sent as a JSON-encoded string is decoded", () => {
  assertEquals(ok("shell", '{"command":"pwd"}'), {
    capability: "shell",
    command: "pwd",
    timeoutMs: DEFAULT_SHELL_TIMEOUT_MS,
  });
});

Deno.test("fs_read input: file_path, or path as its alias, with offset and limit", () => {
  const read = { capability: "fs_read", path: "a.txt" } as const;
  assertEquals(ok("fs_read", { file_path: "a.txt" }), read);
  assertEquals(ok("fs_read", { path: "a.txt", offset: 10, limit: 5 }), {
    ...read,
    offset: 10,
    limit: 5,
  });
  assertEquals(ok("fs_read", { file_path: "a.txt", path: "a.txt" }), read);
  assertEquals(ok("fs_read", { file_path: "a.txt", offset: 0, limit: "20" }), {
    ...read,
    offset: 1,
    limit: 20,
  });
  assertEquals(ok("fs_read", { file_path: "a.txt", offset: null, limit: null }), read);
});

Deno.test("fs_read input: bad inputs are refused with a reason", () => {
  const shape = 'Expected {"file_path": string, "offset"?: number (first line, 1-based), ' +
    '"limit"?: number}';
  assertEquals(
    error("fs_read", {}),
    `Invalid input for fs_read: "file_path" is required. ${shape}`,
  );
  assertEquals(
    error("fs_read", { file_path: "a", path: "b" }, "read_file"),
    `Invalid input for read_file: give "file_path" or "path", not both. ${shape}`,
  );
  assertEquals(
    error("fs_read", { file_path: 3 }),
    `Invalid input for fs_read: "file_path" must be a string. ${shape}`,
  );
  assertEquals(
    error("fs_read", { file_path: "a", limit: 0 }),
    `Invalid input for fs_read: "limit" must be a whole number, 1 or more. ${shape}`,
  );
  assertEquals(
    error("fs_read", { file_path: "" }),
    `Invalid input for fs_read: "file_path" must not be empty. ${shape}`,
  );
});

Deno.test("fs_write input: file_path or path, and content (empty content is fine)", () => {
  assertEquals(ok("fs_write", { file_path: "a.txt", content: "x" }), {
    capability: "fs_write",
    path: "a.txt",
    content: "x",
  });
  assertEquals(ok("fs_write", { path: "a.txt", content: "" }), {
    capability: "fs_write",
    path: "a.txt",
    content: "",
  });
  assertEquals(
    error("fs_write", { path: "a.txt" }),
    'Invalid input for fs_write: "content" is required and must be a string. ' +
      'Expected {"file_path": string, "content": string}',
  );
  assertEquals(
    error("fs_write", { content: 1 }),
    'Invalid input for fs_write: "content" is required and must be a string. ' +
      'Expected {"file_path": string, "content": string}',
  );
});

Deno.test("fs_edit input: file_path or path, the two strings, replace_all off by default", () => {
  const edit = {
    capability: "fs_edit",
    path: "a.txt",
    oldString: "x",
    newString: "y",
    replaceAll: false,
  } as const;
  assertEquals(ok("fs_edit", { file_path: "a.txt", old_string: "x", new_string: "y" }), edit);
  assertEquals(
    ok("fs_edit", { path: "a.txt", old_string: "x", new_string: "y", replace_all: "true" }),
    { ...edit, replaceAll: true },
  );
  assertEquals(
    ok("fs_edit", { file_path: "a.txt", old_string: "", new_string: "y", replace_all: null }),
    { ...edit, oldString: "" },
  );
  const shape = 'Expected {"file_path": string, "old_string": string, "new_string": string, ' +
    '"replace_all"?: boolean}';
  assertEquals(
    error("fs_edit", { file_path: "a.txt", new_string: "y" }),
    `Invalid input for fs_edit: "old_string" is required and must be a string. ${shape}`,
  );
  assertEquals(
    error("fs_edit", { file_path: "a", old_string: "x", new_string: "y", replace_all: "yes" })
      .split(". ")[0],
    'Invalid input for fs_edit: "replace_all" must be true or false',
  );
});

Deno.test("fs_glob input: a pattern, and a path when one is given", () => {
  assertEquals(ok("fs_glob", { pattern: "**/*.ts" }), {
    capability: "fs_glob",
    pattern: "**/*.ts",
  });
  assertEquals(ok("fs_glob", { pattern: "*.ts", path: "src" }), {
    capability: "fs_glob",
    pattern: "*.ts",
    path: "src",
  });
  assertEquals(ok("fs_glob", { pattern: "*.ts", path: null }), {
    capability: "fs_glob",
    pattern: "*.ts",
  });
  assertEquals(
    error("fs_glob", { pattern: "" }).split(". ")[0],
    'Invalid input for fs_glob: "pattern" must not be empty',
  );
});

Deno.test("fs_grep input: Claude Code's field names, with defaults and lenient numbers", () => {
  assertEquals(ok("fs_grep", { pattern: "todo" }), {
    capability: "fs_grep",
    pattern: "todo",
    outputMode: "files_with_matches",
    ignoreCase: false,
    lineNumbers: true,
    before: 0,
    after: 0,
    multiline: false,
    offset: 0,
  });
  assertEquals(
    ok("fs_grep", {
      pattern: "todo",
      path: "src",
      glob: "*.ts",
      type: "ts",
      output_mode: "content",
      "-i": true,
      "-n": false,
      "-C": "2",
      "-A": 5,
      multiline: "true",
      head_limit: "10",
      offset: 3,
    }),
    {
      capability: "fs_grep",
      pattern: "todo",
      path: "src",
      glob: "*.ts",
      fileType: "ts",
      outputMode: "content",
      ignoreCase: true,
      lineNumbers: false,
      before: 2,
      after: 5,
      multiline: true,
      headLimit: 10,
      offset: 3,
    },
  );
  const unlimited = ok("fs_grep", { pattern: "x", head_limit: 0 });
  assertEquals("headLimit" in unlimited, false);
  assertEquals(
    error("fs_grep", { pattern: "x", "-A": -1 }).split(". ")[0],
    'Invalid input for fs_grep: "-A" must be a whole number, 0 or more',
  );
  assertEquals(
    error("fs_grep", {}).split(". ")[0],
    'Invalid input for fs_grep: "pattern" is required and must be a string',
  );
});
