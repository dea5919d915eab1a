import { buildPayload, permissionModeFor } from "../../src/hooks/payload.ts";
import { assertEquals } from "../helpers/assert.ts";
import { POST_FAILURE_KEYS } from "../helpers/payload_keys.ts";

const session = {
  sessionId: "sess-1",
  transcriptPath: "/state/llama-agent/sessions/sess-1/raw.jsonl",
  cwd: "/project",
  promptId: "7f7c0c56-0000-4000-8000-000000000001",
  permissionMode: "acceptEdits",
} as const;

Deno.test("common fields come first in Claude Code's order, then the event's own", () => {
  const payload = buildPayload("PreToolUse", session, {
    tool_name: "shell",
    tool_input: { command: "ls" },
    tool_use_id: "call-1",
  });
  assertEquals(Object.keys(payload), [
    "session_id",
    "transcript_path",
    "cwd",
    "prompt_id",
    "permission_mode",
    "hook_event_name",
    "tool_name",
    "tool_input",
    "tool_use_id",
  ]);
  assertEquals(payload, {
    session_id: "sess-1",
    transcript_path: "/state/llama-agent/sessions/sess-1/raw.jsonl",
    cwd: "/project",
    prompt_id: "7f7c0c56-0000-4000-8000-000000000001",
    permission_mode: "acceptEdits",
    hook_event_name: "PreToolUse",
    tool_name: "shell",
    tool_input: { command: "ls" },
    tool_use_id: "call-1",
  });
});

Deno.test("SessionStart has neither prompt_id nor permission_mode, even when given", () => {
  const payload = buildPayload("SessionStart", session, { source: "startup" });
  assertEquals(Object.keys(payload), [
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "source",
  ]);
});

Deno.test("prompt_id and permission_mode are absent when not given", () => {
  const payload = buildPayload(
    "Stop",
    { sessionId: "s", transcriptPath: "/t", cwd: "/c" },
    {
      stop_hook_active: false,
      last_assistant_message: "done",
      background_tasks: [],
      session_crons: [],
    },
  );
  assertEquals(Object.keys(payload), [
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "stop_hook_active",
    "last_assistant_message",
    "background_tasks",
    "session_crons",
  ]);
});

Deno.test("event fields keep the order they were given in", () => {
  const payload = buildPayload("PostToolUseFailure", session, {
    tool_name: "fs_read",
    tool_input: { file_path: "/x" },
    tool_use_id: "call-2",
    error: "not found",
    is_interrupt: false,
    duration_ms: 12,
  });
  assertEquals(Object.keys(payload).slice(6), [...POST_FAILURE_KEYS]);
  assertEquals(
    JSON.stringify(payload),
    '{"session_id":"sess-1","transcript_path":"/state/llama-agent/sessions/sess-1/raw.jsonl",' +
      '"cwd":"/project","prompt_id":"7f7c0c56-0000-4000-8000-000000000001",' +
      '"permission_mode":"acceptEdits","hook_event_name":"PostToolUseFailure",' +
      '"tool_name":"fs_read","tool_input":{"file_path":"/x"},"tool_use_id":"call-2",' +
      '"error":"not found","is_interrupt":false,"duration_ms":12}',
  );
});

Deno.test("permission policies map to Claude Code's permission modes", () => {
  assertEquals(permissionModeFor("always-ask"), "default");
  assertEquals(permissionModeFor("auto-approve-reads"), "acceptEdits");
  assertEquals(permissionModeFor("rule-based"), "acceptEdits");
});
