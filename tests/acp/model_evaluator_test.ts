/**
 * The model evaluator of prompt and agent hooks, on the scripted backend and on fakes: what the
 * model is asked, what it may read, and how every way of not answering becomes a rejection.
 * The llama path (the verdict grammar on a real model) is tests/model/llama_response_schema_test.ts.
 */
import { AgentError } from "../../src/error.ts";
import {
  createModelEvaluator,
  MAX_AGENT_TOOL_ROUNDS,
  VERDICT_MAX_TOKENS,
  VERDICT_SCHEMA,
} from "../../src/acp/model_evaluator.ts";
import { type EvaluationRequest, runEvaluatedHandler } from "../../src/hooks/handlers/evaluator.ts";
import type {
  AssistantSegment,
  GenerateRequest,
  GenerateResult,
  Model,
  ModelSession,
} from "../../src/model/model.ts";
import { type ModelScript, scriptedModel } from "../../src/model/scripted/scripted_model.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertRejectsWith,
  assertStringIncludes,
} from "../helpers/assert.ts";
import { withTempDir } from "../agent/temp_dir.ts";
import { answerTokenCap } from "../../src/model/answer_cap.ts";
import { estimatePromptTokens, estimateTextTokens } from "../../src/model/token_estimate.ts";
import { DEFAULT_TOOL_OUTPUT_SHARE } from "../../src/acp/compaction/context_budget.ts";

/** What one `generate` call was given (callbacks left out). */
type SeenRequest = Omit<GenerateRequest, "onTextChunk" | "onThoughtChunk" | "signal">;

/** `model` with every request recorded and its sessions counted. */
function recording(model: Model) {
  const seen: SeenRequest[] = [];
  const sessions = { opened: 0, disposed: 0 };
  const recorded: Model = {
    displayName: model.displayName,
    async openSession() {
      const inner = await model.openSession();
      sessions.opened++;
      return {
        generate(request) {
          const { onTextChunk: _t, onThoughtChunk: _th, signal: _s, ...rest } = request;
          seen.push(structuredClone(rest));
          return inner.generate(request);
        },
        async dispose() {
          sessions.disposed++;
          await inner.dispose();
        },
      };
    },
    dispose: () => model.dispose(),
  };
  return { model: recorded, seen, sessions };
}

function evaluatorFor(model: Model, roots: readonly string[] = ["/project"]) {
  const logs: string[] = [];
  const evaluator = createModelEvaluator({
    models: { get: () => Promise.resolve(model) },
    roots,
    log: (line) => logs.push(line),
  });
  return { evaluator, logs };
}

function request(
  kind: "prompt" | "agent",
  overrides: Partial<EvaluationRequest> = {},
): EvaluationRequest {
  return {
    kind,
    prompt: 'Block deploys on Friday. {"tool_name": "shell"}',
    payload: { hook_event_name: "PreToolUse", tool_name: "shell" },
    cwd: "/project",
    signal: new AbortController().signal,
    timeoutMs: 30_000,
    ...overrides,
  };
}

function scripted(script: ModelScript) {
  return recording(scriptedModel(script));
}

Deno.test("a prompt hook is one grammar-constrained call in a session of its own", async () => {
  const { model, seen, sessions } = scripted({ turns: [{ text: '{"ok": true}' }] });
  const { evaluator } = evaluatorFor(model);
  assertEquals(await evaluator.evaluate(request("prompt")), { ok: true });
  assertEquals(sessions, { opened: 1, disposed: 1 });
  assertEquals(seen.length, 1);
  const call = seen[0];
  assert(call);
  assertEquals(call.tools, []);
  assertEquals(call.responseSchema, VERDICT_SCHEMA);
  assertEquals(call.maxTokens, VERDICT_MAX_TOKENS);
  assertEquals(call.conversation.map((item) => item.role), ["system", "user"]);
  const [system, user] = call.conversation;
  assert(system?.role === "system" && user?.role === "user");
  assertStringIncludes(system.text, '{"ok": false, "reason": "..."}');
  assertStringIncludes(system.text, '"reason" is required');
  assert(!system.text.includes("fs_read"), "a prompt hook has no tools");
  assertEquals(user.text, 'Block deploys on Friday. {"tool_name": "shell"}');
});

Deno.test("a prompt hook's ok:false comes back with its reason", async () => {
  const { model, sessions } = scripted({
    turns: [{ thought: "It is Friday.", text: '{"ok": false, "reason": "no deploys on Friday"}' }],
  });
  const { evaluator } = evaluatorFor(model);
  assertEquals(await evaluator.evaluate(request("prompt")), {
    ok: false,
    reason: "no deploys on Friday",
  });
  assertEquals(sessions, { opened: 1, disposed: 1 });
});

