import { assert, assertEquals, assertLess } from "../helpers/assert.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";
import { type Step, steppedModel } from "./fake_models.ts";

/** Streams a chunk every 10 ms until its signal aborts. */
const streamUntilCancelled: Step = async (request) => {
  let text = "";
  while (!request.signal.aborted) {
    request.onTextChunk("la ");
    text += "la ";
    await new Promise((r) => setTimeout(r, 10));
  }
  return {
    text,
    thought: "",
    toolCalls: [],
    stop: "cancelled",
    tokens: { prompt: 1, evaluated: 1, generated: 1 },
  };
};

/** A model whose every reply streams until cancelled (two prompts' worth). */
const endlessModel = steppedModel([streamUntilCancelled, streamUntilCancelled]);

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error("Timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

Deno.test("cancel during generation answers cancelled, and the session takes the next prompt", async () => {
  await withInMemoryAgent({ model: endlessModel }, async (t) => {
    const sessionId = await t.newSession();
    const prompt = t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    await waitUntil(() => t.text(sessionId).length > 10);
    const sent = performance.now();
    await t.agent.notify("session/cancel", { sessionId });
    const response = await prompt;
    assertEquals(response.stopReason, "cancelled");
    assertLess(performance.now() - sent, 500);
    const again = t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "again" }],
    });
    await waitUntil(() => t.updates.length > 0);
    await t.agent.notify("session/cancel", { sessionId });
    assertEquals((await again).stopReason, "cancelled");
  });
});

Deno.test("cancel during a running shell kills its process group and answers cancelled", async () => {
  const marker = `${30 + Math.random()}`.slice(0, 10);
  await withInMemoryAgent({
    mode: "rule-based",
    rules: [],
    onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    script: {
      turns: [{
        toolCalls: [{ name: "shell", input: { command: `sleep ${marker} & sleep ${marker}` } }],
      }],
    },
  }, async (t) => {
    const sessionId = await t.newSession();
    const prompt = t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "run" }],
    });
    await waitUntil(() =>
      t.updates.some((u) =>
        u.update.sessionUpdate === "tool_call_update" && u.update.status === "in_progress"
      )
    );
    // The shell must really be running before we cancel it.
    const deadline = performance.now() + 5000;
    while ((await livingPidsMatching(`sleep ${marker}`)).length < 2) {
      assert(performance.now() < deadline, "the shell command never started");
      await new Promise((r) => setTimeout(r, 10));
    }
    const sent = performance.now();
    await t.agent.notify("session/cancel", { sessionId });
    const response = await prompt;
    assertLess(performance.now() - sent, 500);
    assertEquals(response.stopReason, "cancelled");
    assertEquals(await livingPidsMatching(`sleep ${marker}`), []);
    const final = t.updates.map((u) => u.update).filter((u) =>
      u.sessionUpdate === "tool_call_update"
    ).at(-1);
    assert(final?.sessionUpdate === "tool_call_update");
    assertEquals(final.status, "failed");
  });
});

Deno.test("cancel while the client is asked for permission is a refusal: the tool never runs", async () => {
  let answer: (() => void) | undefined;
  await withInMemoryAgent({
    script: {
      turns: [{ toolCalls: [{ name: "fs_write", input: { file_path: "x.txt", content: "no" } }] }],
    },
    onPermission: () =>
      new Promise((resolve) => {
        answer = () => resolve({ outcome: { outcome: "selected", optionId: "allow_once" } });
      }),
  }, async (t) => {
    const sessionId = await t.newSession();
    const prompt = t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "w" }],
    });
    await waitUntil(() => t.permissionRequests.length === 1);
    await t.agent.notify("session/cancel", { sessionId });
    assertEquals((await prompt).stopReason, "cancelled");
    answer?.(); // a late "allow" must change nothing
    await new Promise((r) => setTimeout(r, 20));
    assertEquals(await Deno.stat(`${t.cwd}/x.txt`).then(() => true, () => false), false);
  });
});
