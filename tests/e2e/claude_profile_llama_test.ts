/**
 * The `claude` profile on the real llama path: generated GGUF models through node-llama-cpp
 * calling Claude Code's tools, an unmodified Claude-Code-style settings file whose guard checks
 * `tool_name == "Bash"` itself, real hook scripts, real stdio. And the same file under a forced
 * `llama` profile: the editor is told that its hooks will never fire here.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import { writeToolCallModel } from "../helpers/test_models.ts";
import { allowAndRecord, textPrompt as text } from "./e2e_project.ts";
import {
  exists,
  finalUpdateOf,
  noticesOf,
  POST_FAILURE_KEYS,
  readTranscript,
  toolCallRecord,
  withHookProject,
} from "./hook_project.ts";

/** A guard in the common bash + jq style: it checks the tool name itself, then the command. */
const GUARD = `#!/usr/bin/env bash
input=$(cat)
printf '%s\\n' "$input" >> "$CLAUDE_PROJECT_DIR/guard_log.jsonl"
if [[ "$(jq -r '.tool_name' <<<"$input")" != "Bash" ]]; then exit 0; fi
if jq -r '.tool_input.command' <<<"$input" | grep -q 'rm -rf'; then
  echo "Blocked: rm -rf is not allowed" >&2
  exit 2
fi
exit 0
`;

/** Records what PostToolUseFailure hooks receive. */
const RECORD_FAILURE = `#!/bin/sh
cat >> "$CLAUDE_PROJECT_DIR/failure_log.jsonl"
echo >> "$CLAUDE_PROJECT_DIR/failure_log.jsonl"
`;

const SETTINGS = {
  hooks: {
    PreToolUse: [{
      matcher: "Bash",
      hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh' }],
    }],
    PostToolUseFailure: [{
      matcher: "Bash",
      hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/failure.sh' }],
    }],
  },
};

const FILES = {
  ".claude/hooks/guard.sh": GUARD,
  ".claude/hooks/failure.sh": RECORD_FAILURE,
  "victim/keep.txt": "precious\n",
};

async function linesOf(path: string): Promise<JsonObject[]> {
  const text = await Deno.readTextFile(path).catch(() => "");
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
}

async function executable(dir: string): Promise<void> {
  for (const name of ["guard.sh", "failure.sh"]) {
    await Deno.chmod(`${dir}/.claude/hooks/${name}`, 0o755);
  }
}

Deno.test("llama, --compat claude: a Bash guard that checks tool_name blocks rm -rf; nothing is deleted", async () => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", { settings: SETTINGS, files: FILES });
    await executable(dir);
    const model = await writeToolCallModel(p.models, {
      toolName: "Bash",
      params: { command: "rm -rf victim" },
      answer: "The deletion was refused.",
    });
    const agent = await p.startAgent(model, ["--compat", "claude"]);
    const sessionId = await p.newSessionIn(agent, dir);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("clean up"),
    }) as JsonObject;

    assertEquals(result.stopReason, "end_turn");
    assertEquals(await exists(`${dir}/victim/keep.txt`), true);
    const [payload] = await linesOf(`${dir}/guard_log.jsonl`);
    assertEquals(payload?.tool_name, "Bash");
    assertEquals(payload?.tool_input, { command: "rm -rf victim" });
    assertEquals(payload?.effort, { level: "medium" });
    assertEquals(finalUpdateOf(agent, sessionId, "call_1").status, "failed");
    const seen = String(toolCallRecord(await readTranscript(p.home, sessionId), "call_1").result);
    assertStringIncludes(seen, "Blocked: rm -rf is not allowed");
    // The model was offered Claude Code's tools and no other.
    assertEquals(noticesOf(agent, sessionId), []);
    await agent.close();
  });
});

Deno.test("llama, --compat claude: a failing Bash command gives PostToolUseFailure Claude Code's error", async () => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", { settings: SETTINGS, files: FILES });
    await executable(dir);
    const model = await writeToolCallModel(p.models, {
      toolName: "Bash",
      params: { command: "echo oops >&2; exit 3" },
      answer: "The command failed.",
    });
    const agent = await p.startAgent(model, ["--compat", "claude"]);
    allowAndRecord(agent);
    const sessionId = await p.newSessionIn(agent, dir);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("run it"),
    }) as JsonObject;

    assertEquals(result.stopReason, "end_turn");
    const [failure] = await linesOf(`${dir}/failure_log.jsonl`);
    assert(failure !== undefined, "PostToolUseFailure fired");
    assertEquals(failure.hook_event_name, "PostToolUseFailure");
    assertEquals(failure.error, "Exit code 3\noops");
    assertEquals(failure.is_interrupt, false);
    assertEquals(Object.keys(failure).slice(7), [...POST_FAILURE_KEYS]);
    const seen = String(toolCallRecord(await readTranscript(p.home, sessionId), "call_1").result);
    assertEquals(seen, "Exit code 3\noops");
    await agent.close();
  });
});

Deno.test("llama, --compat llama: the same settings file is announced as never firing", async () => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", { settings: SETTINGS, files: FILES });
    await executable(dir);
    const model = await writeToolCallModel(p.models, {
      toolName: "shell",
      params: { command: "echo hi" },
      answer: "Done.",
    });
    const agent = await p.startAgent(model, ["--compat", "llama"]);
    allowAndRecord(agent);
    const sessionId = await p.newSessionIn(agent, dir);
    await agent.call("session/prompt", { sessionId, prompt: text("say hi") });
    const notices = noticesOf(agent, sessionId);
    assertEquals(notices.length, 1, JSON.stringify(notices));
    assertStringIncludes(notices[0]!, "--compat claude");
    // The Bash guard did not fire on shell.
    assertEquals(await linesOf(`${dir}/guard_log.jsonl`), []);
    await agent.close();
  });
});
