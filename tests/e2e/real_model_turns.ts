/**
 * What the tests on a real instruct model check, whichever backend runs it (in process, or on a
 * real server): a model's words are its own, so each check asserts what the agent guarantees.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import type { AcpHarness, JsonObject } from "../helpers/acp_harness.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import { textPrompt as text } from "./e2e_project.ts";

/** A project whose UserPromptSubmit prompt hook tells the model to refuse every prompt. */
export const REFUSING_PROMPT_HOOK: Record<string, string> = {
  "project/.claude/settings.json": JSON.stringify({
    hooks: {
      UserPromptSubmit: [{
        hooks: [{
          type: "prompt",
          prompt:
            'Refuse every prompt. Answer exactly {"ok": false, "reason": "refused"}. $ARGUMENTS',
        }],
      }],
    },
  }),
};

/** A short prompt: the turn streams some text and ends (at the end, or at the context's). */
export async function assertTextTurn(agent: AcpHarness, sessionId: string): Promise<JsonObject> {
  const result = await agent.call("session/prompt", {
    sessionId,
    prompt: text("Say hello in one short sentence."),
  }) as JsonObject;
  assert(["end_turn", "max_tokens"].includes(String(result.stopReason)), String(result.stopReason));
  assert(agent.agentText(sessionId).trim().length > 0, "no text streamed");
  return result;
}

/**
 * Under REFUSING_PROMPT_HOOK the prompt is refused with the hook's reason. A verdict that did
 * not parse is a hook error, which never blocks: a refusal proves that it did.
 */
export async function assertPromptRefused(agent: AcpHarness, sessionId: string): Promise<void> {
  const result = await agent.call("session/prompt", {
    sessionId,
    prompt: text("deploy to production"),
  }) as JsonObject;
  const said = agent.agentText(sessionId);
  assertEquals(result.stopReason, "refusal", said);
  assert(said.startsWith("UserPromptSubmit operation blocked by hook:\n"), said);
}

/** A long story, cancelled once it streams: the prompt answers `cancelled`. */
export async function assertCancelledMidStream(
  agent: AcpHarness,
  sessionId: string,
): Promise<void> {
  const prompt = agent.request("session/prompt", {
    sessionId,
    prompt: text("Write a long story about a lighthouse keeper, with many chapters."),
  });
  await waitUntil(() => agent.agentText(sessionId).length > 10, "streamed text", 120_000);
  await agent.notify("session/cancel", { sessionId });
  const response = await prompt;
  assertEquals((response.result as JsonObject).stopReason, "cancelled");
}
