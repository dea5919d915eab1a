/**
 * The Claude-format transcript (claude-compat.md §8): where it lives, the exact shape and key
 * order of each record, the one `parentUuid` chain (continued when the file is opened again), a
 * private file, and a session that goes on when the file cannot be written.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { ClaudeTranscript } from "../../src/agent/transcript/claude_transcript.ts";
import { claudeTranscriptPathFor } from "../../src/agent/transcript/claude_transcript_path.ts";
import {
  errorToolUseResult,
  toolResultBlock,
} from "../../src/agent/transcript/claude_transcript_records.ts";
import type { FiredEventName } from "../../src/hooks/event_table.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import { fireHooks, type HookFiring } from "../../src/hooks/hook_engine.ts";
import { answered, commandRegistration, exited } from "../hooks/registration_fixture.ts";
import { withTempDir } from "./temp_dir.ts";

const TIME = "2026-12-01T09:14:52.851Z";
const TAIL = {
  userType: "external",
  entrypoint: "sdk-cli",
  cwd: "/work/proj",
  sessionId: "s-1",
  version: "1.2.3",
};

/** A transcript with a pinned clock and uuids `u1`, `u2`, ... */
async function openTranscript(path: string, logs: string[] = [], first = 1) {
  let n = first - 1;
  const transcript = new ClaudeTranscript({
    path,
    cwd: "/work/proj",
    sessionId: "s-1",
    version: "1.2.3",
    log: (line) => logs.push(line),
    now: () => new Date(TIME),
    newUuid: () => `u${++n}`,
  });
  await transcript.open();
  return transcript;
}

async function lines(path: string): Promise<string[]> {
  return (await Deno.readTextFile(path)).trimEnd().split("\n");
}

