/**
 * The llama backend on the real path: node-llama-cpp running generated scripted models. llama.cpp
 * loads once for the file (it costs ~0.5–1 s); each step loads its own small model.
 */
import { AgentError } from "../../src/error.ts";
import {
  loadLlamaModel,
  openLlamaRuntime,
  preloadLlama,
} from "../../src/model/llama/llama_model.ts";
import type {
  ConversationItem,
  GenerateRequest,
  GenerateResult,
  ModelSession,
  ToolDefinition,
} from "../../src/model/model.ts";
import { writeRandomWeightsModel } from "../../src/model/scripted/random_weights_gguf.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import {
  READ_NOTES,
  REPLY_TEXT,
  SLEEP_SHELL,
  WRITE_OUT,
  writeEndlessModel,
  writeReplyModel,
  writeToolCallModel,
} from "../helpers/test_models.ts";

// Its signal handlers belong to the process, not to a test (see preloadLlama).
await preloadLlama();

/** The shapes of the agent's built-in tools: optional properties, no extra keys. */
const TOOLS: ToolDefinition[] = [
  {
    name: "shell",
    description: "Run a shell command.",
    inputSchema: {
      type: "object",
      properties: {
        command: { type: "string" },
        timeout: { type: "integer", minimum: 1 },
      },
      required: ["command"],
      additionalProperties: false,
    },
  },
  {
    name: "fs_read",
    description: "Read a text file.",
    inputSchema: {
      type: "object",
      properties: {
        file_path: { type: "string" },
        offset: { type: "integer" },
        limit: { type: "integer" },
      },
      required: ["file_path"],
      additionalProperties: false,
    },
  },
  {
    name: "fs_write",
    description: "Write a text file.",
    inputSchema: {
      type: "object",
      properties: { file_path: { type: "string" }, content: { type: "string" } },
      required: ["file_path", "content"],
      additionalProperties: false,
    },
  },
];

interface Generation extends GenerateResult {
  readonly chunks: string[];
}

async function generate(
  session: ModelSession,
  conversation: readonly ConversationItem[],
  options: Partial<Pick<GenerateRequest, "tools" | "maxTokens" | "signal">> & {
    onChunk?(text: string): void;
  } = {},
): Promise<Generation> {
  const chunks: string[] = [];
  const result = await session.generate({
    conversation,
    tools: options.tools ?? [],
    signal: options.signal ?? new AbortController().signal,
    maxTokens: options.maxTokens,
    onTextChunk: (text) => {
      chunks.push(text);
      options.onChunk?.(text);
    },
    onThoughtChunk: () => {},
  });
  return { ...result, chunks };
}

const USER: ConversationItem[] = [
  { role: "system", text: "You are a test." },
  { role: "user", text: "Say hello." },
];

