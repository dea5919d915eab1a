/**
 * The hook records of the Claude-format transcript, event by event and outcome by outcome, as
 * Claude Code 2.1.332 writes them: each hook's own record (`hook_success`, `hook_non_blocking_error`,
 * `hook_cancelled`, a JSON block's `hook_blocking_error`), what each event words itself
 * (`hook_blocking_error`, `hook_additional_context`, `hook_stopped_continuation`,
 * `hook_deferred_tool`), the `hook_system_message` after the hook that said it, and the events
 * that leave nothing. Compared as JSON text: the key order is part of the shape.
 */
import { assertEquals } from "../helpers/assert.ts";
import { renderedFor } from "../../src/agent/transcript/claude_hook_attachments.ts";
import { firingRecords, HOOK_RECORDS } from "../../src/agent/transcript/claude_hook_records.ts";
import { FIRED_EVENTS, type FiredEventName } from "../../src/hooks/event_table.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import { fireHooks, type HookFiring } from "../../src/hooks/hook_engine.ts";
import type { Registration } from "../../src/hooks/registration.ts";
import {
  answered,
  commandRegistration,
  evaluated,
  exited,
  failed,
  http,
  httpRegistration,
  promptRegistration,
} from "../hooks/registration_fixture.ts";

/** One firing whose hook `i` is `registrations[i]` and answers `results[i]`. */
function fire(
  event: FiredEventName,
  matcherValue: string | null,
  results: readonly HandlerResult[],
  registrations: readonly Registration[] = results.map((_, order) =>
    commandRegistration(`./hook${order}.sh`, { event, order })
  ),
): Promise<HookFiring> {
  return fireHooks({
    event,
    matcherValue,
    payload: { hook_event_name: event },
    registrations,
    runHandler: (registration) => Promise.resolve(results[registration.order]!),
    context: { event, cwd: "/work/proj", sessionId: "s-1" },
  });
}

const CALL = {
  permission_mode: "default",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "rm -rf build" },
  tool_use_id: "toolu_1",
};

/** The attachments of a firing as JSON lines (a summary as `stop_hook_summary`); ids `id1`, ... */
async function written(
  event: FiredEventName,
  matcherValue: string | null,
  results: readonly HandlerResult[],
  options: { sent?: Record<string, unknown>; registrations?: readonly Registration[] } = {},
): Promise<string[]> {
  let n = 0;
  const firing = await fire(event, matcherValue, results, options.registrations);
  return firingRecords(firing, options.sent, () => `id${++n}`).map((record) =>
    record.kind === "attachment" ? JSON.stringify(record.attachment) : "stop_hook_summary"
  );
}

const ID = (hookName: string, toolUseID: string, hookEvent: string) =>
  `"hookName":"${hookName}","toolUseID":"${toolUseID}","hookEvent":"${hookEvent}"`;
const BASH = ID("PreToolUse:Bash", "toolu_1", "PreToolUse");
const POST = ID("PostToolUse:Bash", "toolu_1", "PostToolUse");

Deno.test("success: every hook that exits 0 leaves a hook_success, plain stdout as its trimmed content, JSON as none", async () => {
  assertEquals(
    await written("PreToolUse", "Bash", [exited(0), exited(0, { stdout: "ok\n", stderr: "w" })], {
      sent: CALL,
    }),
    [
      `{"type":"hook_success",${BASH},"content":"","stdout":"","stderr":"","exitCode":0,` +
      `"command":"./hook0.sh","durationMs":5}`,
      `{"type":"hook_success",${BASH},"content":"ok","stdout":"ok\\n","stderr":"w","exitCode":0,` +
      `"command":"./hook1.sh","durationMs":5}`,
    ],
  );
  const json = { hookSpecificOutput: { hookEventName: "PostToolUse" } };
  assertEquals(
    await written("PostToolUse", "Bash", [answered(json)], { sent: CALL }),
    [
      `{"type":"hook_success",${POST},"content":"","stdout":${
        JSON.stringify(JSON.stringify(json) + "\n")
      },"stderr":"","exitCode":0,"command":"./hook0.sh","durationMs":5}`,
    ],
  );
});

