/**
 * Response schemas on the real path: node-llama-cpp's JSON-schema grammar over generated scripted
 * models, alone and under the hook evaluator (src/acp/model_evaluator.ts). llama.cpp loads once
 * for the file; each step loads its own small model.
 */
import {
  createModelEvaluator,
  readOnlyTools,
  VERDICT_MAX_TOKENS,
  VERDICT_SCHEMA,
} from "../../src/acp/model_evaluator.ts";
import { AgentError } from "../../src/error.ts";
import type { EvaluationRequest } from "../../src/hooks/handlers/evaluator.ts";
import { openLlamaRuntime, preloadLlama } from "../../src/model/llama/llama_model.ts";
import type {
  ConversationItem,
  GenerateRequest,
  GenerateResult,
  Model,
  ModelSession,
} from "../../src/model/model.ts";
import { withTempDir } from "../agent/temp_dir.ts";
import { assert, assertEquals, assertRejectsWith } from "../helpers/assert.ts";
import {
  FRIDAY_VERDICT,
  READ_NOTES_THEN_VERDICT,
  READ_NOTES_VERDICT,
  writeReplyModel,
  writeToolCallModel,
} from "../helpers/test_models.ts";

// Its signal handlers belong to the process, not to a test (see preloadLlama).
await preloadLlama();

const USER: ConversationItem[] = [
  { role: "system", text: "You are a test." },
  { role: "user", text: "May I deploy?" },
];

function generate(
  session: ModelSession,
  conversation: readonly ConversationItem[],
  options: Partial<Pick<GenerateRequest, "responseSchema" | "tools">> = {},
): Promise<GenerateResult & { chunks: string[] }> {
  const chunks: string[] = [];
  return session.generate({
    conversation,
    tools: options.tools ?? [],
    signal: new AbortController().signal,
    ...(options.responseSchema === undefined ? {} : { responseSchema: options.responseSchema }),
    onTextChunk: (text) => chunks.push(text),
    onThoughtChunk: () => {},
  }).then((result) => ({ ...result, chunks }));
}

/** `model` with the sessions it opened and disposed counted, and the conversations it got. */
function counting(model: Model) {
  const sessions = { opened: 0, disposed: 0 };
  const conversations: (readonly ConversationItem[])[] = [];
  const counted: Model = {
    displayName: model.displayName,
    async openSession() {
      const session = await model.openSession();
      sessions.opened++;
      return {
        contextSize: session.contextSize,
        generate: (request) => {
          conversations.push(request.conversation);
          return session.generate(request);
        },
        async dispose() {
          sessions.disposed++;
          await session.dispose();
        },
      };
    },
    dispose: () => model.dispose(),
  };
  return { model: counted, sessions, conversations };
}

function hookRequest(kind: "prompt" | "agent", cwd: string): EvaluationRequest {
  return {
    kind,
    prompt: 'Block deploys on Friday. {"hook_event_name": "PreToolUse"}',
    payload: { hook_event_name: "PreToolUse" },
    cwd,
    signal: new AbortController().signal,
    timeoutMs: 30_000,
  };
}