Deno.test("the llama backend", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "llama_model_test_" });
  const logs: string[] = [];
  const runtime = await openLlamaRuntime({ gpu: "off", log: (line) => logs.push(line) });
  const load = (modelPath: string) =>
    runtime.loadModel({ modelPath, contextSize: 4096, threads: 1 });
  try {
    await t.step("a reply model streams its exact reply and ends", async () => {
      const model = await load(await writeReplyModel(dir));
      const session = await model.openSession();
      try {
        const result = await generate(session, USER);
        assertEquals(result.text, REPLY_TEXT);
        assertEquals(result.chunks.join(""), REPLY_TEXT);
        assert(result.chunks.length > 1, "streamed in pieces");
        assertEquals(result.stop, "end");
        assertEquals(result.toolCalls, []);
        assert(result.tokens.prompt > 10, `prompt ${result.tokens.prompt}`);
        assertEquals(result.tokens.evaluated, result.tokens.prompt);
        assertEquals(result.tokens.generated, 6); // five pieces and <|im_end|>
        // The same reply with tools offered (their documentation fills the system prompt).
        const withTools = await generate(session, USER, { tools: TOOLS });
        assertEquals([withTools.text, withTools.stop], [REPLY_TEXT, "end"]);
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });

    await t.step("a tool-call model calls once, then answers from the result", async () => {
      const model = await load(await writeToolCallModel(dir, READ_NOTES));
      const session = await model.openSession();
      try {
        const conversation: ConversationItem[] = [
          { role: "user", text: "What is in notes.txt?" },
        ];
        const call = await generate(session, conversation, { tools: TOOLS });
        assertEquals(call.stop, "tool_calls");
        assertEquals(call.toolCalls, [{ name: "fs_read", input: { file_path: "notes.txt" } }]);
        assertEquals(call.text, "");

        conversation.push({
          role: "assistant",
          segments: [{
            type: "tool_call",
            name: "fs_read",
            input: { file_path: "notes.txt" },
            result: "buy milk",
          }],
        });
        const answer = await generate(session, conversation, { tools: TOOLS });
        assertEquals([answer.text, answer.stop], [READ_NOTES.answer, "end"]);
        assertEquals(answer.chunks.join(""), READ_NOTES.answer);
        assertEquals(answer.toolCalls, []);
        // Only the call's closing and its result were new to the model.
        assert(answer.tokens.evaluated < 40, `evaluated ${answer.tokens.evaluated}`);
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });

    await t.step("a second turn evaluates only its new tokens; text round-trips", async () => {
      // Spaces, a newline and non-ASCII: the re-read reply must be the tokens it was generated as.
      const reply = "Héllo,  wörld!\nSecond line ✓ done.";
      const model = await load(await writeReplyModel(dir, reply, "turns.gguf"));
      const session = await model.openSession();
      try {
        const conversation: ConversationItem[] = [...USER];
        const first = await generate(session, conversation, { tools: TOOLS });
        conversation.push(
          { role: "assistant", segments: [{ type: "text", text: first.text }] },
          { role: "user", text: "And now tell me something else, please, in a few words." },
        );
        const second = await generate(session, conversation, { tools: TOOLS });
        assertEquals([first.text, second.text], [reply, reply]);
        const newTokens = second.tokens.prompt - (first.tokens.prompt + first.tokens.generated);
        console.error(
          `prefix reuse: turn 1 prompt ${first.tokens.prompt} (evaluated ${first.tokens.evaluated}), ` +
            `turn 2 prompt ${second.tokens.prompt}, new ${newTokens}, evaluated ${second.tokens.evaluated}`,
        );
        assert(newTokens > 10, `new tokens ${newTokens}`);
        assert(
          second.tokens.evaluated <= Math.ceil(newTokens * 1.1),
          `evaluated ${second.tokens.evaluated} for ${newTokens} new tokens`,
        );
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });

    await t.step("the shell and fs_write scripts call with their params", async () => {
      for (const script of [SLEEP_SHELL, WRITE_OUT]) {
        const model = await load(await writeToolCallModel(dir, script));
        const session = await model.openSession();
        try {
          const call = await generate(session, [{ role: "user", text: "Go." }], { tools: TOOLS });
          assertEquals(call.toolCalls, [{ name: script.toolName, input: script.params }]);
          const answer = await generate(session, [
            { role: "user", text: "Go." },
            {
              role: "assistant",
              segments: [{
                type: "tool_call",
                name: script.toolName,
                input: script.params,
                result: "done",
              }],
            },
          ], { tools: TOOLS });
          assertEquals([answer.text, answer.stop], [script.answer, "end"]);
        } finally {
          await session.dispose();
          await model.dispose();
        }
      }
    });

    await t.step("an endless reply stops promptly on abort, keeping its text", async () => {
      const model = await load(await writeEndlessModel(dir));
      const session = await model.openSession();
      try {
        const controller = new AbortController();
        let abortedAt = 0;
        let chunks = 0;
        const result = await generate(session, USER, {
          signal: controller.signal,
          onChunk: () => {
            if (++chunks === 20) {
              abortedAt = performance.now();
              controller.abort();
            }
          },
        });
        const latency = performance.now() - abortedAt;
        assertEquals(result.stop, "cancelled");
        assert(latency < 500, `stopped ${latency.toFixed(0)} ms after the abort`);
        assert(result.text.startsWith(" tick tock tick"), JSON.stringify(result.text));
        assertEquals(result.toolCalls, []);

        console.error(`cancel latency: ${latency.toFixed(1)} ms`);

        // Aborted while the prompt is evaluated, before any text.
        const during = new AbortController();
        const pending = generate(session, [...USER, { role: "user", text: "x".repeat(2000) }], {
          signal: during.signal,
        });
        during.abort();
        assertEquals((await pending).stop, "cancelled");

        // Already aborted: nothing runs.
        const early = await generate(session, USER, { signal: AbortSignal.abort() });
        assertEquals([early.stop, early.text, early.tokens.generated], ["cancelled", "", 0]);

        // A token cap.
        const capped = await generate(session, USER, { maxTokens: 5 });
        assertEquals([capped.stop, capped.text], ["max_tokens", " tick tock tick tock tick"]);
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });

    await t.step("a random-weights model of SmolLM2's width loads and generates", async () => {
      const path = `${dir}/random.gguf`;
      await writeRandomWeightsModel(path, { layers: 1 });
      const model = await load(path);
      const session = await model.openSession();
      try {
        const result = await generate(session, USER, { maxTokens: 8 });
        assertEquals([result.stop, result.tokens.generated], ["max_tokens", 8]);
        assert(result.text.length > 0);
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });

    await t.step("a missing or foreign model file is a clear error naming it", async () => {
      const missing = `${dir}/missing.gguf`;
      await assertAgentError(
        load(missing),
        "MODEL_LOAD",
        `Cannot load model "${missing}": no such file`,
      );
      const foreign = `${dir}/notes.txt`;
      await Deno.writeTextFile(foreign, "not a model");
      await assertAgentError(
        load(foreign),
        "MODEL_LOAD",
        `Cannot load model "${foreign}": not a GGUF file`,
      );
      // loadLlamaModel checks before it loads llama.cpp.
      await assertAgentError(
        loadLlamaModel({ modelPath: missing, gpu: "off" }),
        "MODEL_LOAD",
        `Cannot load model "${missing}": no such file`,
      );
    });
  } finally {
    await runtime.dispose();
    await Deno.remove(dir, { recursive: true });
  }
  assertEquals(logs.filter((line) => / error: /.test(line)), []);
});

async function assertAgentError(promise: Promise<unknown>, code: string, message: string) {
  try {
    await promise;
  } catch (error) {
    assert(error instanceof AgentError, String(error));
    assertEquals([error.code, error.message], [code, message]);
    return;
  }
  throw new Error(`Expected ${code}`);
}
