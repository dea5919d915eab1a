/**
 * Other agents' tool names (foreign_tools.ts) as each profile maps them: onto its own tools, its
 * own names and aliases first, the input in our field names, and an operation with no
 * counterpart refused with what to call instead.
 */
import { compatProfile, foreignToolOf, toolNameOf } from "../../src/profile/compat_profile.ts";
import {
  FOREIGN_TOOLS,
  foreignTool,
  translateForeignCall,
} from "../../src/profile/foreign_tools.ts";
import type { ToolCapability } from "../../src/profile/tool_identity.ts";
import { assertEquals } from "../helpers/assert.ts";

const llama = compatProfile("llama");
const claude = compatProfile("claude");

/** What `name` with `input` becomes in `profile`: [tool name, input], or the refusal. */
function mapped(profile: typeof llama, name: string, input: unknown) {
  const tool = foreignToolOf(profile, name);
  if (tool === undefined) return undefined;
  const toolName = (capability: ToolCapability) => toolNameOf(profile, capability);
  const translation = translateForeignCall(tool, name, input, toolName);
  return translation.ok
    ? [toolName(translation.capability), translation.input]
    : translation.message;
}

Deno.test("shell names other agents use run the profile's shell tool, in either profile", () => {
  for (
    const name of [
      "bash",
      "run_terminal_cmd",
      "execute_command",
      "run_command",
      "run_shell_command",
      "shell_exec",
    ]
  ) {
    assertEquals(mapped(llama, name, { command: "ls" }), ["shell", { command: "ls" }], name);
    assertEquals(mapped(claude, name, { command: "ls" }), ["Bash", { command: "ls" }], name);
  }
  // Each profile's names are the other's foreign names, whatever their case.
  assertEquals(mapped(llama, "Bash", { command: "ls" })?.[0], "shell");
  assertEquals(mapped(llama, "BASH", { command: "ls" })?.[0], "shell");
  assertEquals(mapped(claude, "shell", { command: "ls" })?.[0], "Bash");
  assertEquals(mapped(claude, "terminal", { cmd: "ls" }), ["Bash", { command: "ls" }]);
});

Deno.test("a profile's own names and aliases are never foreign", () => {
  for (const name of ["shell", "terminal", "read_file", "fs/write", "edit_file", "glob", "grep"]) {
    assertEquals(foreignToolOf(llama, name), undefined, name);
  }
  for (const name of ["Bash", "Read", "Write", "Edit", "Glob", "Grep"]) {
    assertEquals(foreignToolOf(claude, name), undefined, name);
  }
  // Claude Code's retired tools stay unknown, as Claude Code has them.
  assertEquals(foreignToolOf(claude, "MultiEdit"), undefined);
  assertEquals(foreignToolOf(claude, "LS"), undefined);
  assertEquals(foreignTool(FOREIGN_TOOLS, "constructor"), undefined);
  assertEquals(foreignTool(FOREIGN_TOOLS, "__proto__"), undefined);
});

Deno.test("file names map onto the claude profile's tools with their fields renamed", () => {
  assertEquals(mapped(claude, "read_file", { path: "a.txt" }), ["Read", { file_path: "a.txt" }]);
  assertEquals(mapped(claude, "write_file", { path: "a.txt", content: "x" }), [
    "Write",
    { file_path: "a.txt", content: "x" },
  ]);
  assertEquals(mapped(claude, "str_replace", { path: "a", old_str: "x", new_str: "y" }), [
    "Edit",
    { file_path: "a", old_string: "x", new_string: "y" },
  ]);
  assertEquals(mapped(claude, "edit_file", { file_path: "a", old_string: "x", new_string: "y" }), [
    "Edit",
    { file_path: "a", old_string: "x", new_string: "y" },
  ]);
  assertEquals(mapped(claude, "grep_search", { query: "TODO", include_pattern: "*.ts" }), [
    "Grep",
    { pattern: "TODO", glob: "*.ts" },
  ]);
  assertEquals(mapped(claude, "glob", { pattern: "**/*.md" }), ["Glob", { pattern: "**/*.md" }]);
  // A listing is a glob of what is in the directory, recursive when asked.
  assertEquals(mapped(claude, "list_files", { path: "src" }), [
    "Glob",
    { path: "src", pattern: "*" },
  ]);
  assertEquals(mapped(llama, "list_dir", { path: "src", recursive: true }), [
    "fs_glob",
    { path: "src", pattern: "**/*" },
  ]);
});

Deno.test("a field is renamed only where ours is not given too, in the order given", () => {
  assertEquals(mapped(claude, "read_file", { path: "a", file_path: "b" }), [
    "Read",
    { path: "a", file_path: "b" },
  ]);
  assertEquals(
    Object.keys(mapped(claude, "str_replace", { old_str: "x", path: "a", new_str: "y" })![1]!),
    ["old_string", "file_path", "new_string"],
  );
  // Input that is not an object is passed on for the tool's check to refuse.
  assertEquals(mapped(claude, "bash", "ls"), ["Bash", "ls"]);
});

Deno.test("str_replace_editor's commands run as read, write and edit, with their fields", () => {
  for (const name of ["str_replace_editor", "str_replace_based_edit_tool"]) {
    assertEquals(mapped(claude, name, { command: "view", path: "a.txt" }), [
      "Read",
      { file_path: "a.txt" },
    ]);
    assertEquals(mapped(claude, name, { command: "view", path: "a.txt", view_range: [3, 5] }), [
      "Read",
      { file_path: "a.txt", offset: 3, limit: 3 },
    ]);
    assertEquals(mapped(claude, name, { command: "view", path: "a.txt", view_range: [3, -1] }), [
      "Read",
      { file_path: "a.txt", offset: 3 },
    ]);
    assertEquals(mapped(claude, name, { command: "create", path: "n.txt", file_text: "hi\n" }), [
      "Write",
      { file_path: "n.txt", content: "hi\n" },
    ]);
    assertEquals(
      mapped(llama, name, { command: "str_replace", path: "a", old_str: "x", new_str: "y" }),
      ["fs_edit", { file_path: "a", old_string: "x", new_string: "y" }],
    );
  }
});

Deno.test("str_replace_editor's other commands are refused, naming what runs instead", () => {
  assertEquals(
    mapped(claude, "str_replace_editor", { command: "insert", path: "a", insert_line: 2 }),
    `str_replace_editor's command "insert" has no counterpart here: its commands "view", ` +
      `"create", "str_replace" run as Read, Write, Edit; for anything else call one of those ` +
      "tools directly",
  );
  assertEquals(
    mapped(llama, "str_replace_editor", { path: "a" }),
    `str_replace_editor needs a "command" naming what to do: its commands "view", "create", ` +
      `"str_replace" run as fs_read, fs_write, fs_edit; for anything else call one of those ` +
      "tools directly",
  );
  assertEquals(
    typeof mapped(claude, "str_replace_editor", { command: "toString", path: "a" }),
    "string",
    "a command is looked up among the table's own keys",
  );
});