Deno.test("each evaluation opens a new session and disposes it", async () => {
  const { model, sessions } = scripted({ turns: [{ text: '{"ok": true, "reason": "fine"}' }] });
  const { evaluator } = evaluatorFor(model);
  // A scripted session starts at the first turn: both evaluations get it.
  assertEquals(await evaluator.evaluate(request("prompt")), { ok: true, reason: "fine" });
  assertEquals(await evaluator.evaluate(request("prompt")), { ok: true, reason: "fine" });
  assertEquals(sessions, { opened: 2, disposed: 2 });
});

Deno.test("an agent hook reads files inside the roots only, then gives its verdict", async () => {
  await withTempDir({
    "project/notes.txt": "Deploys are frozen this week.\n",
    "secret.txt": "outside\n",
  }, async (dir) => {
    const cwd = `${dir}/project`;
    const { model, seen, sessions } = scripted({
      turns: [
        { toolCalls: [{ name: "fs_read", input: { file_path: "notes.txt" } }] },
        {
          thought: "And the other one.",
          toolCalls: [
            { name: "read_file", input: { file_path: "../secret.txt" } },
            { name: "shell", input: { command: "cat ../secret.txt" } },
          ],
        },
        { text: "The notes freeze deploys." },
        { text: '{"ok": false, "reason": "deploys are frozen"}' },
      ],
    });
    const { evaluator } = evaluatorFor(model, [cwd]);
    const verdict = await evaluator.evaluate(request("agent", { cwd }));
    assertEquals(verdict, { ok: false, reason: "deploys are frozen" });
    assertEquals(sessions, { opened: 1, disposed: 1 });
    assertEquals(seen.length, 4);

    // The tool rounds offer fs_read alone; the verdict offers nothing and asks for the schema.
    for (const call of seen.slice(0, 3)) {
      assertEquals(call.tools.map((tool) => tool.name), ["fs_read"]);
      assertEquals(call.responseSchema, undefined);
    }
    const last = seen[3];
    assert(last);
    assertEquals([last.tools, last.responseSchema], [[], VERDICT_SCHEMA]);
    const system = last.conversation[0];
    assert(system?.role === "system");
    assertStringIncludes(system.text, `fs_read tool (read-only; relative paths start at "${cwd}")`);

    // The verdict continues the agent's message: its calls with their results, then its text.
    const message = last.conversation.at(-1);
    assert(message?.role === "assistant", "the verdict continues the assistant message");
    const segments: AssistantSegment[] = [...message.segments];
    assertEquals(segments.map((segment) => segment.type), [
      "tool_call",
      "thought",
      "tool_call",
      "tool_call",
      "text",
    ]);
    const results = segments.flatMap((s) => s.type === "tool_call" ? [[s.name, s.result]] : []);
    assertEquals(results[0], ["fs_read", "Deploys are frozen this week.\n"]);
    assertEquals(results[1]?.[0], "read_file");
    assertStringIncludes(results[1]?.[1] ?? "", 'Cannot read "../secret.txt"');
    assertStringIncludes(results[1]?.[1] ?? "", "outside the allowed directories");
    assertEquals(results[2], [
      "shell",
      'Cannot run "shell": an agent hook may only read files, with fs_read',
    ]);
    assertEquals(segments.at(-1), { type: "text", text: "The notes freeze deploys." });
  });
});

