/**
 * The `claude` profile in a real session: an unmodified Claude Code settings file (matchers on
 * `Bash` and `Edit|Write`, scripts reading `tool_name` with jq) guards the local model as it guards
 * Claude Code, and hooks get Claude Code's payloads (claude-compat.md §0–§5). The same settings
 * under the default profile do not see Claude Code's names.
 */
import type { GenerateRequest } from "../../src/model/model.ts";
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { POST_FAILURE_KEYS } from "../helpers/payload_keys.ts";
import {
  calling,
  CLAUDE_TURN_KEYS,
  exists,
  lastToolCallUpdate,
  text,
} from "./claude_session_fixture.ts";
import { readLog, seen } from "./hook_fixtures.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

/** Refuses `rm -rf` in Bash, as a Claude Code user would write it. */
const GUARD = `#!/bin/sh
input=$(cat)
tool=$(printf '%s' "$input" | jq -r '.tool_name')
command=$(printf '%s' "$input" | jq -r '.tool_input.command // ""')
printf '%s\\n' "$input" >> "$CLAUDE_PROJECT_DIR/guard.log"
if [ "$tool" = "Bash" ] && printf '%s' "$command" | grep -q 'rm -rf'; then
  echo "rm -rf is not allowed here" >&2
  exit 2
fi
exit 0
`;

/** Appends its stdin, one line, to the log named by its argument. */
const LOG = `#!/bin/sh
cat >> "$CLAUDE_PROJECT_DIR/$1"
echo >> "$CLAUDE_PROJECT_DIR/$1"
`;

const hook = (command: string) => ({ hooks: [{ type: "command", command }] });

/** The settings file as Claude Code users write it: Claude Code's tool names in matchers. */
const SETTINGS = JSON.stringify(
  {
    hooks: {
      PreToolUse: [
        { matcher: "Bash", ...hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh') },
        hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/log.sh pre.log'),
      ],
      PostToolUse: [
        { matcher: "Edit|Write", ...hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/log.sh edits.log') },
        hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/log.sh post.log'),
      ],
      PostToolUseFailure: [hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/log.sh failure.log')],
    },
  },
  null,
  2,
);

const PROJECT = {
  ".claude/settings.json": SETTINGS,
  ".claude/hooks/guard.sh": GUARD,
  ".claude/hooks/log.sh": LOG,
};

Deno.test("claude profile: a PreToolUse hook on Bash that checks tool_name blocks rm -rf", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: { ...PROJECT, "victim/keep.txt": "keep me\n" },
    model: calling([["Bash", { command: "rm -rf victim", description: "clean up" }]], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("clean") });
    assertEquals(await Deno.readTextFile(`${t.cwd}/victim/keep.txt`), "keep me\n");
    assertStringIncludes(seen(requests[1]!), "rm -rf is not allowed here");
    assertEquals(requests[0]!.tools.slice(0, 6).map((tool) => tool.name), [
      "Bash",
      "Read",
      "Write",
      "Edit",
      "Glob",
      "Grep",
    ]);
    const [pre] = await readLog(`${t.cwd}/pre.log`);
    assertEquals(Object.keys(pre!), [
      ...CLAUDE_TURN_KEYS,
      "tool_name",
      "tool_input",
      "tool_use_id",
    ]);
    assertEquals(pre!.effort, { level: "medium" });
    assertEquals(
      JSON.stringify(pre!.tool_input),
      '{"command":"rm -rf victim","description":"clean up"}',
    );
    assertEquals(await readLog(`${t.cwd}/post.log`), [], "a denied call fires no Post hook");
  });
});

Deno.test("claude profile: an Edit|Write PostToolUse hook gets Claude Code's tool_input and tool_response", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: PROJECT,
    model: calling([
      ["Write", { file_path: "notes.txt", content: "one\n" }],
      ["Edit", { file_path: "notes.txt", old_string: "one", new_string: "two" }],
    ]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("write, then edit") });
    assertEquals(await Deno.readTextFile(`${t.cwd}/notes.txt`), "two\n");
    const path = `${t.cwd}/notes.txt`;
    const [write, edit, ...more] = await readLog(`${t.cwd}/edits.log`);
    assertEquals(more, []);
    assertEquals([write!.tool_name, edit!.tool_name], ["Write", "Edit"]);
    assertEquals(
      Object.keys(edit!),
      [
        ...CLAUDE_TURN_KEYS,
        "tool_name",
        "tool_input",
        "tool_response",
        "tool_use_id",
        "duration_ms",
      ],
    );
    assertEquals(
      JSON.stringify(write!.tool_input),
      JSON.stringify({ file_path: path, content: "one\n" }),
    );
    assertEquals(
      JSON.stringify(write!.tool_response),
      JSON.stringify({
        type: "create",
        filePath: path,
        content: "one\n",
        structuredPatch: [],
        originalFile: null,
        userModified: false,
      }),
    );
    assertEquals(
      JSON.stringify(edit!.tool_input),
      JSON.stringify({ file_path: path, old_string: "one", new_string: "two", replace_all: false }),
    );
    assertEquals(
      JSON.stringify(edit!.tool_response),
      JSON.stringify({
        filePath: path,
        oldString: "one",
        newString: "two",
        originalFile: "one\n",
        structuredPatch: [{
          oldStart: 1,
          oldLines: 1,
          newStart: 1,
          newLines: 1,
          lines: ["-one", "+two"],
        }],
        userModified: false,
        replaceAll: false,
      }),
    );
  });
});

