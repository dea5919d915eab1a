import {
  type EvaluationRequest,
  type Evaluator,
  runEvaluatedHandler,
  substituteArguments,
} from "../../src/hooks/handlers/evaluator.ts";
import type { AgentHandlerConfig, PromptHandlerConfig } from "../../src/hooks/handler_config.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import type { HandlerContext } from "../../src/hooks/handler_runner.ts";
import { assert, assertEquals, assertLess } from "../helpers/assert.ts";

const payload = { session_id: "s", hook_event_name: "Stop", last_assistant_message: "cost: $&" };
const json = JSON.stringify(payload);
const context: HandlerContext = { event: "Stop", cwd: "/project", sessionId: "s" };

function prompt(text: string, extra: Partial<PromptHandlerConfig> = {}): PromptHandlerConfig {
  return { type: "prompt", prompt: text, ...extra };
}

function agent(text: string): AgentHandlerConfig {
  return { type: "agent", prompt: text };
}

/** An evaluator that records each request and answers with `answer`. */
function fakeEvaluator(
  answer: (request: EvaluationRequest) => Promise<{ ok: boolean; reason?: string }>,
) {
  const requests: EvaluationRequest[] = [];
  const evaluator: Evaluator = {
    evaluate: (request) => {
      requests.push(request);
      return answer(request);
    },
  };
  return { evaluator, requests };
}

function assertFailed(result: HandlerResult) {
  if (result.kind !== "failed") throw new Error(`Expected "failed", got ${JSON.stringify(result)}`);
  return result;
}

Deno.test("$ARGUMENTS is replaced by the payload JSON, every time it appears", () => {
  assertEquals(substituteArguments("A $ARGUMENTS B $ARGUMENTS", payload), `A ${json} B ${json}`);
});

Deno.test("a prompt without $ARGUMENTS gets the payload JSON after a blank line", () => {
  assertEquals(substituteArguments("Is this safe?", payload), `Is this safe?\n\n${json}`);
});

Deno.test("replacement patterns inside the payload are not expanded", () => {
  assertEquals(substituteArguments("$ARGUMENTS", payload), json);
  assert(json.includes("$&"));
});

Deno.test("without an evaluator a prompt hook fails with no_evaluator", async () => {
  const result = assertFailed(await runEvaluatedHandler(prompt("x"), payload, context, undefined));
  assertEquals(result.failure, "no_evaluator");
  assertEquals(result.message, '"prompt" hooks need a model; this command runs without one');
  const agentResult = assertFailed(
    await runEvaluatedHandler(agent("x"), payload, context, undefined),
  );
  assertEquals(agentResult.message, '"agent" hooks need a model; this command runs without one');
});

Deno.test("the evaluator's answer is the result, and it gets the substituted prompt", async () => {
  const { evaluator, requests } = fakeEvaluator(() =>
    Promise.resolve({ ok: false, reason: "unsafe" })
  );
  const result = await runEvaluatedHandler(
    prompt("Judge: $ARGUMENTS"),
    payload,
    context,
    evaluator,
  );
  assertEquals(result, {
    kind: "evaluated",
    ok: false,
    reason: "unsafe",
    durationMs: result.durationMs,
  });
  const request = requests[0];
  assertEquals(request?.kind, "prompt");
  assertEquals(request?.prompt, `Judge: ${json}`);
  assertEquals(request?.payload, payload);
  assertEquals(request?.cwd, "/project");
  assertEquals(request?.signal.aborted, false);
});

Deno.test("an answer without a reason has no reason key", async () => {
  const { evaluator } = fakeEvaluator(() => Promise.resolve({ ok: true }));
  const result = await runEvaluatedHandler(prompt("x"), payload, context, evaluator);
  assertEquals(result, { kind: "evaluated", ok: true, durationMs: result.durationMs });
});

Deno.test("default timeouts are 30 s for prompt and 60 s for agent; a handler's own wins", async () => {
  const { evaluator, requests } = fakeEvaluator(() => Promise.resolve({ ok: true }));
  await runEvaluatedHandler(prompt("x"), payload, context, evaluator);
  await runEvaluatedHandler(agent("x"), payload, context, evaluator);
  await runEvaluatedHandler(prompt("x", { timeout: 5 }), payload, context, evaluator);
  assertEquals(requests.map((r) => [r.kind, r.timeoutMs]), [
    ["prompt", 30_000],
    ["agent", 60_000],
    ["prompt", 5_000],
  ]);
});

Deno.test("an evaluator that throws is an evaluator failure", async () => {
  const { evaluator } = fakeEvaluator(() => Promise.reject(new Error("model crashed")));
  const result = assertFailed(await runEvaluatedHandler(prompt("x"), payload, context, evaluator));
  assertEquals(result.failure, "evaluator");
  assertEquals(result.message, `The "prompt" hook's model failed: model crashed`);
});

Deno.test("an evaluator that throws synchronously is an evaluator failure too", async () => {
  const evaluator: Evaluator = {
    evaluate: () => {
      throw new Error("no context left");
    },
  };
  const result = assertFailed(await runEvaluatedHandler(agent("x"), payload, context, evaluator));
  assertEquals(result.failure, "evaluator");
});

Deno.test("an evaluator that does not answer in time fails with timeout, its signal aborted", async () => {
  const { evaluator, requests } = fakeEvaluator((request) =>
    new Promise((_resolve, reject) =>
      request.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true })
    )
  );
  const result = assertFailed(
    await runEvaluatedHandler(prompt("x", { timeout: 0.05 }), payload, context, evaluator),
  );
  assertEquals(result.failure, "timeout");
  assertEquals(result.message, 'The "prompt" hook did not answer within 0.05 s');
  assertEquals(requests[0]?.signal.aborted, true);
  assertLess(result.durationMs, 1000, "ms to time out");
});

Deno.test("an evaluator that ignores its signal does not hold the hook past its timeout", async () => {
  let finish: () => void = () => {};
  const { evaluator } = fakeEvaluator(() =>
    new Promise((resolve) => finish = () => resolve({ ok: true }))
  );
  const result = assertFailed(
    await runEvaluatedHandler(prompt("x", { timeout: 0.05 }), payload, context, evaluator),
  );
  assertEquals(result.failure, "timeout");
  finish();
});

Deno.test("aborting the context signal cancels the evaluation", async () => {
  const controller = new AbortController();
  const { evaluator, requests } = fakeEvaluator((request) =>
    new Promise((_resolve, reject) =>
      request.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true })
    )
  );
  const pending = runEvaluatedHandler(prompt("x"), payload, {
    ...context,
    signal: controller.signal,
  }, evaluator);
  controller.abort();
  const result = assertFailed(await pending);
  assertEquals(result.failure, "cancelled");
  assertEquals(requests[0]?.signal.aborted, true);
});

Deno.test("an already aborted signal never reaches the evaluator", async () => {
  const { evaluator, requests } = fakeEvaluator(() => Promise.resolve({ ok: true }));
  const result = assertFailed(
    await runEvaluatedHandler(
      prompt("x"),
      payload,
      { ...context, signal: AbortSignal.abort() },
      evaluator,
    ),
  );
  assertEquals(result.failure, "cancelled");
  assertEquals(requests.length, 0);
});