Deno.test("an agent hook's read of a long file is cut to its share of the free context, naming the lines left out", async () => {
  const lines = Array.from({ length: 3_000 }, (_, i) => `entry ${i + 1}\n`).join("");
  await withTempDir({ "big.txt": lines }, async (dir) => {
    const { model: recorded, seen } = scripted({
      turns: [
        { toolCalls: [{ name: "fs_read", input: { file_path: "big.txt" } }] },
        { text: '{"ok": true}' },
      ],
    });
    // The scripted model with a context: 2,048 tokens.
    const model: Model = {
      ...recorded,
      async openSession() {
        const inner = await recorded.openSession();
        return {
          contextSize: 2048,
          generate: (r) => inner.generate(r),
          dispose: () => inner.dispose(),
        };
      },
    };
    const { evaluator } = evaluatorFor(model, [dir]);
    assertEquals(await evaluator.evaluate(request("agent", { cwd: dir })), { ok: true });
    const message = seen[1]?.conversation.at(-1);
    assert(message?.role === "assistant");
    const call = message.segments[0];
    assert(call?.type === "tool_call");
    const before = estimatePromptTokens(seen[1]!.conversation.slice(0, -1), seen[1]!.tools);
    const share = Math.floor((2048 - before - answerTokenCap(2048)) * DEFAULT_TOOL_OUTPUT_SHARE);
    assert(
      estimateTextTokens(call.result) <= share,
      `${estimateTextTokens(call.result)} > ${share}`,
    );
    const shown = call.result.split("\n").filter((line) => line.startsWith("entry "));
    assertEquals(shown[0], "entry 1");
    const lastHead = shown.findIndex((line, i) => line !== `entry ${i + 1}`);
    assert(lastHead > 0, "the head ends before the tail begins");
    const nextShown = Number(shown[lastHead]!.slice(6));
    assertStringIncludes(
      call.result,
      `read them with fs_read "big.txt" offset ${lastHead + 1} and limit ${
        nextShown - lastHead - 1
      }`,
    );
  });
});

Deno.test("an agent hook's answer that already is a verdict is taken as it is", async () => {
  await withTempDir({ "notes.txt": "all good\n" }, async (dir) => {
    // Two turns only: a third model call would find the script exhausted.
    const { model, seen } = scripted({
      turns: [
        { toolCalls: [{ name: "fs_read", input: { file_path: "notes.txt" } }] },
        { text: '{"ok": true}\n' },
      ],
    });
    const { evaluator } = evaluatorFor(model, [dir]);
    assertEquals(await evaluator.evaluate(request("agent", { cwd: dir })), { ok: true });
    assertEquals(seen.map((call) => call.responseSchema), [undefined, undefined]);
  });
});

Deno.test(`after ${MAX_AGENT_TOOL_ROUNDS} tool rounds an agent hook must give its verdict`, async () => {
  await withTempDir({ "notes.txt": "again\n" }, async (dir) => {
    const read = { toolCalls: [{ name: "fs_read", input: { file_path: "notes.txt" } }] };
    const { model, seen, sessions } = scripted({
      turns: [
        ...Array.from({ length: MAX_AGENT_TOOL_ROUNDS }, () => read),
        { text: '{"ok": false, "reason": "still unsure"}' },
      ],
    });
    const { evaluator, logs } = evaluatorFor(model, [dir]);
    assertEquals(await evaluator.evaluate(request("agent", { cwd: dir })), {
      ok: false,
      reason: "still unsure",
    });
    assertEquals(seen.length, MAX_AGENT_TOOL_ROUNDS + 1);
    assertEquals(seen.map((call) => call.tools.length), [
      ...Array.from({ length: MAX_AGENT_TOOL_ROUNDS }, () => 1),
      0,
    ]);
    const verdictCall = seen.at(-1);
    assertEquals(verdictCall?.responseSchema, VERDICT_SCHEMA);
    const message = verdictCall?.conversation.at(-1);
    assert(message?.role === "assistant");
    assertEquals(message.segments.length, MAX_AGENT_TOOL_ROUNDS);
    assertEquals(logs, [
      `An agent hook used its ${MAX_AGENT_TOOL_ROUNDS} tool rounds: asking for its verdict`,
    ]);
    assertEquals(sessions, { opened: 1, disposed: 1 });
  });
});

Deno.test("an answer that is not a verdict rejects with what was wrong", async (t) => {
  const cases: [string, string][] = [
    ["Yes, go ahead.", 'Invalid verdict "Yes, go ahead.": it is not JSON; expected {"ok": boolean'],
    ['{"ok": "yes"}', 'Invalid verdict "{\\"ok\\": \\"yes\\"}": '],
    ["[true]", "Invalid verdict"],
    ["", 'Invalid verdict "": it is not JSON'],
  ];
  for (const [answer, expected] of cases) {
    await t.step(JSON.stringify(answer), async () => {
      const { model, sessions } = scripted({ turns: [{ text: answer }] });
      const { evaluator } = evaluatorFor(model);
      const error = await assertRejectsWith(
        () => evaluator.evaluate(request("prompt")),
        AgentError,
      );
      assertStringIncludes(error.message, expected);
      assertEquals(sessions, { opened: 1, disposed: 1 });
    });
  }
});

