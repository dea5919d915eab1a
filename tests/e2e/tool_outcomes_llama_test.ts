/**
 * Tool hook outcomes as Claude Code 2.1.332 has them (hooks.md §12.3–§12.5) on the real llama
 * path: generated GGUF models through node-llama-cpp, real hook scripts, real stdio. What the
 * model received is read from the transcript (a `tool_call` record's `result`).
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import { WRITE_OUT, writeToolCallModel } from "../helpers/test_models.ts";
import { allowAndRecord, reminder, textPrompt as text } from "./e2e_project.ts";
import {
  exists,
  finalUpdateOf,
  group,
  hook,
  metaOf,
  modelTextOf,
  readTranscript,
  runsOf,
  toolCallRecord,
  withHookProject,
} from "./hook_project.ts";

const preToolUse = (fields: JsonObject) => ({
  hookSpecificOutput: { hookEventName: "PreToolUse", ...fields },
});
const postToolUse = (fields: JsonObject) => ({
  hookSpecificOutput: { hookEventName: "PostToolUse", ...fields },
});

Deno.test("llama: a PreToolUse deny with additionalContext: the model reads the deny, then the context", async () => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", {
      settings: { hooks: { PreToolUse: [group("fs_write", hook("pre_deny"))] } },
      replies: {
        pre_deny: {
          out: preToolUse({
            permissionDecision: "deny",
            permissionDecisionReason: "no writes to out.txt",
            additionalContext: "write drafts/out.txt instead",
          }),
        },
      },
    });
    const agent = await p.startAgent(await writeToolCallModel(p.models, WRITE_OUT));
    const sessionId = await p.newSessionIn(agent, dir);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("write out.txt"),
    }) as JsonObject;

    assertEquals(await exists(`${dir}/out.txt`), false);
    const records = await readTranscript(p.home, sessionId);
    assertEquals(
      toolCallRecord(records, "call_1").result,
      "PreToolUse:fs_write hook error: no writes to out.txt\n\n" +
        reminder("PreToolUse:fs_write hook additional context: write drafts/out.txt instead"),
    );
    const final = finalUpdateOf(agent, sessionId, "call_1");
    assertEquals(final.status, "failed");
    assert(!JSON.stringify(final.content).includes("drafts/"), "the context is the model's");
    assertEquals(result.stopReason, "end_turn");
    assertEquals(modelTextOf(agent, sessionId), WRITE_OUT.answer, "the turn went on");
    await agent.close();
  });
});

Deno.test("llama: a PreToolUse defer holds the shell call and ends the turn: no Post or Stop hook, no answer", async () => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", {
      settings: {
        hooks: {
          PreToolUse: [group("shell", hook("pre_defer"))],
          PostToolUse: [group(undefined, hook("after"))],
          PostToolUseFailure: [group(undefined, hook("after"))],
          Stop: [group(undefined, hook("after"))],
        },
      },
      replies: { pre_defer: { out: preToolUse({ permissionDecision: "defer" }) } },
    });
    const model = await writeToolCallModel(p.models, {
      toolName: "shell",
      params: { command: "touch deferred.txt" },
      answer: "I touched the file.",
    });
    const agent = await p.startAgent(model);
    const asked = allowAndRecord(agent);
    const sessionId = await p.newSessionIn(agent, dir);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("touch it"),
    }) as JsonObject;

    assertEquals(result.stopReason, "end_turn");
    assertEquals(metaOf(result).hook_stop_reason, "tool_deferred");
    assertEquals(await exists(`${dir}/deferred.txt`), false, "the call never ran");
    assertEquals(await runsOf(dir, "after"), [], "no Post hook, no Stop hook");
    assertEquals(asked.get(sessionId), undefined, "a deferred call asks nobody");
    assertEquals(modelTextOf(agent, sessionId), "", "the model was not called again");
    const deferred = "The shell call was deferred by a hook: it was not run, and the turn ended";
    const final = finalUpdateOf(agent, sessionId, "call_1");
    assertEquals(final.status, "failed");
    assertEquals(final.content, [{ type: "content", content: { type: "text", text: deferred } }]);
    assertEquals(final._meta, { "llama-agent/hook": { event: "PreToolUse", decision: "defer" } });
    const records = await readTranscript(p.home, sessionId);
    assertEquals(toolCallRecord(records, "call_1").result, deferred);
    await agent.close();
  });
});

Deno.test("llama: PostToolUse updatedToolOutput replaces what the model reads; the client sees the real output", async () => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", {
      settings: {
        hooks: { PostToolUse: [group("shell", hook("post_first"), hook("post_last"))] },
      },
      replies: {
        post_first: { out: postToolUse({ updatedToolOutput: "FIRST" }) },
        post_last: { out: postToolUse({ updatedToolOutput: "REWRITTEN" }) },
      },
    });
    const model = await writeToolCallModel(p.models, {
      toolName: "shell",
      params: { command: "echo hi" },
      answer: "The command said hi.",
    });
    const agent = await p.startAgent(model);
    allowAndRecord(agent);
    const sessionId = await p.newSessionIn(agent, dir);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("say hi"),
    }) as JsonObject;

    assertEquals(result.stopReason, "end_turn");
    const records = await readTranscript(p.home, sessionId);
    assertEquals(toolCallRecord(records, "call_1").result, "REWRITTEN", "the last hook wins");
    const final = finalUpdateOf(agent, sessionId, "call_1");
    assertEquals(final.status, "completed");
    const shown = JSON.stringify([final.content, final.rawOutput]);
    assertStringIncludes(shown, "hi");
    assert(!shown.includes("REWRITTEN") && !shown.includes("FIRST"), shown);
    assertEquals(modelTextOf(agent, sessionId), "The command said hi.");
    await agent.close();
  });
});
