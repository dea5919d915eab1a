import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { transcriptPathFor } from "../../src/agent/transcript_path.ts";
import { AgentError } from "../../src/error.ts";
import type { Model } from "../../src/model/model.ts";
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

Deno.test("a tool result longer than the context allows is cut, with a note for the model", async () => {
  let seen = "";
  await withInMemoryAgent({
    files: { "big.txt": "x".repeat(500) },
    model: steppedModel([
      callTool("fs_read", { file_path: "big.txt" }),
      (request) => {
        const last = request.conversation.at(-1);
        if (last?.role === "assistant") {
          const call = last.segments.find((s) => s.type === "tool_call");
          if (call?.type === "tool_call") seen = call.result;
        }
        return reply("ok")(request);
      },
    ], 100),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read" }],
    });
    assert(seen.startsWith("x".repeat(100) + "\n[cut at 100 of"), seen);
    assertStringIncludes(seen, "offset and limit");
  });
});

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