Deno.test("success: an event without a tool call gives its hooks one new id; SessionStart is named by its source", async () => {
  const [record] = await written("SessionStart", "startup", [exited(0, { stdout: "CTX" })]);
  assertEquals(
    record,
    `{"type":"hook_success",${ID("SessionStart:startup", "id1", "SessionStart")},` +
      `"content":"CTX","stdout":"CTX","stderr":"","exitCode":0,"command":"./hook0.sh","durationMs":5}`,
  );
});

Deno.test("additional context: one record per hook on tool events, after the hook's own record", async () => {
  const ctx = (text: string) =>
    answered({
      hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: text },
    });
  const records = await written("PostToolUse", "Bash", [ctx("A"), ctx("B")], { sent: CALL });
  assertEquals(records.map((r) => JSON.parse(r).type), [
    "hook_success",
    "hook_additional_context",
    "hook_success",
    "hook_additional_context",
  ]);
  assertEquals(records[1], `{"type":"hook_additional_context","content":["A"],${POST}}`);
  assertEquals(records[3], `{"type":"hook_additional_context","content":["B"],${POST}}`);
});

Deno.test("additional context: SessionStart's is one record for all hooks, named and identified by the bare event", async () => {
  const ctx = (text: string) =>
    answered({
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: text },
    });
  const records = await written("SessionStart", "startup", [ctx("A"), ctx("B")]);
  assertEquals(records.map((r) => JSON.parse(r).type), [
    "hook_success",
    "hook_success",
    "hook_additional_context",
  ]);
  assertEquals(
    records[2],
    `{"type":"hook_additional_context","content":["A","B"],${
      ID("SessionStart", "SessionStart", "SessionStart")
    }}`,
  );
});

Deno.test("additional context: UserPromptSubmit's is per hook under a hook- id, and a contentless success is not written", async () => {
  const json = {
    hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "ON main" },
  };
  const records = await written("UserPromptSubmit", null, [answered(json), exited(0)]);
  assertEquals(records, [
    `{"type":"hook_additional_context","content":["ON main"],${
      ID("UserPromptSubmit", "hook-id2", "UserPromptSubmit")
    }}`,
  ]);
  const plain = await written("UserPromptSubmit", null, [exited(0, { stdout: "BRANCH\n" })]);
  assertEquals(plain.map((r) => JSON.parse(r).content), ["BRANCH"]);
});

Deno.test("blocking error: a PostToolUse or PostToolUseFailure block is worded by the event, exit 2 quoting stderr as written", async () => {
  const blocks = [exited(2, { stderr: "lint failed\n" }), answered({ decision: "block" })];
  assertEquals(await written("PostToolUse", "Bash", blocks, { sent: CALL }), [
    `{"type":"hook_blocking_error",${POST},"blockingError":` +
    `{"blockingError":"[./hook0.sh]: lint failed\\n","command":"./hook0.sh"}}`,
    `{"type":"hook_blocking_error",${POST},"blockingError":` +
    `{"blockingError":"Blocked by hook","command":"./hook1.sh"}}`,
  ]);
  const failure = await written("PostToolUseFailure", "Bash", [exited(2)], { sent: CALL });
  assertEquals(
    failure,
    [
      `{"type":"hook_blocking_error",${
        ID("PostToolUseFailure:Bash", "toolu_1", "PostToolUseFailure")
      },"blockingError":{"blockingError":"[./hook0.sh]: No stderr output","command":"./hook0.sh"}}`,
    ],
  );
  assertEquals(
    renderedFor(JSON.parse(failure[0]!)),
    '<system-reminder>\nPostToolUseFailure:Bash hook blocking error from command: "./hook0.sh": ' +
      "[./hook0.sh]: No stderr output\n</system-reminder>",
  );
});

