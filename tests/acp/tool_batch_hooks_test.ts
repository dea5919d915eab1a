/**
 * PostToolBatch in the `claude` profile: once per model reply that called tools, after all its
 * calls have results and before the model is called again, with every call of the batch (one
 * refused before any hook too: claude-compat.md §0.2). In the default profile it never fires.
 */
import type { GenerateRequest, RequestedToolCall } from "../../src/model/model.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { reply } from "./fake_models.ts";
import {
  batch,
  batches,
  cancelWhileHanging,
  CLAUDE_TURN_KEYS,
  exists,
  hangingHook,
  recordingModel,
  sleepMarker,
  text,
} from "./claude_session_fixture.ts";
import { logging, printing, readLog, seen, settings } from "./hook_fixtures.ts";
import { noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";

const TWO_CALLS: readonly RequestedToolCall[] = [
  { name: "Bash", input: { command: "echo hi", description: "greet" } },
  // No such tool in Claude Code 2.1.332: refused before any hook, so only PostToolBatch sees it.
  { name: "MultiEdit", input: { file_path: "notes.txt", edits: [] } },
];

function project(command: string) {
  return {
    ".claude/settings.json": settings({
      PostToolBatch: [[null, command]],
      PreToolUse: [[null, logging("pre.log")]],
    }),
  };
}

const batchHook = (json: unknown) => `${logging("batch.log")}; ${printing(json)}`;

/** The tool results the model was given on `request`, in order. */
function resultsSeen(request: GenerateRequest): string[] {
  return request.conversation.flatMap((item) =>
    item.role === "assistant"
      ? item.segments.flatMap((s) => s.type === "tool_call" ? [s.result] : [])
      : []
  );
}

Deno.test("PostToolBatch fires once per batch, with every call of it, a validation failure included", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: project(logging("batch.log")),
    model: batches([TWO_CALLS, [{ name: "Bash", input: { command: "echo again" } }]], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const [first, second, ...more] = await readLog(`${t.cwd}/batch.log`);
    assertEquals(more, []);
    assertEquals(Object.keys(first!), [...CLAUDE_TURN_KEYS, "tool_calls"]);
    assertEquals(first!.hook_event_name, "PostToolBatch");
    const calls = first!.tool_calls as Record<string, unknown>[];
    assertEquals(calls.map((call) => Object.keys(call)), [
      ["tool_name", "tool_input", "tool_use_id", "tool_response"],
      ["tool_name", "tool_input", "tool_use_id", "tool_response"],
    ]);
    assertEquals(calls.map((call) => [call.tool_name, call.tool_input, call.tool_use_id]), [
      ["Bash", { command: "echo hi", description: "greet" }, "call_1"],
      ["MultiEdit", { file_path: "notes.txt", edits: [] }, "call_2"],
    ]);
    assertEquals(calls.map((call) => call.tool_response), resultsSeen(requests[1]!));
    assertStringIncludes(String(calls[1]!.tool_response), "No such tool available: MultiEdit");
    assertEquals(
      (second!.tool_calls as Record<string, unknown>[]).map((call) => call.tool_use_id),
      ["call_3"],
    );
    assertEquals(
      (await readLog(`${t.cwd}/pre.log`)).map((pre) => pre.tool_use_id),
      ["call_1", "call_3"],
      "the refused call fired no PreToolUse",
    );
  });
});

Deno.test("PostToolBatch tool_input is the input as Claude Code echoes it: Edit's replace_all first, Bash's keys in its order, a relative Read path kept", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: { ...project(logging("batch.log")), "notes.txt": "alpha\nbeta\n" },
    model: batches([[
      { name: "Edit", input: { file_path: "notes.txt", old_string: "beta", new_string: "BETA" } },
      {
        name: "Bash",
        input: { command: "sleep 0.1; echo slow", timeout: 5000, description: "slow" },
      },
      { name: "Read", input: { file_path: "notes.txt" } },
    ]]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const [payload] = await readLog(`${t.cwd}/batch.log`);
    const inputs = (payload!.tool_calls as Record<string, unknown>[]).map((call) =>
      JSON.stringify(call.tool_input)
    );
    assertEquals(inputs, [
      '{"replace_all":false,"file_path":"notes.txt","old_string":"beta","new_string":"BETA"}',
      '{"command":"sleep 0.1; echo slow","description":"slow","timeout":5000}',
      '{"file_path":"notes.txt"}',
    ]);
    // Pre- and PostToolUse still see the parsed input: the default last, the path absolute.
    const [edit] = await readLog(`${t.cwd}/pre.log`);
    assertEquals(
      JSON.stringify(edit!.tool_input),
      `{"file_path":"${t.cwd}/notes.txt","old_string":"beta","new_string":"BETA",` +
        '"replace_all":false}',
    );
  });
});

const CONTEXT_REMINDER =
  "<system-reminder>\nPostToolBatch hook additional context: run the tests\n</system-reminder>";

const withContext = batchHook({
  hookSpecificOutput: { hookEventName: "PostToolBatch", additionalContext: "run the tests" },
});

Deno.test("PostToolBatch additionalContext is read inside the batch's last tool result, not as a message of its own", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: project(withContext),
    model: batches([TWO_CALLS], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const [fired] = await readLog(`${t.cwd}/batch.log`);
    const given = (fired!.tool_calls as Record<string, unknown>[]).map((c) => c.tool_response);
    // The first result as the tool gave it; the last with the context after a blank line.
    assertEquals(resultsSeen(requests[1]!), [given[0], `${given[1]}\n\n${CONTEXT_REMINDER}`]);
    const roles = requests[1]!.conversation.map((item) => item.role);
    assertEquals(roles.slice(-2), ["user", "assistant"], "no message after the results");
  });
});