Deno.test("a turn with tool calls is written as Claude Code writes it: each record's keys in order, one chain", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/t.jsonl`;
    const t = await openTranscript(path);
    t.prompt({
      promptId: "p-1",
      text: "read a.txt",
      permissionMode: "default",
    });
    const tokens = { prompt: 120, evaluated: 100, generated: 7 };
    t.reply({ model: "m.gguf", text: "Looking.", stop: "tool_calls", calledTools: true, tokens });
    t.toolUse({ id: "call_1", name: "Read", input: { file_path: "a.txt" } });
    t.toolResult({
      promptId: "p-1",
      toolUseId: "call_1",
      content: "1\thello",
      failed: false,
      flagsSuccess: false,
      toolResponse: { type: "text", file: { filePath: "/work/proj/a.txt" } },
    });
    t.reply({ model: "m.gguf", text: "done", stop: "end", calledTools: false, tokens });
    t.endTurn();
    await t.close();

    const message = (id: string, block: unknown, stopReason: string) => ({
      id: `msg_${id}`,
      type: "message",
      role: "assistant",
      model: "m.gguf",
      content: [block],
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 7 },
    });
    const expected = [
      {
        parentUuid: null,
        isSidechain: false,
        promptId: "p-1",
        type: "user",
        message: { role: "user", content: "read a.txt" },
        uuid: "u1",
        timestamp: TIME,
        permissionMode: "default",
        ...TAIL,
      },
      {
        parentUuid: "u1",
        isSidechain: false,
        message: message("u2", { type: "text", text: "Looking." }, "tool_use"),
        requestId: "req_u2",
        type: "assistant",
        uuid: "u3",
        timestamp: TIME,
        ...TAIL,
      },
      {
        parentUuid: "u3",
        isSidechain: false,
        message: message(
          "u2",
          { type: "tool_use", id: "call_1", name: "Read", input: { file_path: "a.txt" } },
          "tool_use",
        ),
        requestId: "req_u2",
        type: "assistant",
        uuid: "u4",
        timestamp: TIME,
        ...TAIL,
      },
      {
        parentUuid: "u4",
        isSidechain: false,
        promptId: "p-1",
        type: "user",
        message: {
          role: "user",
          content: [{ tool_use_id: "call_1", type: "tool_result", content: "1\thello" }],
        },
        uuid: "u5",
        timestamp: TIME,
        toolUseResult: { type: "text", file: { filePath: "/work/proj/a.txt" } },
        sourceToolAssistantUUID: "u4",
        ...TAIL,
      },
      {
        parentUuid: "u5",
        isSidechain: false,
        message: message("u6", { type: "text", text: "done" }, "end_turn"),
        requestId: "req_u6",
        type: "assistant",
        uuid: "u7",
        timestamp: TIME,
        ...TAIL,
      },
      { type: "last-prompt", lastPrompt: "read a.txt", leafUuid: "u7", sessionId: "s-1" },
    ];
    // Compared as text: JSON keeps key order, which a deep-equal would not check.
    assertEquals(await lines(path), expected.map((record) => JSON.stringify(record)));
  });
});

Deno.test("result blocks: a file tool's success has no is_error, Bash's has false, an error leads with type", () => {
  assertEquals(
    JSON.stringify(toolResultBlock("call_1", "ok", "success")),
    '{"tool_use_id":"call_1","type":"tool_result","content":"ok"}',
  );
  assertEquals(
    JSON.stringify(toolResultBlock("call_1", "ok", "flagged_success")),
    '{"tool_use_id":"call_1","type":"tool_result","content":"ok","is_error":false}',
  );
  assertEquals(
    JSON.stringify(toolResultBlock("call_1", "no", "error")),
    '{"type":"tool_result","content":"no","is_error":true,"tool_use_id":"call_1"}',
  );
});

Deno.test('a failed call\'s toolUseResult is "Error: <message>", without the tool_use_error wrapper', async () => {
  assertEquals(
    errorToolUseResult("<tool_use_error>String to replace not found in file.</tool_use_error>"),
    "Error: String to replace not found in file.",
  );
  assertEquals(errorToolUseResult("Exit code 1"), "Error: Exit code 1");
  assertEquals(
    errorToolUseResult("<tool_use_error>Error: No such tool available: LS</tool_use_error>"),
    "Error: No such tool available: LS",
  );
  await withTempDir({}, async (dir) => {
    const t = await openTranscript(`${dir}/t.jsonl`);
    t.reply({
      model: "m",
      text: "",
      stop: "tool_calls",
      calledTools: true,
      tokens: { prompt: 1, evaluated: 1, generated: 1 },
    });
    t.toolUse({ id: "call_1", name: "Bash", input: { command: "false" } });
    t.toolResult({
      promptId: "p",
      toolUseId: "call_1",
      content: "Exit code 1",
      failed: true,
      flagsSuccess: true,
      toolResponse: { stdout: "" },
    });
    await t.close();
    const [toolUse, result] = (await lines(t.path)).map((l) => JSON.parse(l));
    assertEquals(toolUse.message.content[0].type, "tool_use", "an empty text writes no text block");
    assertEquals(result.message.content, [
      { type: "tool_result", content: "Exit code 1", is_error: true, tool_use_id: "call_1" },
    ]);
    assertEquals(result.toolUseResult, "Error: Exit code 1");
  });
});

Deno.test("a transcript opened again goes on from its last chained record, not from bookkeeping", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/t.jsonl`;
    const first = await openTranscript(path);
    first.prompt({ promptId: "p-1", text: "one", permissionMode: "default" });
    first.endTurn();
    await first.close();
    const second = await openTranscript(path, [], 10);
    second.prompt({ promptId: "p-2", text: "two", permissionMode: "default" });
    await second.close();
    const records = (await lines(path)).map((l) => JSON.parse(l));
    assertEquals(records.map((r) => [r.type, r.uuid, r.parentUuid]), [
      ["user", "u1", null],
      ["last-prompt", undefined, undefined],
      ["user", "u10", "u1"],
    ]);
  });
});

Deno.test("the transcript is 0600 and the directories made for it 0700", async () => {
  await withTempDir({}, async (dir) => {
    const path = claudeTranscriptPathFor(`${dir}/home`, "/work/proj", "s-1");
    const t = await openTranscript(path);
    await t.close();
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600);
    assertEquals((await Deno.stat(`${dir}/home/.claude/projects/-work-proj`)).mode! & 0o777, 0o700);
    assertEquals((await Deno.stat(`${dir}/home/.claude`)).mode! & 0o777, 0o700);
  });
});

