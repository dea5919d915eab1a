/**
 * A new session's first turn without the fixed prompt, end to end: the real agent, spawned twice
 * on one generated model with one HOME. The first session evaluates its whole prompt and keeps
 * the fixed parts' states (the shared part's, the project's) in the user's cache; the next
 * session, in the same process and in the next one, evaluates only the user's words
 * (`_meta.tokens` of the prompt response).
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import type { AcpHarness, JsonObject } from "../helpers/acp_harness.ts";
import { REPLY_TEXT, writeReplyModel } from "../helpers/test_models.ts";
import { textPrompt as text, withE2eProject } from "./e2e_project.ts";

interface Tokens {
  readonly prompt: number;
  readonly evaluated: number;
}

async function firstTurn(agent: AcpHarness, newSession: () => Promise<string>): Promise<Tokens> {
  const sessionId = await newSession();
  const result = await agent.call("session/prompt", {
    sessionId,
    prompt: text("hi"),
  }) as JsonObject;
  assertEquals([result.stopReason, agent.agentText(sessionId)], ["end_turn", REPLY_TEXT]);
  return (result._meta as { tokens: Tokens }).tokens;
}

Deno.test("a new session's first turn evaluates only its own tokens, in this process and the next", async () => {
  await withE2eProject({}, async (p) => {
    const model = await writeReplyModel(p.models);
    const states = `${p.home}/.cache/llama-agent/prefix-states`;
    const first = await p.startAgent(model);
    let whole: Tokens;
    let again: Tokens;
    try {
      whole = await firstTurn(first, () => p.newSession(first));
      assertEquals(whole.evaluated, whole.prompt, "nothing kept yet: all of it evaluated");
      again = await firstTurn(first, () => p.newSession(first));
      // "hi" in its template: tens of tokens of the thousands.
      assert(again.evaluated < 60, `same process: ${JSON.stringify(again)}`);
      assertEquals(again.prompt, whole.prompt);
    } finally {
      assertEquals((await first.close()).code, 0);
    }
    const names = [...Deno.readDirSync(states)].map((entry) => entry.name);
    // The shared part's state, and the project's.
    assertEquals(names.filter((name) => name.endsWith(".prefix")).length, 2, names.join(", "));

    const second = await p.startAgent(model);
    try {
      const next = await firstTurn(second, () => p.newSession(second));
      assert(next.evaluated < 60, `next process: ${JSON.stringify(next)}`);
      console.error(`first turns: ${JSON.stringify({ whole, again, next })}`);
      assertEquals(next.prompt, whole.prompt);
      assert(!second.stderr.includes("prompt state"), second.stderr);
    } finally {
      assertEquals((await second.close()).code, 0);
    }
  });
});