Deno.test("PostToolBatch additionalContext stays inside the result when the session is loaded again", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: project(withContext),
    model: recordingModel([batch(TWO_CALLS), reply("done"), reply("again")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    await t.agent.request("session/close", { sessionId });
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    await t.agent.request("session/prompt", { sessionId, prompt: text("more") });
    const live = requests[1]!.conversation.at(-1);
    const loaded = requests[2]!.conversation.at(-2);
    assert(live?.role === "assistant" && loaded?.role === "assistant");
    assertEquals(loaded.segments.slice(0, 2), live.segments);
    assertEquals(resultsSeen(requests[2]!).at(-1)?.endsWith(`\n\n${CONTEXT_REMINDER}`), true);
  });
});

for (
  const [how, hook, reason] of [
    [
      'decision:"block"',
      batchHook({ decision: "block", reason: "too many calls at once" }),
      "too many calls at once",
    ],
    ["exit 2", "echo 'too many calls at once' >&2; exit 2", null],
  ] as const
) {
  Deno.test(`PostToolBatch ${how} ends the turn as Claude Code does: no further model call, no Stop hook`, async () => {
    const requests: GenerateRequest[] = [];
    await withInMemoryAgent({
      profile: "claude",
      files: {
        ".claude/settings.json": settings({
          PostToolBatch: [[null, hook]],
          Stop: [[null, logging("stop.log")]],
        }),
      },
      model: batches([TWO_CALLS], requests),
    }, async (t) => {
      const sessionId = await t.newSession();
      const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
      assertEquals(response.stopReason, "end_turn");
      assertEquals(requests.length, 1, "the model is not called again");
      assertEquals(await readLog(`${t.cwd}/stop.log`), [], "no Stop hook fired");
      const quoted = reason ?? `[${hook}]: too many calls at once`;
      assertEquals(response._meta?.hook_stop_reason, quoted);
      assertEquals(noticesOf(t.updates, sessionId), [
        `PostToolBatch hook blocking error from command: "${hook}": ${quoted}`,
      ]);
      // The next prompt starts from the batch's results as they were, with nothing added.
      await t.agent.request("session/prompt", { sessionId, prompt: text("go on") });
      assertEquals(seen(requests[1]!).includes("too many calls at once"), false);
    });
  });
}

Deno.test("PostToolBatch continue:false ends the turn before the next model call", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: project(batchHook({ continue: false, stopReason: "enough for now" })),
    model: batches([TWO_CALLS], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(response._meta?.hook_stop_reason, "enough for now");
    assertEquals(requests.length, 1, "the model is not called again");
  });
});

Deno.test("PostToolBatch does not fire for a batch a hook's stop cut short", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": settings({
        PostToolBatch: [[null, logging("batch.log")]],
        PostToolUse: [[null, printing({ continue: false, stopReason: "halt" })]],
      }),
    },
    model: batches([TWO_CALLS], []),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response._meta?.hook_stop_reason, "halt");
    assertEquals(await readLog(`${t.cwd}/batch.log`), []);
  });
});

Deno.test("PostToolBatch has every call a hook refused: a PreToolUse deny, a PermissionRequest deny, an unknown tool, each with what the model read", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": settings({
        PreToolUse: [[
          "Write",
          printing({
            hookSpecificOutput: {
              hookEventName: "PreToolUse",
              permissionDecision: "deny",
              permissionDecisionReason: "no writes today",
            },
          }),
        ]],
        PermissionRequest: [[
          "Bash",
          printing({
            hookSpecificOutput: {
              hookEventName: "PermissionRequest",
              decision: { behavior: "deny", message: "no shell today" },
            },
          }),
        ]],
        PostToolBatch: [[null, logging("batch.log")]],
      }),
    },
    model: batches([[
      { name: "Write", input: { file_path: "out.txt", content: "x" } },
      { name: "Bash", input: { command: "touch ran.txt" } },
      { name: "MultiEdit", input: { file_path: "notes.txt", edits: [] } },
    ]], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const [only, ...more] = await readLog(`${t.cwd}/batch.log`);
    assertEquals(more, []);
    const calls = only!.tool_calls as Record<string, unknown>[];
    assertEquals(calls.map((call) => [call.tool_name, call.tool_use_id]), [
      ["Write", "call_1"],
      ["Bash", "call_2"],
      ["MultiEdit", "call_3"],
    ]);
    assertEquals(calls.map((call) => call.tool_response), resultsSeen(requests[1]!));
    for (const [index, why] of ["no writes today", "no shell today", "No such tool"].entries()) {
      assertStringIncludes(String(calls[index]!.tool_response), why);
    }
    assertEquals(t.permissionRequests.length, 0, "the client is never asked");
    assertEquals([await exists(`${t.cwd}/out.txt`), await exists(`${t.cwd}/ran.txt`)], [
      false,
      false,
    ]);
  });
});

Deno.test("cancel while a PostToolBatch hook runs: the hook is killed, the turn ends cancelled, the model is not called again", async () => {
  const requests: GenerateRequest[] = [];
  const marker = sleepMarker(30);
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ...project(hangingHook(marker)),
      "notes.txt": "hello\n",
    },
    model: batches([[{ name: "Read", input: { file_path: "notes.txt" } }]], requests),
  }, async (t) => {
    await cancelWhileHanging(t, marker);
    assertEquals(requests.length, 1, "the model is not called again");
  });
});

Deno.test("llama profile: PostToolBatch never fires", async () => {
  await withInMemoryAgent({
    files: project(logging("batch.log")),
    model: batches([[{ name: "shell", input: { command: "echo hi" } }]], []),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals((await readLog(`${t.cwd}/pre.log`)).length, 1, "the call ran through hooks");
    assertEquals(await readLog(`${t.cwd}/batch.log`), []);
  });
});
