import { assert, assertEquals } from "../helpers/assert.ts";
import {
  DEFAULT_SHELL_TIMEOUT_MS,
  MAX_SHELL_TIMEOUT_MS,
  parseToolInput,
  toolDefinitions,
} from "../../src/agent/tool_input.ts";
import type { ToolCapability } from "../../src/agent/tool_names.ts";

function ok(capability: ToolCapability, raw: unknown) {
  const parsed = parseToolInput(capability, raw);
  assert(parsed.ok, `expected ${JSON.stringify(raw)} to parse: ${JSON.stringify(parsed)}`);
  return parsed.value.input;
}

function error(capability: ToolCapability, raw: unknown, toolName?: string): string {
  const parsed = parseToolInput(capability, raw, toolName);
  assert(!parsed.ok, `expected ${JSON.stringify(raw)} to be refused`);
  return parsed.message;
}

Deno.test("shell input: the command, the default timeout, the description kept", () => {
  assertEquals(ok("shell", { command: "ls -la" }), {
    command: "ls -la",
    timeout: DEFAULT_SHELL_TIMEOUT_MS,
  });
  assertEquals(ok("shell", { command: "make", timeout: 5000, description: "Build" }), {
    command: "make",
    timeout: 5000,
    description: "Build",
  });
});

Deno.test("shell input: a timeout over the maximum is clamped, a string of digits accepted", () => {
  const timeout = (raw: unknown) => {
    const parsed = parseToolInput("shell", { command: "x", timeout: raw });
    assert(parsed.ok && parsed.value.capability === "shell");
    return parsed.value.input.timeout;
  };
  assertEquals(timeout(10_000_000), MAX_SHELL_TIMEOUT_MS);
  assertEquals(timeout("3000"), 3000);
  assertEquals(timeout(null), DEFAULT_SHELL_TIMEOUT_MS);
});

Deno.test("shell input: unknown keys are ignored, as Claude Code does", () => {
  assertEquals(ok("shell", { command: "x", run_in_background: false }), {
    command: "x",
    timeout: DEFAULT_SHELL_TIMEOUT_MS,
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
    error("shell", "ls").split(". ")[0],
    "Invalid input for shell: the input must be a JSON object, not a string",
  );
  assertEquals(
    error("shell", [1]).split(". ")[0],
    "Invalid input for shell: the input must be a JSON object, not an array",
  );
});

Deno.test("input sent as a JSON-encoded string is decoded", () => {
  assertEquals(ok("shell", '{"command":"pwd"}'), {
    command: "pwd",
    timeout: DEFAULT_SHELL_TIMEOUT_MS,
  });
});

Deno.test("fs_read input: file_path, or path as its alias, with offset and limit", () => {
  assertEquals(ok("fs_read", { file_path: "a.txt" }), { file_path: "a.txt" });
  assertEquals(ok("fs_read", { path: "a.txt", offset: 10, limit: 5 }), {
    file_path: "a.txt",
    offset: 10,
    limit: 5,
  });
  assertEquals(ok("fs_read", { file_path: "a.txt", path: "a.txt" }), { file_path: "a.txt" });
  assertEquals(ok("fs_read", { file_path: "a.txt", offset: 0, limit: "20" }), {
    file_path: "a.txt",
    offset: 1,
    limit: 20,
  });
  assertEquals(ok("fs_read", { file_path: "a.txt", offset: null, limit: null }), {
    file_path: "a.txt",
  });
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
    file_path: "a.txt",
    content: "x",
  });
  assertEquals(ok("fs_write", { path: "a.txt", content: "" }), { file_path: "a.txt", content: "" });
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

Deno.test("the tools offered to the model are the canonical three, with object schemas", () => {
  const definitions = toolDefinitions();
  assertEquals(definitions.map((d) => d.name), ["shell", "fs_read", "fs_write"]);
  for (const definition of definitions) {
    assertEquals(definition.inputSchema.type, "object");
    assert(definition.description.length > 20);
  }
  assertEquals(definitions[0]?.inputSchema.required, ["command"]);
  assertEquals(definitions[1]?.inputSchema.required, ["file_path"]);
  assertEquals(definitions[2]?.inputSchema.required, ["file_path", "content"]);
});
