/**
 * A grep pattern that backtracks without end (`(a|aa)*c` on a line of 48 `a`s) does not hold up
 * the agent: while it is being matched, other requests are answered, and a cancel ends the turn
 * at once. Real stdio, real process, a scripted model.
 */
import { assert, assertEquals, assertLess } from "../helpers/assert.ts";
import { isObject } from "../helpers/acp_harness.ts";
import { answerTo, INITIALIZE_PARAMS, request, withScriptedAgent } from "./scripted_agent.ts";

const RUNAWAY = {
  turns: [{ toolCalls: [{ name: "fs_grep", input: { pattern: "(a|aa)*c", path: "a.txt" } }] }],
  files: { "a.txt": "a".repeat(48) + "\n" },
};

Deno.test("while a runaway grep pattern is matched, requests are answered and a cancel ends the turn at once", async () => {
  await withScriptedAgent(RUNAWAY, async ({ agent, project }) => {
    agent.onRequest(
      "session/request_permission",
      () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    );
    await agent.call("initialize", INITIALIZE_PARAMS);
    const { sessionId } = await agent.call("session/new", { cwd: project, mcpServers: [] }) as {
      sessionId: string;
    };
    const prompt = agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "search" }],
    });
    await agent.waitFor(
      () => agent.toolCallUpdates(sessionId).some((update) => update.status === "in_progress"),
      { what: "the grep call to run" },
    );
    // Well inside the matching: the process started, and the pattern has far to go.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const asked = performance.now();
    await agent.sendRaw(JSON.stringify(request("list-while-matching", "session/list", {})));
    const listed = await answerTo(agent, "list-while-matching");
    assert(isObject(listed.result), JSON.stringify(listed));
    assertLess(performance.now() - asked, 2000);
    const cancelled = performance.now();
    await agent.notify("session/cancel", { sessionId });
    const answer = await prompt;
    assertLess(performance.now() - cancelled, 2000);
    assertEquals(
      isObject(answer.result) && answer.result.stopReason,
      "cancelled",
      JSON.stringify(answer),
    );
    // The grep was still matching when the cancel came, and the cancel is what ended it.
    const last = agent.toolCallUpdates(sessionId).at(-1);
    assertEquals([last?.status, last?.rawOutput], [
      "failed",
      { error: "The search was cancelled" },
    ]);
    const { code } = await agent.close();
    assertEquals(code, 0);
  });
});
