/**
 * `completePayload`: what `hooks run --input` and `hooks test` give is completed into the payload
 * a real session would send (hooks.md §4), with the matcher value of the event (§3).
 */
import type { FiredEventName } from "../../src/hooks/event_table.ts";
import { type CompletedPayload, completePayload } from "../../src/hooks/payload_defaults.ts";
import type { PayloadSession } from "../../src/hooks/payload.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";

const SESSION: PayloadSession = {
  sessionId: "sess-1",
  transcriptPath: "/home/u/.local/state/llama-agent/sessions/sess-1/raw.jsonl",
  cwd: "/project",
  promptId: "prompt-1",
  permissionMode: "acceptEdits",
};

const COMMON = {
  session_id: "sess-1",
  transcript_path: "/home/u/.local/state/llama-agent/sessions/sess-1/raw.jsonl",
  cwd: "/project",
  prompt_id: "prompt-1",
  permission_mode: "acceptEdits",
};

/** Without the prompt-level fields, as SessionStart sends it. */
const AT_START = {
  session_id: "sess-1",
  transcript_path: "/home/u/.local/state/llama-agent/sessions/sess-1/raw.jsonl",
  cwd: "/project",
};

const fixedId = () => "id-1";

function complete(event: FiredEventName, partial: Record<string, unknown>) {
  return completePayload(event, partial, SESSION, fixedId);
}

function ok(result: CompletedPayload) {
  if (!result.ok) throw new Error(`Expected a payload, got the error: ${result.error}`);
  return result;
}

function failure(result: CompletedPayload): string {
  if (result.ok) throw new Error(`Expected an error, got ${JSON.stringify(result.payload)}`);
  return result.error;
}

Deno.test("the common fields come first, in Claude Code's key order, then the event's", () => {
  const { payload, matcherValue } = ok(complete("PreToolUse", { tool_name: "shell" }));
  assertEquals(
    JSON.stringify(payload),
    '{"session_id":"sess-1",' +
      '"transcript_path":"/home/u/.local/state/llama-agent/sessions/sess-1/raw.jsonl",' +
      '"cwd":"/project","prompt_id":"prompt-1","permission_mode":"acceptEdits",' +
      '"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{},' +
      '"tool_use_id":"toolu_id-1"}',
  );
  assertEquals(matcherValue, "shell");
});

Deno.test("every fired event gets its own default fields, in order", () => {
  const cases: [FiredEventName, Record<string, unknown>, Record<string, unknown>][] = [
    ["SessionStart", {}, { ...AT_START, hook_event_name: "SessionStart", source: "startup" }],
    ["UserPromptSubmit", {}, { ...COMMON, hook_event_name: "UserPromptSubmit", prompt: "" }],
    ["PreToolUse", { tool_name: "fs_read" }, {
      ...COMMON,
      hook_event_name: "PreToolUse",
      tool_name: "fs_read",
      tool_input: {},
      tool_use_id: "toolu_id-1",
    }],
    ["PostToolUse", { tool_name: "fs_read" }, {
      ...COMMON,
      hook_event_name: "PostToolUse",
      tool_name: "fs_read",
      tool_input: {},
      tool_response: {},
      tool_use_id: "toolu_id-1",
      duration_ms: 0,
    }],
    ["PostToolUseFailure", { tool_name: "fs_read" }, {
      ...COMMON,
      hook_event_name: "PostToolUseFailure",
      tool_name: "fs_read",
      tool_input: {},
      tool_use_id: "toolu_id-1",
      error: "",
      is_interrupt: false,
      duration_ms: 0,
    }],
    ["Notification", {}, {
      ...COMMON,
      hook_event_name: "Notification",
      notification_type: "agent_message",
      message: "",
      title: "",
    }],
    ["Stop", {}, {
      ...COMMON,
      hook_event_name: "Stop",
      stop_hook_active: false,
      last_assistant_message: "",
      background_tasks: [],
      session_crons: [],
    }],
  ];
  for (const [event, partial, expected] of cases) {
    const { payload } = ok(complete(event, partial));
    assertEquals(payload, expected, event);
    assertEquals(Object.keys(payload), Object.keys(expected), `${event}: key order`);
  }
});

Deno.test("SessionStart has neither prompt_id nor permission_mode", () => {
  const { payload } = ok(complete("SessionStart", {}));
  assertEquals(Object.keys(payload), [
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "source",
  ]);
});

Deno.test("SessionEnd has permission_mode and no prompt_id, as Claude Code 2.1.332 sends it", () => {
  // `hooks run SessionEnd` and a `hooks test` case get a session with a prompt id: SessionEnd
  // belongs to no prompt, so it still has none.
  const { payload } = ok(complete("SessionEnd", {}));
  assertEquals(
    JSON.stringify(payload),
    JSON.stringify({
      ...AT_START,
      permission_mode: "acceptEdits",
      hook_event_name: "SessionEnd",
      reason: "other",
    }),
  );
});

Deno.test("given fields win over the defaults and keep Claude Code's position", () => {
  const { payload } = ok(complete("PreToolUse", {
    tool_use_id: "call-7",
    tool_input: { command: "ls -la" },
    tool_name: "terminal",
    session_id: "from-input",
  }));
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
  assertEquals(payload.session_id, "from-input");
  assertEquals(payload.tool_name, "terminal");
  assertEquals(payload.tool_input, { command: "ls -la" });
  assertEquals(payload.tool_use_id, "call-7");
});