Deno.test("blocking error: a PreToolUse JSON deny leaves its hook_blocking_error, exit 2 leaves nothing", async () => {
  const deny = answered({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "no rm",
    },
  });
  assertEquals(await written("PreToolUse", "Bash", [deny], { sent: CALL }), [
    `{"type":"hook_blocking_error",${BASH},"blockingError":{"blockingError":"no rm","command":"./hook0.sh"}}`,
  ]);
  assertEquals(
    await written("PreToolUse", "Bash", [exited(2, { stderr: "no" })], { sent: CALL }),
    [],
  );
});

Deno.test("non-blocking error: another exit code, and JSON the event rejects, as Claude Code words them", async () => {
  const records = await written("PreToolUse", "Bash", [
    exited(1, { stdout: "half", stderr: "  oops \n" }),
    exited(3),
    answered({ hookSpecificOutput: { hookEventName: "Stop" } }),
  ], { sent: CALL });
  assertEquals(
    records[0],
    `{"type":"hook_non_blocking_error",${BASH},` +
      `"stderr":"Failed with non-blocking status code: oops","stdout":"half","exitCode":1,` +
      `"command":"./hook0.sh","durationMs":5}`,
  );
  assertEquals(
    JSON.parse(records[1]!).stderr,
    "Failed with non-blocking status code: No stderr output",
  );
  const invalid = JSON.parse(records[2]!);
  assertEquals(invalid.type, "hook_non_blocking_error");
  assertEquals(invalid.exitCode, 1);
  assertEquals(invalid.stderr.startsWith("JSON validation failed: "), true, invalid.stderr);
});

Deno.test("non-blocking error: a hook killed by a signal counts as exit code 1, one that cannot start says why", async () => {
  const records = await written("PreToolUse", "Bash", [
    exited(0, { signal: "SIGKILL" }),
    failed("spawn", "No such file"),
  ], { sent: CALL });
  assertEquals(JSON.parse(records[0]!).exitCode, 1);
  assertEquals(JSON.parse(records[1]!).stderr, "Failed to run: No such file");
});

Deno.test("cancelled: a timeout names the deadline in force; PostToolUse writes it again without the hook's facts", async () => {
  const timedOut = failed("timeout", "timed out");
  const pre = await written("PreToolUse", "Bash", [timedOut, failed("cancelled", "cancelled")], {
    sent: CALL,
    registrations: [
      commandRegistration("./hook0.sh", { event: "PreToolUse", order: 0 }),
      {
        ...commandRegistration("./hook1.sh", { event: "PreToolUse", order: 1 }),
        handler: { type: "command", command: "./hook1.sh", timeout: 5 },
      },
    ],
  });
  assertEquals(pre, [
    `{"type":"hook_cancelled",${BASH},"command":"./hook0.sh","durationMs":5,"timedOut":true,"timeoutMs":600000}`,
    `{"type":"hook_cancelled",${BASH},"command":"./hook1.sh","durationMs":5,"timedOut":false,"timeoutMs":5000}`,
  ]);
  assertEquals(await written("PostToolUse", "Bash", [timedOut], { sent: CALL }), [
    `{"type":"hook_cancelled",${POST}}`,
  ]);
});

Deno.test("stopped continuation: PostToolUse's takes the stopping hook's place and ends the firing's records", async () => {
  const records = await written("PostToolUse", "Bash", [
    exited(0, { stdout: "first" }),
    answered({ continue: false, stopReason: "quota" }),
    exited(0),
  ], { sent: CALL });
  assertEquals(records.map((r) => JSON.parse(r).type), [
    "hook_success",
    "hook_stopped_continuation",
  ]);
  assertEquals(records[1], `{"type":"hook_stopped_continuation","message":"quota",${POST}}`);
  const bare = await written("PostToolUse", "Bash", [answered({ continue: false })], {
    sent: CALL,
  });
  assertEquals(JSON.parse(bare[0]!).message, "Execution stopped by PostToolUse hook");
});

