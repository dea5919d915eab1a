import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { AgentError } from "../../src/error.ts";
import type { GenerateRequest, Model } from "../../src/model/model.ts";
import { answerTokenCap } from "../../src/model/answer_cap.ts";
import { estimatePromptTokens, estimateTextTokens } from "../../src/model/token_estimate.ts";
import { DEFAULT_TOOL_OUTPUT_SHARE } from "../../src/acp/compaction/context_budget.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";
import { callTool, reply, steppedModel } from "./fake_models.ts";

async function transcript(env: (name: string) => string | undefined, sessionId: string) {
  const text = await Deno.readTextFile(transcriptPathFor(sessionId, env));
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

Deno.test("tool results that fill the context end the turn with max_tokens, keeping what happened", async () => {
  let seenOnThirdTurn: unknown;
  await withInMemoryAgent({
    files: { "notes.txt": "hello\n" },
    model: steppedModel([
      callTool("fs_read", { file_path: "notes.txt" }),
      () => {
        throw new AgentError(
          "CONTEXT_FULL",
          "The conversation does not fit in the model's context",
        );
      },
      (request) => {
        seenOnThirdTurn = request.conversation.map((item) => item.role);
        return reply("ok")(request);
      },
    ]),
  }, async (t) => {
    const sessionId = await t.newSession();
    const first = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read" }],
    });
    assertEquals(first.stopReason, "max_tokens");
    assert(t.logs.some((line) => line.includes("does not fit")), "the reason is logged");
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "next" }],
    });
    assertEquals(
      seenOnThirdTurn,
      ["system", "user", "assistant", "user"],
      "the tool round stays in the conversation",
    );
    const records = await transcript(t.env, sessionId);
    assertEquals(records.filter((r) => r.type === "response").map((r) => r.stopReason), [
      "max_tokens",
      "end_turn",
    ]);
  });
});

const COUNT_TO_3000 = 'i=1; while [ "$i" -le 3000 ]; do echo "line $i"; i=$((i+1)); done';

for (const profile of ["llama", "claude"] as const) {
  Deno.test(`${profile} profile: a big shell result on a small context is cut to its share of the free context, head and tail around a note`, async () => {
    let seen: GenerateRequest | undefined;
    await withInMemoryAgent({
      profile,
      model: steppedModel([
        callTool(profile === "claude" ? "Bash" : "shell", { command: COUNT_TO_3000 }),
        (request) => {
          seen = request;
          return reply("ok")(request);
        },
      ], 4096),
    }, async (t) => {
      const sessionId = await t.newSession();
      const done = await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "count" }],
      });
      assertEquals(done.stopReason, "end_turn");
    });
    assert(seen !== undefined, "the model was asked again with the result");
    const last = seen.conversation.at(-1);
    assert(last?.role === "assistant" && last.segments.length === 1);
    const call = last.segments[0];
    assert(call?.type === "tool_call");
    // What the context held when the result was cut: everything before the call's message.
    const before = estimatePromptTokens(seen.conversation.slice(0, -1), seen.tools);
    const share = Math.floor((4096 - before - answerTokenCap(4096)) * DEFAULT_TOOL_OUTPUT_SHARE);
    const used = estimateTextTokens(call.result);
    assert(used <= share, `${used} tokens, more than the share of ${share}`);
    assert(used >= share * 0.8, `${used} tokens, well short of the share of ${share}`);
    const lines = call.result.trimEnd().split("\n");
    assertEquals(lines[0], "line 1");
    assertEquals(lines.at(-1), "line 3000");
    const kept = lines.filter((line) => /^line \d+$/.test(line)).length;
    const notes = lines.filter((line) => !/^line \d+$/.test(line));
    assertEquals(notes.length, 1, call.result);
    const cut = 3000 - kept;
    if (profile === "claude") {
      assertEquals(
        notes[0],
        `... [${cut} lines truncated] ... (run the command again narrowed, e.g. piped to head, ` +
          "tail or grep, to see them)",
      );
    } else {
      assertMatch(
        notes[0]!,
        new RegExp(
          `^\\[lines \\d+-\\d+ cut \\(${cut} lines, \\d+ tokens\\) to fit the model's context: ` +
            "run the command again narrowed, e\\.g\\. piped to head -n, tail -n or grep\\]$",
        ),
      );
    }
  });
}

Deno.test("a prompt cancelled while the model loads is recorded, and closing never waits for the load", async () => {
  const never = new Promise<Model>(() => {});
  await withInMemoryAgent({ model: () => never }, async (t) => {
    const sessionId = await t.newSession();
    const prompt = t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    await new Promise((r) => setTimeout(r, 20));
    await t.agent.notify("session/cancel", { sessionId });
    assertEquals((await prompt).stopReason, "cancelled");
    const started = performance.now();
    await t.agent.request("session/close", { sessionId });
    assert(performance.now() - started < 1000, "close did not wait for the model");
    const records = await transcript(t.env, sessionId);
    const types = records.filter((r) => r.type !== "update").map((r) => r.type);
    assertEquals(types, ["session", "settings", "prompt", "response"]);
    const updates = records.filter((r) => r.type === "update");
    // The commands update is session state: recorded, not replayed.
    assertEquals(updates.map((r) => [r.update.sessionUpdate, r.replay]), [[
      "available_commands_update",
      false,
    ]]);
  });
});

Deno.test("a prompt whose model fails to load is recorded with the failure", async () => {
  await withInMemoryAgent(
    { model: () => Promise.reject(new Error("no such model")) },
    async (t) => {
      const sessionId = await t.newSession();
      const error = await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "hi" }],
      })
        .then(() => undefined, (e) => e);
      assertStringIncludes(error.message, "no such model");
      const records = await transcript(t.env, sessionId);
      assertEquals(records.filter((r) => r.type !== "update").map((r) => r.type), [
        "session",
        "settings",
        "prompt",
        "failure",
      ]);
    },
  );
});
