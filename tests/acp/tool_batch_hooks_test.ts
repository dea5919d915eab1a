/**
 * PostToolBatch in the `claude` profile: once per model reply that called tools, after all its
 * calls have results and before the model is called again, with every call of the batch (one
 * refused before any hook too: claude-compat.md §0.2). In the default profile it never fires.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { GenerateRequest, RequestedToolCall } from "../../src/model/model.ts";
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { reply, type Step, steppedModel } from "./fake_models.ts";
import { logging, printing, readLog, seen, settings } from "./hook_fixtures.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

const text = (t: string): ContentBlock[] => [{ type: "text", text: t }];

/** One model reply asking for all of `calls` at once. */
function batch(calls: readonly RequestedToolCall[]): Step {
  return () => ({
    text: "",
    thought: "",
    toolCalls: calls,
    stop: "tool_calls",
    tokens: { prompt: 1, evaluated: 1, generated: 1 },
  });
}

/** A model that makes these batches, one per reply, then answers; `requests` gets each request. */
function batches(list: readonly (readonly RequestedToolCall[])[], requests: GenerateRequest[]) {
  return steppedModel([
    ...list.map((calls) => (r: GenerateRequest) => (requests.push(r), batch(calls)(r))),
    (r: GenerateRequest) => (requests.push(r), reply("done")(r)),
  ]);
}

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
    assertEquals(Object.keys(first!), [
      "session_id",
      "transcript_path",
      "cwd",
      "prompt_id",
      "permission_mode",
      "effort",
      "hook_event_name",
      "tool_calls",
    ]);
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

Deno.test("PostToolBatch additionalContext reaches the model before its next call", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: project(batchHook({
      hookSpecificOutput: { hookEventName: "PostToolBatch", additionalContext: "run the tests" },
    })),
    model: batches([TWO_CALLS], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertStringIncludes(
      seen(requests[1]!),
      "<system-reminder>\nPostToolBatch hook additional context: run the tests\n</system-reminder>",
    );
  });
});

Deno.test("PostToolBatch decision block feeds its reason to the model", async () => {
  const requests: GenerateRequest[] = [];
  const command = batchHook({ decision: "block", reason: "too many calls at once" });
  await withInMemoryAgent({
    profile: "claude",
    files: project(command),
    model: batches([TWO_CALLS], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    assertStringIncludes(
      seen(requests[1]!),
      `PostToolBatch hook blocking error from command: "${command}": too many calls at once`,
    );
  });
});

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
