/**
 * A looping answer over real stdio: the real agent with `--endpoint` at a loopback fake server
 * that streams one sentence again and again, as a small model does, until the client goes away.
 * The agent stops the request at the repetition, well before the answer cap, ends the turn
 * `max_tokens` with a notice, and the next request carries one copy of the sentence.
 */
import { assert, assertEquals, assertLess, assertStringIncludes } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import { textReply } from "../helpers/openai_dialects.ts";
import { startFakeServer } from "../helpers/openai_fake_server.ts";
import { textPrompt as text, withE2eProject } from "./e2e_project.ts";

function delta(delta: object): object {
  return { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta }] };
}

Deno.test("over stdio, a server streaming the same sentence forever is stopped at the repetition: max_tokens, a notice, one copy kept", async () => {
  const server = startFakeServer({ models: [{ id: "served-model", max_model_len: 8192 }] });
  try {
    await withE2eProject({}, async (p) => {
      server.reply(
        {
          kind: "stream",
          chunks: [delta({ role: "assistant", content: "Sure. " })],
          forever: delta({ content: "I will check the file now. " }),
        },
        { kind: "stream", chunks: textReply("Done.") },
      );
      const agent = await p.startAgent("served-model", [
        "--endpoint",
        server.baseUrl,
        "--max-answer-tokens",
        "3000",
      ]);
      const sessionId = await p.newSession(agent);
      const looped = await agent.call("session/prompt", {
        sessionId,
        prompt: text("check the file"),
      }) as JsonObject;
      assertEquals(looped.stopReason, "max_tokens");
      await server.disconnected;
      assertEquals(server.requests[0]!.max_tokens, 3000, "the setting is the request's cap");
      const shown = agent.agentText(sessionId);
      assertStringIncludes(
        shown,
        "The model repeated itself, so its answer was stopped: the same 27 characters",
      );
      // Stopped at the repetition (about 800 characters), far short of the cap's characters.
      assertLess(shown.length, 2000);

      const next = await agent.call("session/prompt", {
        sessionId,
        prompt: text("and now?"),
      }) as JsonObject;
      assertEquals(next.stopReason, "end_turn");
      const messages = server.requests[1]!.messages as JsonObject[];
      const assistant = messages.filter((message) => message.role === "assistant");
      assertEquals(assistant.map((message) => message.content), [
        "Sure. I will check the file now. ",
      ]);
      assert(agent.agentText(sessionId).endsWith("Done."));
      assertEquals((await agent.close()).code, 0);
    });
  } finally {
    await server.close();
  }
});