Deno.test("stopped continuation: PreToolUse's and PostToolBatch's follow the firing's records, with their own default words", async () => {
  const pre = await written("PreToolUse", "Bash", [answered({ continue: false })], { sent: CALL });
  assertEquals(pre.map((r) => JSON.parse(r).type), ["hook_success", "hook_stopped_continuation"]);
  assertEquals(
    pre[1],
    `{"type":"hook_stopped_continuation","message":"Execution stopped by hook",${BASH}}`,
  );
  const batch = await written("PostToolBatch", null, [answered({ continue: false })]);
  assertEquals(
    batch[1],
    `{"type":"hook_stopped_continuation","message":"Execution stopped by PostToolBatch hook",${
      ID("PostToolBatch", "id1", "PostToolBatch")
    }}`,
  );
});

Deno.test("system message: written after the record of the hook that said it", async () => {
  const records = await written("PreToolUse", "Bash", [answered({ systemMessage: "formatted" })], {
    sent: CALL,
  });
  assertEquals(records.map((r) => JSON.parse(r).type), ["hook_success", "hook_system_message"]);
  assertEquals(records[1], `{"type":"hook_system_message","content":"formatted",${BASH}}`);
  assertEquals(renderedFor(JSON.parse(records[1]!)), null, "the model is never shown it");
});

Deno.test("deferred tool: a PreToolUse defer leaves hook_deferred_tool with the input the hooks left and the permission mode", async () => {
  const defer = answered({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "defer",
      updatedInput: { command: "rm -rf build/tmp" },
    },
  });
  const records = await written("PreToolUse", "Bash", [defer], {
    sent: { ...CALL, permission_mode: "acceptEdits" },
  });
  assertEquals(records.map((r) => JSON.parse(r).type), ["hook_success", "hook_deferred_tool"]);
  assertEquals(
    records[1],
    '{"type":"hook_deferred_tool","toolUseID":"toolu_1","toolName":"Bash",' +
      '"toolInput":{"command":"rm -rf build/tmp"},"hookName":"PreToolUse:Bash",' +
      '"hookEvent":"PreToolUse","permissionMode":"acceptEdits"}',
  );
});

Deno.test("Stop: each hook's record, a continue:false's hook_stopped_continuation, then the summary and the context", async () => {
  const records = await written("Stop", null, [
    answered({ decision: "block", reason: "Say DONE" }),
    exited(2, { stderr: "tests fail" }),
    answered({ continue: false }),
    answered({ hookSpecificOutput: { hookEventName: "Stop", additionalContext: "CI is red" } }),
  ]);
  const STOP = ID("Stop", "id1", "Stop");
  // The exit 2 (hook 1) leaves no attachment: its feedback is the user message the model reads.
  assertEquals(records.map((r) => r.startsWith("{") ? JSON.parse(r).type : r), [
    "hook_blocking_error",
    "hook_stopped_continuation",
    "hook_success",
    "hook_success",
    "stop_hook_summary",
    "hook_additional_context",
  ]);
  assertEquals(
    records[0],
    `{"type":"hook_blocking_error",${STOP},"blockingError":{"blockingError":"Say DONE","command":"./hook0.sh"}}`,
  );
  assertEquals(
    records[1],
    `{"type":"hook_stopped_continuation","message":"Stop hook prevented continuation",${STOP}}`,
  );
  assertEquals(
    records[5],
    `{"type":"hook_additional_context","content":["CI is red"],${ID("Stop", "hook-id2", "Stop")}}`,
  );
});

Deno.test("Stop: the summary lists the blocks' reasons and the errors' stderr in chain order", async () => {
  const firing = await fire("Stop", null, [
    exited(1, { stderr: "oops" }),
    exited(2, { stderr: "tests fail" }),
    answered({ continue: false, stopReason: "enough" }),
  ]);
  const [summary] = firingRecords(firing, undefined, () => "id").filter((r) =>
    r.kind === "stop_summary"
  );
  assertEquals(summary?.kind === "stop_summary" ? summary.summary : null, {
    hookInfos: [
      { command: "./hook0.sh", durationMs: 5 },
      { command: "./hook1.sh", durationMs: 5 },
      { command: "./hook2.sh", durationMs: 5 },
    ],
    hookErrors: ["Failed with non-blocking status code: oops", "[./hook1.sh]: tests fail"],
    failedHookErrorIndexes: [0],
    preventedContinuation: true,
    stopReason: "enough",
    hasOutput: true,
    toolUseID: "id",
  });
});