Deno.test("a transcript that cannot be opened is logged once and records are dropped without a throw", async () => {
  await withTempDir({ "file.txt": "a regular file" }, async (dir) => {
    const logs: string[] = [];
    const t = await openTranscript(`${dir}/file.txt/projects/t.jsonl`, logs);
    t.prompt({ promptId: "p", text: "hi", permissionMode: "default" });
    t.endTurn();
    await t.flush();
    await t.close();
    assertEquals(logs.length, 1);
    assertStringIncludes(logs[0]!, `Cannot open the Claude-format transcript "${dir}/file.txt`);
  });
});

/** One firing of `event` whose hooks answer `results`, in order. */
function firing(
  event: FiredEventName,
  matcherValue: string | null,
  results: readonly HandlerResult[],
): Promise<HookFiring> {
  const registrations = results.map((_, order) =>
    commandRegistration(`./hook${order}.sh ${event}`, { event, order })
  );
  return fireHooks({
    event,
    matcherValue,
    payload: { hook_event_name: event },
    registrations,
    runHandler: (registration) => Promise.resolve(results[registration.order]!),
    context: { event, cwd: "/work/proj", sessionId: "s-1" },
  });
}

/** What a tool event's hooks were sent, as far as the transcript reads it. */
const CALL_1 = { permission_mode: "default", tool_input: { command: "ls" }, tool_use_id: "call_1" };

async function recorded(fire: (t: ClaudeTranscript) => Promise<void>) {
  return await withTempDir({}, async (dir) => {
    const t = await openTranscript(`${dir}/t.jsonl`);
    await fire(t);
    await t.close();
    const text = await Deno.readTextFile(t.path);
    return text === "" ? [] : text.trimEnd().split("\n");
  });
}

Deno.test("a SessionStart hook's plain stdout is a hook_success the model was shown (rendered)", async () => {
  const written = await recorded(async (t) =>
    t.recordFiring(
      await firing("SessionStart", "startup", [exited(0, { stdout: "CTX\n" })]),
      undefined,
    )
  );
  assertEquals(written, [
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      attachment: {
        type: "hook_success",
        hookName: "SessionStart:startup",
        toolUseID: "u1",
        hookEvent: "SessionStart",
        content: "CTX",
        stdout: "CTX\n",
        stderr: "",
        exitCode: 0,
        command: "./hook0.sh SessionStart",
        durationMs: 5,
      },
      type: "attachment",
      uuid: "u2",
      timestamp: TIME,
      rendered: [
        {
          content: "<system-reminder>\nSessionStart:startup hook success: CTX\n</system-reminder>",
        },
      ],
      renderedRole: "system",
      ...TAIL,
    }),
  ]);
});

Deno.test("a PostToolUse hook's JSON context: hook_success with empty content, then hook_additional_context", async () => {
  const output = { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "ADD" } };
  const written = await recorded(async (t) =>
    t.recordFiring(await firing("PostToolUse", "Bash", [answered(output)]), CALL_1)
  );
  const [success, context] = written.map((l) => JSON.parse(l));
  assertEquals(success.attachment.content, "");
  assertEquals(success.attachment.stdout, JSON.stringify(output) + "\n");
  assertEquals(success.attachment.toolUseID, "call_1");
  assertEquals("rendered" in success, false, "the model is not shown a JSON answer");
  assertEquals(
    JSON.stringify(context.attachment),
    '{"type":"hook_additional_context","content":["ADD"],"hookName":"PostToolUse:Bash",' +
      '"toolUseID":"call_1","hookEvent":"PostToolUse"}',
  );
  assertEquals(context.rendered, [
    {
      content:
        "<system-reminder>\nPostToolUse:Bash hook additional context: ADD\n</system-reminder>",
    },
  ]);
  assertEquals(context.parentUuid, success.uuid);
});

Deno.test("a hook that exits 0 silently still leaves its hook_success; a firing with no hooks writes nothing", async () => {
  const written = await recorded(async (t) => {
    t.recordFiring(await firing("PreToolUse", "Bash", [exited(0)]), CALL_1);
    t.recordFiring(await firing("PreToolUse", "Bash", []), CALL_1);
  });
  assertEquals(written.map((line) => JSON.parse(line).attachment.type), ["hook_success"]);
});

