/**
 * The tool choice on the real path: node-llama-cpp running generated scripted models (ChatML,
 * so the generic call syntax), with the choice constrained or required. A constrained choice
 * must leave a model's own decision alone: a model that calls a tool calls it, with the same
 * input, and one that answers in words answers the same words, even words that start like the
 * call syntax.
 */
import { toLlamaFunctions } from "../../src/model/llama/llama_functions.ts";
import { toLlamaHistory } from "../../src/model/llama/llama_history.ts";
import { openLlamaRuntime, preloadLlama } from "../../src/model/llama/llama_model.ts";
import { LlamaToolChoice } from "../../src/model/llama/llama_tool_choice.ts";
import type {
  ConversationItem,
  GenerateResult,
  ModelSession,
  ToolDefinition,
} from "../../src/model/model.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import {
  oneStringTool,
  READ_NOTES,
  writeReplyModel,
  writeToolCallModel,
} from "../helpers/test_models.ts";

await preloadLlama();

/** Two tools with one string each, no other keys. */
const TOOLS: ToolDefinition[] = [
  oneStringTool("shell", "Run a shell command.", "command"),
  oneStringTool("fs_read", "Read a text file.", "file_path"),
];

const ASK: ConversationItem[] = [
  { role: "system", text: "You are a test." },
  { role: "user", text: "What do the notes say?" },
];

function generate(
  session: ModelSession,
  conversation: readonly ConversationItem[],
  tools: readonly ToolDefinition[] = TOOLS,
): Promise<GenerateResult> {
  return session.generate({
    conversation,
    tools,
    signal: new AbortController().signal,
    maxTokens: 64,
    onTextChunk: () => {},
    onThoughtChunk: () => {},
  });
}

Deno.test("the tool choice on generated models", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "llama_tool_choice_test_" });
  const runtime = await openLlamaRuntime({ gpu: "off", log: () => {} });
  const open = async (modelPath: string, toolChoice: "free" | "constrained" | "required") => {
    const model = await runtime.loadModel({ modelPath, contextSize: 2048, threads: 1, toolChoice });
    return { model, session: await model.openSession() };
  };
  try {
    await t.step("a model that calls a tool makes the same call, then answers", async () => {
      const path = await writeToolCallModel(dir, READ_NOTES);
      const { model, session } = await open(path, "constrained");
      try {
        const called = await generate(session, ASK);
        assertEquals(called.stop, "tool_calls");
        assertEquals(called.toolCalls, [{ name: "fs_read", input: { file_path: "notes.txt" } }]);
        assertEquals(called.text, "");
        // After the result the choice is made again, and the model chooses to answer.
        const answered = await generate(session, [...ASK, {
          role: "assistant",
          segments: [{
            type: "tool_call",
            name: "fs_read",
            input: { file_path: "notes.txt" },
            result: "Ship on Friday.",
          }],
        }]);
        assertEquals(answered.stop, "end");
        assertEquals(answered.toolCalls, []);
        assertEquals(answered.text, READ_NOTES.answer);
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });

    for (
      const reply of [
        "The notes say to ship on Friday.",
        // Text may start with the call prefix's characters and still be text.
        "| notes | ship on Friday |",
        "|| means or in the notes.",
      ]
    ) {
      await t.step(`a model that answers ${JSON.stringify(reply)} answers it`, async () => {
        const path = await writeReplyModel(dir, reply, `reply_${reply.length}.gguf`);
        const free = await open(path, "free");
        const constrained = await open(path, "constrained");
        try {
          const result = await generate(constrained.session, ASK);
          const unconstrained = await generate(free.session, ASK);
          // node-llama-cpp holds back a trailing "|" as the possible start of a call, choice or no.
          assertEquals(result.text, reply.replace(/\|$/, ""));
          assertEquals(result.text, unconstrained.text);
          assertEquals(result.toolCalls, []);
          assertEquals(result.stop, "end");
          // The choice adds nothing to the prompt: it is counted and evaluated as without it.
          assertEquals(
            await constrained.session.countPromptTokens?.(ASK, TOOLS),
            await free.session.countPromptTokens?.(ASK, TOOLS),
          );
          assertEquals(result.tokens.prompt, unconstrained.tokens.prompt);
        } finally {
          for (const { model, session } of [free, constrained]) {
            await session.dispose();
            await model.dispose();
          }
        }
      });
    }

    await t.step("required: a model that answers in words is made to call a tool", async () => {
      const path = await writeReplyModel(dir, "No call from me.", "reply_required.gguf");
      const { model, session } = await open(path, "required");
      // A tool without params: the reply model would fill a string param without end.
      const status: ToolDefinition = {
        name: "git_status",
        description: "Show the working tree's status.",
        inputSchema: { type: "object", properties: {} },
      };
      try {
        const result = await generate(session, ASK, [status]);
        assertEquals(result.stop, "tool_calls");
        assertEquals(result.toolCalls, [{ name: "git_status", input: {} }]);
        assertEquals(result.text, "");
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });
  } finally {
    await runtime.dispose();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the first step reads the choice from the model's first tokens", async () => {
  const { getLlama, LlamaChat, LlamaLogLevel } = await import("node-llama-cpp");
  const dir = await Deno.makeTempDir({ prefix: "llama_tool_choice_test_" });
  const llama = await getLlama({
    gpu: false,
    build: "never",
    skipDownload: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
    logger: () => {},
  });
  const names = TOOLS.map((tool) => tool.name);
  try {
    const models = [
      { path: await writeToolCallModel(dir, READ_NOTES), call: true },
      { path: await writeReplyModel(dir, "|| means or.", "pipes.gguf"), call: false },
      { path: await writeReplyModel(dir), call: false },
    ];
    for (const { path, call } of models) {
      const model = await llama.loadModel({ modelPath: path });
      const context = await model.createContext({ contextSize: 2048, threads: 1 });
      try {
        const chat = new LlamaChat({ contextSequence: context.getSequence() });
        const choice = await LlamaToolChoice.forWrapper(chat.chatWrapper, "constrained");
        const prompt = chat.chatWrapper.generateContextState({
          chatHistory: toLlamaHistory(ASK),
          availableFunctions: toLlamaFunctions(TOOLS),
        }).contextText.tokenize(model.tokenizer);
        const signal = new AbortController().signal;
        assertEquals(
          await choice?.startsWithCall(chat.sequence, prompt, names, signal),
          call,
          path,
        );
        // Asked again on the same sequence (the prompt is in it now): the same choice.
        assertEquals(
          await choice?.startsWithCall(chat.sequence, prompt, names, signal),
          call,
          path,
        );
        chat.dispose();
      } finally {
        await context.dispose();
        await model.dispose();
      }
    }
  } finally {
    await llama.dispose();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a chat wrapper with a call syntax of its own gets no tool choice", async () => {
  const { ChatMLChatWrapper, Llama3_1ChatWrapper, QwenChatWrapper } = await import(
    "node-llama-cpp"
  );
  for (const wrapper of [new QwenChatWrapper(), new Llama3_1ChatWrapper()]) {
    assertEquals(await LlamaToolChoice.forWrapper(wrapper, "constrained"), undefined);
  }
  assert(await LlamaToolChoice.forWrapper(new ChatMLChatWrapper(), "constrained"));
  assertEquals(await LlamaToolChoice.forWrapper(new ChatMLChatWrapper(), "free"), undefined);
});