Deno.test("fields the event does not define are kept, after the event's own", () => {
  const { payload } = ok(complete("Stop", { extra: [1, 2], stop_hook_active: true }));
  assertEquals(payload, {
    ...COMMON,
    hook_event_name: "Stop",
    stop_hook_active: true,
    last_assistant_message: "",
    background_tasks: [],
    session_crons: [],
    extra: [1, 2],
  });
  assertEquals(Object.keys(payload).at(-1), "extra");
});

Deno.test("the input object is not modified", () => {
  const partial = { tool_name: "shell", tool_input: { command: "ls" } };
  const copy = structuredClone(partial);
  ok(complete("PostToolUse", partial));
  assertEquals(partial, copy);
});

Deno.test("tool events need a tool_name: missing or empty is an error naming it", () => {
  for (const event of ["PreToolUse", "PostToolUse", "PostToolUseFailure"] as const) {
    for (const partial of [{}, { tool_name: "" }, { tool_input: { command: "ls" } }]) {
      assertEquals(
        failure(complete(event, partial)),
        `"tool_name" is required for ${event}: give it in the input`,
        `${event} ${JSON.stringify(partial)}`,
      );
    }
  }
});

Deno.test("a tool_name that is not a string is an error naming it", () => {
  for (const toolName of [5, null, ["shell"], { name: "shell" }]) {
    const error = failure(complete("PreToolUse", { tool_name: toolName }));
    assertStringIncludes(error, '"tool_name"');
    assertStringIncludes(error, "PreToolUse");
  }
});

Deno.test("the matcher value is the event's matcher field, or null where matchers are ignored", () => {
  const cases: [FiredEventName, Record<string, unknown>, string | null][] = [
    ["PreToolUse", { tool_name: "mcp__sah__search" }, "mcp__sah__search"],
    ["PostToolUse", { tool_name: "fs_write" }, "fs_write"],
    ["PostToolUseFailure", { tool_name: "shell" }, "shell"],
    ["SessionStart", {}, "startup"],
    ["SessionStart", { source: "resume" }, "resume"],
    ["Notification", {}, "agent_message"],
    ["Notification", { notification_type: "plan" }, "plan"],
    ["UserPromptSubmit", { prompt: "hello" }, null],
    ["Stop", { stop_hook_active: true }, null],
  ];
  for (const [event, partial, expected] of cases) {
    assertEquals(ok(complete(event, partial)).matcherValue, expected, event);
  }
});

Deno.test("a matcher field that is not a string is an error, not a silent non-match", () => {
  assertEquals(
    failure(complete("SessionStart", { source: 1 })),
    '"source" must be a string for SessionStart',
  );
  assertEquals(
    failure(complete("Notification", { notification_type: null })),
    '"notification_type" must be a string for Notification',
  );
});

Deno.test("events without a matcher field accept any value in any field", () => {
  const { payload, matcherValue } = ok(
    complete("UserPromptSubmit", { prompt: "fix it", source: 42, tool_name: 7 }),
  );
  assertEquals(matcherValue, null);
  assertEquals(payload.prompt, "fix it");
});

Deno.test("the default tool_use_id is a fresh toolu_<uuid> for each call", () => {
  const first = ok(completePayload("PreToolUse", { tool_name: "shell" }, SESSION));
  const second = ok(completePayload("PreToolUse", { tool_name: "shell" }, SESSION));
  const uuid = /^toolu_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  assertMatch(String(first.payload.tool_use_id), uuid);
  assertMatch(String(second.payload.tool_use_id), uuid);
  assert(first.payload.tool_use_id !== second.payload.tool_use_id, "two calls, two ids");
});

Deno.test("a session without prompt_id or permission_mode leaves them out", () => {
  const { payload } = ok(
    completePayload("Stop", {}, { sessionId: "s", transcriptPath: "/t", cwd: "/c" }),
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

Deno.test("the event names itself: an input hook_event_name is not taken", () => {
  const completed = completePayload("PreToolUse", { tool_name: "shell", hook_event_name: "Stop" }, {
    sessionId: "s",
    transcriptPath: "/t/raw.jsonl",
    cwd: "/p",
  });
  if (!completed.ok) throw new Error(completed.error);
  assertEquals(completed.payload["hook_event_name"], "PreToolUse");
});

Deno.test("a tool_name that is not a string says so", () => {
  const completed = completePayload("PreToolUse", { tool_name: 5 }, {
    sessionId: "s",
    transcriptPath: "/t/raw.jsonl",
    cwd: "/p",
  });
  assertEquals(completed, { ok: false, error: '"tool_name" must be a string for PreToolUse' });
});

Deno.test("a completed PostToolUse has tool_response before tool_use_id, as Claude Code sends it", () => {
  const completed = completePayload("PostToolUse", { tool_name: "Bash" }, SESSION, () => "x");
  assert(completed.ok);
  assertEquals(Object.keys(completed.payload).slice(6), [
    "tool_name",
    "tool_input",
    "tool_response",
    "tool_use_id",
    "duration_ms",
  ]);
});

Deno.test("the claude profile's effort comes after permission_mode on tool events only", () => {
  const claude = { ...SESSION, effort: { level: "medium" } };
  const pre = completePayload("PreToolUse", { tool_name: "Bash" }, claude, () => "x");
  assert(pre.ok);
  assertEquals(Object.keys(pre.payload).slice(4, 7), [
    "permission_mode",
    "effort",
    "hook_event_name",
  ]);
  assertEquals(pre.payload.effort, { level: "medium" });
  const prompt = completePayload("UserPromptSubmit", { prompt: "hi" }, claude, () => "x");
  assert(prompt.ok);
  assertEquals("effort" in prompt.payload, false);
  const llama = completePayload("PreToolUse", { tool_name: "shell" }, SESSION, () => "x");
  assert(llama.ok);
  assertEquals("effort" in llama.payload, false);
});
