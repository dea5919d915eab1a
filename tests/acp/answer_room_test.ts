/**
 * One answer cap for every budget: the request's `max_tokens`, the room kept free when deciding
 * to compact, a summary's cap and the free context a tool result shares all follow the user's
 * `--max-answer-tokens` where it is set (answer_cap.ts).
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { answerTokenCap, MIN_ANSWER_TOKENS, requestAnswerCap } from "../../src/model/answer_cap.ts";
import { compactionLimit, summaryTokenCap } from "../../src/acp/compaction/compaction.ts";
import { contextResultBudget } from "../../src/acp/turn/tool_output_budget.ts";
import { noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";
import { reply, type Step, steppedModel } from "./fake_models.ts";

const TOKENS = { prompt: 1, evaluated: 1, generated: 1 };

Deno.test("by default the cap is a quarter of the context, at least 512", () => {
  assertEquals([1024, 8192, 32768].map((size) => answerTokenCap(size)), [512, 2048, 8192]);
  assertEquals(answerTokenCap(600), MIN_ANSWER_TOKENS);
});

Deno.test("a set cap is taken as it is up to half the context, and the default holds without one", () => {
  assertEquals(answerTokenCap(8192, 300), 300);
  assertEquals(answerTokenCap(8192, 4000), 4000);
  assertEquals(answerTokenCap(8192, 9000), 4096);
  assertEquals(answerTokenCap(8192, undefined), 2048);
  // A tiny context keeps the default's floor as the most a set cap may take.
  assertEquals(answerTokenCap(800, 5000), 512);
});

Deno.test("without a context size, a request carries the set cap, or none", () => {
  assertEquals(requestAnswerCap(undefined, 700), 700);
  assertEquals(requestAnswerCap(undefined), undefined);
  assertEquals(requestAnswerCap(8192, 700), 700);
  assertEquals(requestAnswerCap(8192), 2048);
});

Deno.test("compaction keeps the set cap free, and a summary takes no more than it", () => {
  // 8192 × 0.95 would leave less than the default cap of 2048 free: the cap wins.
  assertEquals(compactionLimit(8192, 0.95), 8192 - 2048);
  assertEquals(compactionLimit(8192, 0.95, 300), Math.floor(8192 * 0.95));
  assertEquals(compactionLimit(8192, 0.8, 4000), 8192 - 4000);
  assertEquals(summaryTokenCap(8192), 1024);
  assertEquals(summaryTokenCap(8192, 300), 300);
});

Deno.test("a tool result shares what is free after the set cap", async () => {
  const next = () => ({ conversation: [], tools: [] });
  const model = { contextSize: 8192, countPromptTokens: () => Promise.resolve(1000) };
  assertEquals(await contextResultBudget(model, next).freeTokens(), 8192 - 1000 - 2048);
  assertEquals(await contextResultBudget(model, next, 0.5, 300).freeTokens(), 8192 - 1000 - 300);
});

Deno.test("the answer cap setting is each request's max_tokens, up to half the context, and the cap's notice names it", async () => {
  const asked: (number | undefined)[] = [];
  const capped: Step = (request) => {
    asked.push(request.maxTokens);
    request.onTextChunk("partial");
    return { text: "partial", thought: "", toolCalls: [], stop: "max_tokens", tokens: TOKENS };
  };
  for (const [maxAnswerTokens, contextSize] of [[300, 8192], [9000, 8192], [300, undefined]]) {
    await withInMemoryAgent({
      model: steppedModel([capped], contextSize),
      contextBudget: { compactThreshold: 0.8, toolOutputShare: 0.5, maxAnswerTokens },
    }, async (t) => {
      const sessionId = await t.newSession();
      const response = await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "write" }],
      });
      assertEquals(response.stopReason, "max_tokens");
      const [notice] = noticesOf(t.updates, sessionId);
      assertStringIncludes(notice!, "(--max-answer-tokens) and was cut there");
    });
  }
  assertEquals(asked, [300, 4096, 300]);
});

Deno.test("without the setting, a request asks for a quarter of the context", async () => {
  let asked: number | undefined;
  await withInMemoryAgent({
    model: steppedModel([(request) => {
      asked = request.maxTokens;
      return reply("ok")(request);
    }], 8192),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
  });
  assertEquals(asked, 2048);
});
