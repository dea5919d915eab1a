/**
 * How `doctor` judges a probe answer's calls: by the profile's names and aliases, the kit's own
 * check of the input, and whether the input is about what was asked; the best call counts.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { judgeCalls } from "../../src/doctor/tool_call_probe.ts";
import { PROBE_TASKS, type ProbeTask } from "../../src/doctor/probe_tasks.ts";
import { createToolKit } from "../../src/agent/tools/tool_kits.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";

const llama = createToolKit(compatProfile("llama"));
const claude = createToolKit(compatProfile("claude"));

function task(id: string): ProbeTask {
  const found = PROBE_TASKS.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no task ${id}`);
  return found;
}

const READ = task("read_file");

Deno.test("the right tool with input it takes, about the file asked for, is valid", () => {
  const judged = judgeCalls(
    READ,
    [{ name: "fs_read", input: { file_path: "notes.txt" } }],
    llama,
    "/p",
  );
  assertEquals(judged.outcome, "valid");
});

Deno.test("an alias the profile accepts is the tool it names", () => {
  const judged = judgeCalls(
    READ,
    [{ name: "read_file", input: { file_path: "notes.txt" } }],
    llama,
    "/p",
  );
  assertEquals(judged.outcome, "valid");
});

Deno.test("another tool, or a name that is none, is the wrong tool, said with the one needed", () => {
  assertEquals(
    judgeCalls(READ, [{ name: "shell", input: { command: "cat notes.txt" } }], llama, "/p"),
    {
      outcome: "wrong_tool",
      call: { name: "shell", input: { command: "cat notes.txt" } },
      detail: "shell where fs_read was needed",
    },
  );
  const unknown = judgeCalls(READ, [{ name: "open_file", input: {} }], llama, "/p");
  assertEquals(unknown.outcome, "wrong_tool");
  assertEquals(unknown.detail, '"open_file" is not a tool here; fs_read was needed');
});

Deno.test("the right tool with input it refuses is invalid, with the tool's own words", () => {
  const judged = judgeCalls(READ, [{ name: "fs_read", input: { limit: 10 } }], llama, "/p");
  assertEquals(judged.outcome, "invalid");
  assertStringIncludes(judged.detail ?? "", "file_path");
});

Deno.test("the right tool about another file is off task", () => {
  const judged = judgeCalls(
    READ,
    [{ name: "fs_read", input: { file_path: "README.md" } }],
    llama,
    "/p",
  );
  assertEquals(judged.outcome, "off_task");
  assertEquals(judged.detail, 'its input does not mention "notes.txt"');
});

Deno.test("of several calls the best one counts", () => {
  const judged = judgeCalls(
    READ,
    [
      { name: "fs_glob", input: { pattern: "*.txt" } },
      { name: "fs_read", input: { file_path: "notes.txt" } },
    ],
    llama,
    "/p",
  );
  assertEquals(judged.outcome, "valid");
  assertEquals(judged.call.name, "fs_read");
});

Deno.test("the claude profile judges by Claude Code's names and schemas", () => {
  assertEquals(
    judgeCalls(READ, [{ name: "Read", input: { file_path: "/p/notes.txt" } }], claude, "/p")
      .outcome,
    "valid",
  );
  assertEquals(
    judgeCalls(READ, [{ name: "fs_read", input: { file_path: "/p/notes.txt" } }], claude, "/p")
      .outcome,
    "wrong_tool",
  );
  const shell = judgeCalls(
    task("run_command"),
    [{ name: "Bash", input: { command: "git status" } }],
    claude,
    "/p",
  );
  assertEquals(shell.outcome, "valid");
});