Deno.test("claude profile: a Bash exit 3 fires PostToolUseFailure with `Exit code 3\\noops`", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: PROJECT,
    model: calling([["Bash", { command: "echo oops >&2; exit 3", description: "fail" }]], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("fail") });
    const [failure, ...more] = await readLog(`${t.cwd}/failure.log`);
    assertEquals(more, []);
    assertEquals(
      Object.keys(failure!),
      [
        ...CLAUDE_TURN_KEYS,
        ...POST_FAILURE_KEYS,
      ],
    );
    assertEquals([failure!.error, failure!.is_interrupt], ["Exit code 3\noops", false]);
    assertEquals(failure!.effort, { level: "medium" });
    assertEquals(await readLog(`${t.cwd}/post.log`), [], "a failed call fires no PostToolUse");
    assertStringIncludes(seen(requests[1]!), "tool Bash: Exit code 3\noops");
  });
});

Deno.test("claude profile: an Edit whose string is absent fires no tool hook; the model reads <tool_use_error>", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: { ...PROJECT, "hello.txt": "alpha\nbeta\n" },
    model: calling(
      [["Edit", { file_path: "hello.txt", old_string: "not-there", new_string: "x" }]],
      requests,
    ),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("edit") });
    for (const log of ["pre.log", "post.log", "edits.log", "failure.log"]) {
      assertEquals(await readLog(`${t.cwd}/${log}`), [], `${log}: no tool hook fired`);
    }
    assertStringIncludes(
      seen(requests[1]!),
      "tool Edit: <tool_use_error>String to replace not found in file.\nString: not-there" +
        "</tool_use_error>",
    );
    const final = lastToolCallUpdate(t.updates);
    assertEquals(final.status, "failed");
    assertEquals(await Deno.readTextFile(`${t.cwd}/hello.txt`), "alpha\nbeta\n");
  });
});

Deno.test("claude profile: an updatedInput that breaks the schema is refused in Claude Code's words", async () => {
  const requests: GenerateRequest[] = [];
  const rewrite = JSON.stringify({
    hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { description: "x" } },
  });
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", ...hook(`printf '%s' '${rewrite}'`) }] },
      }),
    },
    model: calling([["Bash", { command: "echo hi" }]], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("run") });
    assertStringIncludes(
      seen(requests[1]!),
      "tool Bash: PreToolUse hook for Bash returned updatedInput that failed schema validation: " +
        "Bash failed due to the following issue:\nThe required parameter `command` is missing\n" +
        "The tool input from the model was valid; the hook's rewrite of it was not.",
    );
  });
});

Deno.test("llama profile: the same settings do not see shell as Bash", async () => {
  await withInMemoryAgent({
    files: { ...PROJECT, "victim/keep.txt": "keep me\n" },
    model: calling([["shell", { command: "rm -rf victim" }]]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("clean") });
    assertEquals(await exists(`${t.cwd}/victim`), false);
    assertEquals(await readLog(`${t.cwd}/guard.log`), [], "the Bash matcher never fired");
    const [pre] = await readLog(`${t.cwd}/pre.log`);
    assertEquals(pre!.tool_name, "shell");
    assertEquals("effort" in pre!, false);
    const [post] = await readLog(`${t.cwd}/post.log`);
    assertEquals(Object.keys(post!).slice(5), [
      "hook_event_name",
      "tool_name",
      "tool_input",
      "tool_response",
      "tool_use_id",
      "duration_ms",
    ]);
  });
});

Deno.test("claude profile: a Write over a file a PreToolUse hook changed fails as it runs; the hook's line survives", async () => {
  const requests: GenerateRequest[] = [];
  const appendLine = hook('echo "added by hook" >> "$CLAUDE_PROJECT_DIR/notes.txt"');
  const settings = JSON.parse(SETTINGS);
  settings.hooks.PreToolUse.push({ matcher: "Write", ...appendLine });
  await withInMemoryAgent({
    profile: "claude",
    files: { ...PROJECT, ".claude/settings.json": JSON.stringify(settings), "notes.txt": "one\n" },
    model: calling([
      ["Read", { file_path: "notes.txt" }],
      ["Write", { file_path: "notes.txt", content: "model\n" }],
    ], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("rewrite notes") });
    assertEquals(await Deno.readTextFile(`${t.cwd}/notes.txt`), "one\nadded by hook\n");
    const modified = "File has been modified since read, either by the user or by a linter. " +
      "Read it again before attempting to write it.";
    assertStringIncludes(seen(requests[2]!), `tool Write: ${modified}`);
    const [failure, ...more] = await readLog(`${t.cwd}/failure.log`);
    assertEquals(more, []);
    assertEquals([failure!.tool_name, failure!.error], ["Write", modified]);
    assertEquals(await readLog(`${t.cwd}/edits.log`), [], "a failed Write fires no PostToolUse");
  });
});
