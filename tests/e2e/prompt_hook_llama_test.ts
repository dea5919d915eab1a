/**
 * A `prompt` hook answered by the session's own model on the real llama path: a generated GGUF
 * model, constrained by node-llama-cpp's JSON-schema grammar, refuses the prompt.
 */
import { assertEquals } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import { FRIDAY_VERDICT, writeReplyModel } from "../helpers/test_models.ts";
import { withE2eProject } from "./e2e_project.ts";

Deno.test("a UserPromptSubmit prompt hook answered ok:false by a GGUF model refuses the prompt with its reason", async () => {
  const settings = JSON.stringify({
    hooks: {
      UserPromptSubmit: [{
        hooks: [{ type: "prompt", prompt: "May this prompt run today? $ARGUMENTS" }],
      }],
    },
  });
  await withE2eProject({ "project/.claude/settings.json": settings }, async (p) => {
    const agent = await p.startAgent(await writeReplyModel(p.models, FRIDAY_VERDICT));
    const sessionId = await p.newSession(agent);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "deploy to production" }],
    }) as JsonObject;
    assertEquals(result.stopReason, "refusal");
    assertEquals(
      agent.agentText(sessionId),
      "UserPromptSubmit operation blocked by hook:\nno deploys on Friday\n\nOriginal prompt: deploy to production",
    );
    // The session's own conversation never reached the model.
    assertEquals((result._meta as { tokens: Record<string, number> }).tokens.evaluated, 0);
    await agent.close();
  });
});