Deno.test("http and prompt hooks: named by url and prompt; no timing for http, no streams for a prompt", async () => {
  const records = await written("PreToolUse", "Bash", [
    http(200, '{"systemMessage":"seen"}'),
    http(503),
    evaluated(true),
  ], {
    sent: CALL,
    registrations: [
      httpRegistration("http://127.0.0.1:9/hook", { event: "PreToolUse", order: 0 }),
      httpRegistration("http://127.0.0.1:9/hook", { event: "PreToolUse", order: 1 }),
      promptRegistration("Is this safe?", { event: "PreToolUse", order: 2 }),
    ],
  });
  assertEquals(records, [
    `{"type":"hook_success",${BASH},"content":"","stdout":"{\\"systemMessage\\":\\"seen\\"}",` +
    `"stderr":"","exitCode":200,"command":"http://127.0.0.1:9/hook"}`,
    `{"type":"hook_system_message","content":"seen",${BASH}}`,
    `{"type":"hook_non_blocking_error",${BASH},"stderr":"HTTP 503 from http://127.0.0.1:9/hook",` +
    `"stdout":"","exitCode":503}`,
    `{"type":"hook_success",${BASH},"content":"","command":"Is this safe?","durationMs":5}`,
  ]);
});

Deno.test("events Claude Code records nothing of: PermissionRequest, Notification, SessionEnd, the compaction hooks", async () => {
  for (const event of FIRED_EVENTS) {
    const silent = ["PermissionRequest", "Notification", "SessionEnd", "PreCompact", "PostCompact"]
      .includes(event);
    const records = await written(event, null, [exited(0, { stdout: "said" }), exited(1)], {
      sent: CALL,
    });
    assertEquals(records.length === 0, silent, event);
    assertEquals(HOOK_RECORDS[event].runs === "none", silent, event);
  }
});

Deno.test("rendered: what the model is shown of a record, as Claude Code renders it", () => {
  const id = { hookName: "UserPromptSubmit", toolUseID: "x", hookEvent: "UserPromptSubmit" };
  assertEquals(
    renderedFor({
      type: "hook_success",
      ...id,
      content: "BRANCH",
      stdout: "BRANCH\n",
      stderr: "",
      exitCode: 0,
    }),
    "<system-reminder>\nUserPromptSubmit hook success: BRANCH\n</system-reminder>",
  );
  assertEquals(
    renderedFor({ type: "hook_stopped_continuation", message: "quota", ...id }),
    "<system-reminder>\nUserPromptSubmit hook stopped continuation: quota\n</system-reminder>",
  );
  const post = { hookName: "PostToolUse:Bash", toolUseID: "x", hookEvent: "PostToolUse" };
  assertEquals(renderedFor({ type: "hook_success", ...post, content: "out" }), null);
  assertEquals(renderedFor({ type: "hook_cancelled", ...post }), null);
});

Deno.test("a hook's statusMessage names it in its records; an exit 2's block still quotes its command", async () => {
  const named = (order: number): Registration => ({
    ...commandRegistration(`./hook${order}.sh`, { event: "PostToolUse", order }),
    handler: { type: "command", command: `./hook${order}.sh`, statusMessage: "Linting" },
  });
  const records = await written("PostToolUse", "Bash", [exited(0), exited(2, { stderr: "no" })], {
    sent: CALL,
    registrations: [named(0), named(1)],
  });
  assertEquals(JSON.parse(records[0]!).command, "Linting");
  assertEquals(JSON.parse(records[1]!).blockingError, {
    blockingError: "[./hook1.sh]: no",
    command: "./hook1.sh",
  });
});