Deno.test("PermissionRequest hooks leave no record, whatever they answer", async () => {
  const written = await recorded(async (t) =>
    t.recordFiring(
      await firing("PermissionRequest", "Bash", [
        exited(0, { stdout: "noted" }),
        exited(2, { stderr: "no" }),
      ]),
      CALL_1,
    )
  );
  assertEquals(written, []);
});

Deno.test("a blocking PostToolUse hook leaves a hook_blocking_error the model was shown, no hook_success", async () => {
  const written = await recorded(async (t) =>
    t.recordFiring(
      await firing("PostToolUse", "Bash", [answered({ decision: "block", reason: "Fix lint" })]),
      CALL_1,
    )
  );
  assertEquals(written.length, 1);
  const record = JSON.parse(written[0]!);
  assertEquals(record.attachment, {
    type: "hook_blocking_error",
    hookName: "PostToolUse:Bash",
    toolUseID: "call_1",
    hookEvent: "PostToolUse",
    blockingError: { blockingError: "Fix lint", command: "./hook0.sh PostToolUse" },
  });
  assertEquals(record.rendered, [{
    content: "<system-reminder>\nPostToolUse:Bash hook blocking error from command: " +
      '"./hook0.sh PostToolUse": Fix lint\n</system-reminder>',
  }]);
  assertEquals(record.renderedRole, "system");
});

Deno.test("a Stop firing: each hook's record, then the stop_hook_summary with the blocks' reasons and the errors", async () => {
  const written = await recorded(async (t) =>
    t.recordFiring(
      await firing("Stop", null, [
        answered({ decision: "block", reason: "Say DONE" }),
        exited(1, { stderr: "oops" }),
      ]),
      undefined,
    )
  );
  const [block, error] = written.map((line) => JSON.parse(line).attachment);
  assertEquals([block.type, block.toolUseID], ["hook_blocking_error", "u1"]);
  assertEquals([error.type, error.toolUseID], ["hook_non_blocking_error", "u1"]);
  assertEquals(
    written[2],
    JSON.stringify({
      parentUuid: "u3",
      isSidechain: false,
      type: "system",
      subtype: "stop_hook_summary",
      hookCount: 2,
      hookInfos: [
        { command: "./hook0.sh Stop", durationMs: 5 },
        { command: "./hook1.sh Stop", durationMs: 5 },
      ],
      hookErrors: ["Say DONE", "Failed with non-blocking status code: oops"],
      failedHookErrorIndexes: [1],
      hookAdditionalContext: [],
      preventedContinuation: false,
      stopReason: "",
      hasOutput: true,
      level: "suggestion",
      timestamp: TIME,
      uuid: "u4",
      toolUseID: "u1",
      ...TAIL,
    }),
  );
  assertEquals(written.length, 3);
});

Deno.test("a UserPromptSubmit hook's records follow the prompt, which holds only what was typed", async () => {
  const written = await recorded(async (t) => {
    t.recordFiring(
      await firing("UserPromptSubmit", null, [exited(0, { stdout: "CTX\n" })]),
      undefined,
    );
    t.prompt({ promptId: "p", text: "hi", permissionMode: "default" });
  });
  const [prompt, hook] = written.map((line) => JSON.parse(line));
  assertEquals(written.length, 2);
  assertEquals(prompt.message, { role: "user", content: "hi" });
  assertEquals(hook.attachment.type, "hook_success");
  assertEquals(hook.parentUuid, prompt.uuid);
});

Deno.test("the hooks' records of a refused prompt are not written, nor carried to the next prompt", async () => {
  const written = await recorded(async (t) => {
    t.recordFiring(
      await firing("UserPromptSubmit", null, [exited(0, { stdout: "REFUSED\n" })]),
      undefined,
    );
    t.endTurn();
    t.prompt({ promptId: "p-2", text: "next", permissionMode: "default" });
  });
  assertEquals(written.map((line) => JSON.parse(line).type), ["user"]);
});