Deno.test("response schemas on the llama backend", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "llama_response_schema_test_" });
  const logs: string[] = [];
  const runtime = await openLlamaRuntime({ gpu: "off", log: (line) => logs.push(line) });
  const load = (modelPath: string) =>
    runtime.loadModel({ modelPath, contextSize: 2048, threads: 1 });
  try {
    await t.step("a reply model answers its verdict exactly through the grammar", async () => {
      const model = await load(await writeReplyModel(dir, FRIDAY_VERDICT, "verdict.gguf"));
      const session = await model.openSession();
      try {
        const result = await generate(session, USER, { responseSchema: VERDICT_SCHEMA });
        assertEquals([result.text, result.thought, result.stop], [FRIDAY_VERDICT, "", "end"]);
        assertEquals(result.toolCalls, []);
        // Seven pieces, then the four newlines the grammar ends with (trimmed from the text).
        assertEquals(result.tokens.generated, 11);
        assertEquals(result.chunks.join(""), FRIDAY_VERDICT);
        // The same schema again (its grammar comes from the cache), and without one.
        const again = await generate(session, USER, { responseSchema: { ...VERDICT_SCHEMA } });
        assertEquals(again.text, FRIDAY_VERDICT);
        const free = await generate(session, USER);
        assertEquals([free.text, free.tokens.generated], [FRIDAY_VERDICT, 8]);
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });

    await t.step("the grammar holds a model to the schema, whatever it would say", async () => {
      const model = await load(await writeReplyModel(dir, "Sure, go ahead.", "prose.gguf"));
      const session = await model.openSession();
      try {
        const result = await session.generate({
          conversation: USER,
          tools: [],
          signal: new AbortController().signal,
          maxTokens: VERDICT_MAX_TOKENS,
          responseSchema: {
            type: "object",
            properties: { ok: { type: "boolean" } },
            required: ["ok"],
            additionalProperties: false,
          },
          onTextChunk: () => {},
          onThoughtChunk: () => {},
        });
        // Whatever it became, it is the schema's object: the prose is not allowed.
        const value: unknown = JSON.parse(result.text);
        assert(
          typeof value === "object" && value !== null && Object.keys(value).join() === "ok" &&
            "ok" in value && typeof value.ok === "boolean",
          JSON.stringify(result.text),
        );
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });

    await t.step("a response schema with tools is refused", async () => {
      const model = await load(`${dir}/verdict.gguf`);
      const session = await model.openSession();
      try {
        const error = await assertRejectsWith(
          () =>
            generate(session, USER, {
              responseSchema: VERDICT_SCHEMA,
              tools: [{ name: "t", description: "t", inputSchema: { type: "object" } }],
            }),
          AgentError,
        );
        assertEquals(error.message, "A response schema cannot be combined with tools");
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });

    await t.step("a prompt hook has a session of its own; the main one is untouched", async () => {
      const { model, sessions } = counting(await load(`${dir}/verdict.gguf`));
      const evaluator = createModelEvaluator({
        models: { get: () => Promise.resolve(model) },
        roots: [dir],
        log: (line) => logs.push(line),
      });
      /** Two turns in a fresh main session, with `between` run after the first. */
      const twoTurns = async (between: () => Promise<void>) => {
        const main = await model.openSession();
        try {
          const conversation = [...USER];
          const first = await generate(main, conversation);
          await between();
          conversation.push(
            { role: "assistant", segments: [{ type: "text", text: first.text }] },
            { role: "user", text: "And on Monday?" },
          );
          return (await generate(main, conversation)).tokens;
        } finally {
          await main.dispose();
        }
      };
      const verdicts: unknown[] = [];
      const withHook = await twoTurns(async () => {
        verdicts.push(await evaluator.evaluate(hookRequest("prompt", dir)));
      });
      const without = await twoTurns(() => Promise.resolve());
      assertEquals(verdicts, [{ ok: false, reason: "no deploys on Friday" }]);
      // Two main sessions and the evaluation's own, each disposed.
      assertEquals(sessions, { opened: 3, disposed: 3 });
      // The second main turn found its cached prefix as if no hook had run.
      assertEquals(withHook, without);
      assert(withHook.evaluated < withHook.prompt / 2, JSON.stringify(withHook));
      await model.dispose();
    });

    await t.step("an agent hook reads a file with fs_read, then answers", async () => {
      await withTempDir({ "notes.txt": "Deploys are frozen.\n" }, async (project) => {
        const { model, sessions, conversations } = counting(
          await load(await writeToolCallModel(dir, READ_NOTES_VERDICT, "agent.gguf")),
        );
        try {
          const evaluator = createModelEvaluator({
            models: { get: () => Promise.resolve(model) },
            roots: [project],
            log: (line) => logs.push(line),
          });
          assertEquals(await evaluator.evaluate(hookRequest("agent", project)), {
            ok: true,
            reason: "nothing in the notes",
          });
          assertEquals(sessions, { opened: 1, disposed: 1 });
          // Two calls: the read, then an answer that already was a verdict.
          assertEquals(conversations.length, 2);
          assertEquals(conversations[1]?.at(-1), {
            role: "assistant",
            segments: [{
              type: "tool_call",
              name: "fs_read",
              input: { file_path: "notes.txt" },
              result: "Deploys are frozen.\n",
            }],
          });
        } finally {
          await model.dispose();
        }
      });
    });

    await t.step("an agent hook reads, answers in prose, then gives its verdict", async () => {
      await withTempDir({ "notes.txt": "Deploys are frozen.\n" }, async (project) => {
        const { model, conversations } = counting(
          await load(await writeToolCallModel(dir, READ_NOTES_THEN_VERDICT, "agent_prose.gguf")),
        );
        try {
          const evaluator = createModelEvaluator({
            models: { get: () => Promise.resolve(model) },
            roots: [project],
            log: (line) => logs.push(line),
          });
          assertEquals(await evaluator.evaluate(hookRequest("agent", project)), {
            ok: false,
            reason: "deploys are frozen",
          });
          // The read, the prose answer, and the verdict under the grammar continuing it.
          assertEquals(conversations.length, 3);
          const message = conversations[2]?.at(-1);
          assert(message?.role === "assistant");
          assertEquals(message.segments.map((segment) => segment.type), ["tool_call", "text"]);
          assertEquals(message.segments[1], { type: "text", text: READ_NOTES_THEN_VERDICT.answer });
        } finally {
          await model.dispose();
        }
      });
    });

    await t.step("without a grammar the verdict link is never taken", async () => {
      const model = await load(`${dir}/agent_prose.gguf`);
      const session = await model.openSession();
      try {
        const answer = await generate(session, [
          { role: "user", text: "Go." },
          {
            role: "assistant",
            segments: [{
              type: "tool_call",
              name: "fs_read",
              input: READ_NOTES_THEN_VERDICT.params,
              result: "anything",
            }],
          },
        ], { tools: readOnlyTools() });
        assertEquals([answer.text, answer.stop], [READ_NOTES_THEN_VERDICT.answer, "end"]);
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });
  } finally {
    await runtime.dispose();
    await Deno.remove(dir, { recursive: true });
  }
  assertEquals(logs.filter((line) => / error: /.test(line)), []);
});