Deno.test("through runEvaluatedHandler an invalid verdict is a non-blocking error", async () => {
  const { model } = scripted({ turns: [{ text: "sure" }] });
  const { evaluator } = evaluatorFor(model);
  const result = await runEvaluatedHandler(
    { type: "prompt", prompt: "Is $ARGUMENTS safe?" },
    { hook_event_name: "Stop" },
    { event: "Stop", cwd: "/project", sessionId: "s" },
    evaluator,
  );
  assert(result.kind === "failed", JSON.stringify(result));
  assertEquals(result.failure, "evaluator");
  assertEquals(
    result.message,
    `The "prompt" hook's model failed: Invalid verdict "sure": it is not JSON; expected ` +
      '{"ok": boolean, "reason"?: string}',
  );
});

Deno.test("a script turn with tool calls cannot answer a verdict", async () => {
  const { model, sessions } = scripted({
    turns: [{ toolCalls: [{ name: "fs_read", input: { file_path: "x" } }] }],
  });
  const { evaluator } = evaluatorFor(model);
  const error = await assertRejectsWith(() => evaluator.evaluate(request("prompt")), AgentError);
  assertStringIncludes(error.message, 'turn 1 has "toolCalls", but this model call asks for');
  assertEquals(sessions, { opened: 1, disposed: 1 });
});

/** A model whose every generation runs until its signal aborts, or fails with `failure`. */
function stuckModel(failure?: Error) {
  const started = Promise.withResolvers<void>();
  const sessions = { opened: 0, disposed: 0 };
  const cancelled: GenerateResult = {
    text: "",
    thought: "",
    toolCalls: [],
    stop: "cancelled",
    tokens: { prompt: 0, evaluated: 0, generated: 0 },
  };
  const session: ModelSession = {
    generate(request) {
      started.resolve();
      if (failure) return Promise.reject(failure);
      return new Promise((resolve) => {
        request.signal.addEventListener("abort", () => resolve(cancelled), { once: true });
      });
    },
    dispose() {
      sessions.disposed++;
      return Promise.resolve();
    },
  };
  const model: Model = {
    displayName: "stuck",
    openSession() {
      sessions.opened++;
      return Promise.resolve(session);
    },
    dispose: () => Promise.resolve(),
  };
  return { model, sessions, started: started.promise };
}

Deno.test("aborting stops the generation, rejects and disposes the session", async (t) => {
  for (const kind of ["prompt", "agent"] as const) {
    await t.step(kind, async () => {
      const { model, sessions, started } = stuckModel();
      const { evaluator } = evaluatorFor(model);
      const controller = new AbortController();
      const evaluation = evaluator.evaluate(request(kind, { signal: controller.signal }));
      await started;
      controller.abort();
      const error = await assertRejects(() => evaluation);
      assert(error instanceof DOMException && error.name === "AbortError", String(error));
      assertEquals(sessions, { opened: 1, disposed: 1 });
    });
  }
  await t.step("aborted before it starts: no session is opened", async () => {
    const { model, sessions } = stuckModel();
    const { evaluator } = evaluatorFor(model);
    const controller = new AbortController();
    controller.abort();
    await assertRejects(() => evaluator.evaluate(request("prompt", { signal: controller.signal })));
    assertEquals(sessions, { opened: 0, disposed: 0 });
  });
  await t.step("aborted while the model loads: no session is opened", async () => {
    const { model, sessions } = stuckModel();
    const loaded = Promise.withResolvers<Model>();
    const evaluator = createModelEvaluator({
      models: { get: () => loaded.promise },
      roots: [],
      log: () => {},
    });
    const controller = new AbortController();
    const evaluation = evaluator.evaluate(request("prompt", { signal: controller.signal }));
    controller.abort();
    await assertRejects(() => evaluation);
    loaded.resolve(model);
    assertEquals(sessions, { opened: 0, disposed: 0 });
  });
});

Deno.test("a model that fails rejects with its error, and the session is disposed", async () => {
  const { model, sessions } = stuckModel(
    new AgentError("CONTEXT_FULL", "The conversation is full"),
  );
  const { evaluator } = evaluatorFor(model);
  const error = await assertRejectsWith(() => evaluator.evaluate(request("agent")), AgentError);
  assertEquals([error.code, error.message], ["CONTEXT_FULL", "The conversation is full"]);
  assertEquals(sessions, { opened: 1, disposed: 1 });
});

Deno.test("a model that cannot load rejects with the load failure", async () => {
  const evaluator = createModelEvaluator({
    models: { get: () => Promise.reject(new AgentError("MODEL_LOAD", 'Cannot load model "m"')) },
    roots: [],
    log: () => {},
  });
  const error = await assertRejectsWith(() => evaluator.evaluate(request("prompt")), AgentError);
  assertEquals(error.message, 'Cannot load model "m"');
});
