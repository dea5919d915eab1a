/**
 * Hooks on the real llama path: generated GGUF models through node-llama-cpp (not the scripted
 * backend), real hook scripts from the session cwd's `.claude/settings.json`, spoken to over
 * real stdio by the raw NDJSON harness. What the model received is read from the transcript.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import { READ_NOTES, WRITE_OUT, writeToolCallModel } from "../helpers/test_models.ts";
import {
  exists,
  finalUpdateOf,
  group,
  hook,
  hookCommand,
  metaOf,
  modelTextOf,
  noticesOf,
  readTranscript,
  runsOf,
  toolCallRecord,
  withHookProject,
} from "./hook_project.ts";
import { reminder, textPrompt as text } from "./e2e_project.ts";

Deno.test("llama: a UserPromptSubmit block evaluates nothing; a PreToolUse deny keeps fs_write from running", async (t) => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", {
      settings: {
        hooks: {
          UserPromptSubmit: [group(undefined, hook("ups_block"))],
          PreToolUse: [group("fs_write", hook("pre_deny"))],
        },
      },
      replies: {
        ups_block: { when: "forbidden", err: "that request is forbidden", code: 2 },
        pre_deny: { err: "writing out.txt is not allowed", code: 2 },
      },
    });
    const agent = await p.startAgent(await writeToolCallModel(p.models, WRITE_OUT));
    const sessionId = await p.newSessionIn(agent, dir);

    const refused = await agent.call("session/prompt", {
      sessionId,
      prompt: text("a forbidden request"),
    }) as JsonObject;
    await t.step("the UserPromptSubmit block answers refusal before any token is evaluated", () => {
      assertEquals(refused.stopReason, "refusal");
      assertEquals(metaOf(refused).tokens, { prompt: 0, evaluated: 0, generated: 0 });
      assertEquals(modelTextOf(agent, sessionId), "");
      assertEquals(noticesOf(agent, sessionId), [
        "UserPromptSubmit operation blocked by hook:\n" +
        `[${hookCommand("ups_block")}]: that request is forbidden\n\n` +
        "Original prompt: a forbidden request",
      ]);
    });

    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("write out.txt"),
    }) as JsonObject;
    const reason = `[${hookCommand("pre_deny")}]: writing out.txt is not allowed`;
    await t.step(
      "the model calls fs_write, the hook denies it, and the file is not written",
      async () => {
        assertEquals(await exists(`${dir}/out.txt`), false);
        const final = finalUpdateOf(agent, sessionId, "call_1");
        assertEquals(final.status, "failed");
        assertEquals(final._meta, {
          "llama-agent/hook": { event: "PreToolUse", decision: "deny", reason },
        });
        const [run] = await runsOf(dir, "pre_deny");
        assertEquals(run?.payload.tool_name, "fs_write");
        assertEquals(run?.payload.tool_input, WRITE_OUT.params);
      },
    );
    await t.step(
      "the model reads the reason as the tool result and continues to its answer",
      async () => {
        const records = await readTranscript(p.home, sessionId);
        assertEquals(
          toolCallRecord(records, "call_1").result,
          `PreToolUse:fs_write hook error: ${reason}`,
        );
        assertEquals(result.stopReason, "end_turn");
        assertEquals(modelTextOf(agent, sessionId), WRITE_OUT.answer);
        assert(((metaOf(result).tokens as JsonObject).evaluated as number) > 0);
      },
    );
    await agent.close();
  });
});

Deno.test("llama: PostToolUse additionalContext reaches the model with the fs_read result", async () => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", {
      settings: { hooks: { PostToolUse: [group("fs_read", hook("post_ctx"))] } },
      replies: {
        post_ctx: {
          out: {
            hookSpecificOutput: {
              hookEventName: "PostToolUse",
              additionalContext: "the notes are a week old",
            },
          },
        },
      },
      files: { "notes.txt": "buy milk\n" },
    });
    const agent = await p.startAgent(await writeToolCallModel(p.models, READ_NOTES));
    const sessionId = await p.newSessionIn(agent, dir);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("read my notes"),
    }) as JsonObject;
    assertEquals(result.stopReason, "end_turn");
    assertEquals(modelTextOf(agent, sessionId), READ_NOTES.answer);
    const seen = String(toolCallRecord(await readTranscript(p.home, sessionId), "call_1").result);
    assertStringIncludes(seen, "buy milk");
    assert(
      seen.endsWith(
        "\n\n" + reminder("PostToolUse:fs_read hook additional context: the notes are a week old"),
      ),
      seen,
    );
    const [run] = await runsOf(dir, "post_ctx");
    assertEquals(run?.payload.hook_event_name, "PostToolUse");
    assertStringIncludes(JSON.stringify(run?.payload.tool_response), "buy milk");
    await agent.close();
  });
});
