/**
 * The llama backend's context: counts from the model's own tokenizer that are exactly the prompt
 * generate() evaluates, cheap enough to take before every request; and a full context that is
 * said (CONTEXT_FULL before anything runs, `context_full` for an answer that fills it), never
 * shifted away in silence.
 */
import { openLlamaRuntime, preloadLlama } from "../../src/model/llama/llama_model.ts";
import { ContextFullError } from "../../src/model/context_full_error.ts";
import type {
  ConversationItem,
  GenerateRequest,
  GenerateResult,
  ModelSession,
  ToolDefinition,
} from "../../src/model/model.ts";
import { assert, assertEquals, assertRejectsWith } from "../helpers/assert.ts";
import {
  READ_NOTES,
  REPLY_TEXT,
  writeEndlessModel,
  writeReplyModel,
  writeToolCallModel,
} from "../helpers/test_models.ts";
import { testOnParts } from "../helpers/test_parts.ts";
import { sampleText } from "../helpers/token_samples.ts";

await preloadLlama();

const TOOLS: ToolDefinition[] = [{
  name: "fs_read",
  description: "Read a text file.",
  inputSchema: {
    type: "object",
    properties: { file_path: { type: "string" } },
    required: ["file_path"],
    additionalProperties: false,
  },
}];

function generate(
  session: ModelSession,
  conversation: readonly ConversationItem[],
  options: Partial<Pick<GenerateRequest, "tools" | "maxTokens">> = {},
): Promise<GenerateResult> {
  return session.generate({
    conversation,
    tools: options.tools ?? [],
    maxTokens: options.maxTokens,
    signal: new AbortController().signal,
    onTextChunk: () => {},
    onThoughtChunk: () => {},
  });
}

const CONVERSATIONS: Record<string, ConversationItem[]> = {
  "a user message": [{ role: "user", text: "Say hello." }],
  "a system prompt and a long numeric paste": [
    { role: "system", text: "You are a test." },
    { role: "user", text: sampleText("numbers", 1500) },
  ],
  "an earlier answer, then a question": [
    { role: "user", text: "Say hello." },
    { role: "assistant", segments: [{ type: "text", text: "Hello from the scripted model." }] },
    { role: "user", text: "And again, in other words." },
  ],
  "a tool call with its result, continued": [
    { role: "user", text: "What is in notes.txt?" },
    {
      role: "assistant",
      segments: [{
        type: "tool_call",
        name: "fs_read",
        input: { file_path: "notes.txt" },
        result: sampleText("code", 1500),
      }],
    },
  ],
};

Deno.test("the llama backend's context", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "llama_context_test_" });
  const runtime = await openLlamaRuntime({ gpu: "off", log: () => {} });
  try {
    await t.step(
      "countPromptTokens is the prompt generate() evaluates, with and without tools",
      async () => {
        const model = await runtime.loadModel({
          modelPath: await writeReplyModel(dir),
          contextSize: 4096,
          threads: 1,
        });
        try {
          for (const [name, conversation] of Object.entries(CONVERSATIONS)) {
            for (const tools of [[], TOOLS]) {
              // A fresh session evaluates the whole prompt: its count is the sequence's own.
              const session = await model.openSession();
              try {
                const counted = await session.countPromptTokens!(conversation, tools);
                const result = await generate(session, conversation, { tools, maxTokens: 1 });
                const label = `${name}, ${tools.length} tools`;
                assertEquals(result.tokens.prompt, counted, label);
                assertEquals(result.tokens.evaluated, counted, label);
              } finally {
                await session.dispose();
              }
            }
          }
        } finally {
          await model.dispose();
        }
      },
    );

    await t.step("a count takes well under a millisecond per thousand tokens", async () => {
      const model = await runtime.loadModel({
        modelPath: await writeReplyModel(dir),
        contextSize: 4096,
        threads: 1,
      });
      const session = await model.openSession();
      try {
        const conversation: ConversationItem[] = [
          { role: "system", text: sampleText("prose", 4000) },
          { role: "user", text: sampleText("numbers", 6000) },
        ];
        const tokens = await session.countPromptTokens!(conversation, TOOLS);
        const rounds = 20;
        const started = performance.now();
        for (let round = 0; round < rounds; round++) {
          await session.countPromptTokens!(conversation, TOOLS);
        }
        const each = (performance.now() - started) / rounds;
        console.error(`countPromptTokens: ${each.toFixed(2)} ms for ${tokens} tokens`);
        assert(each < tokens / 100, `${each.toFixed(2)} ms for ${tokens} tokens`);
        assertEquals(session.countTextTokens!(""), 0);
      } finally {
        await session.dispose();
        await model.dispose();
      }
    });

    await t.step(
      "a prompt that does not fit fails CONTEXT_FULL with its numbers before anything runs, and the session goes on",
      async () => {
        const model = await runtime.loadModel({
          modelPath: await writeReplyModel(dir),
          contextSize: 256,
          threads: 1,
        });
        const session = await model.openSession();
        try {
          assertEquals([session.contextSize, session.contextSource], [256, "model"]);
          const long: ConversationItem[] = [{ role: "user", text: sampleText("numbers", 2000) }];
          const counted = await session.countPromptTokens!(long, []);
          const error = await assertRejectsWith(() => generate(session, long), ContextFullError);
          assertEquals([error.code, error.overflow], ["CONTEXT_FULL", {
            promptTokens: counted,
            contextSize: 256,
          }]);
          const after = await generate(session, [{ role: "user", text: "Say hello." }]);
          assertEquals([after.text, after.stop], [REPLY_TEXT, "end"]);
        } finally {
          await session.dispose();
          await model.dispose();
        }
      },
    );

    await t.step(
      "an answer that fills the context ends context_full with its text, and the history it makes is refused, not shifted",
      async () => {
        const model = await runtime.loadModel({
          modelPath: await writeEndlessModel(dir),
          contextSize: 256,
          threads: 1,
        });
        const session = await model.openSession();
        try {
          const conversation: ConversationItem[] = [{ role: "user", text: "Go." }];
          const prompt = await session.countPromptTokens!(conversation, []);
          const full = await generate(session, conversation);
          assertEquals(full.stop, "context_full");
          // Every slot but the one node-llama-cpp keeps free: nothing was dropped to make room.
          assertEquals(full.tokens.generated, 256 - 1 - prompt);
          assert(full.text.startsWith(" tick tock tick"), full.text.slice(0, 40));
          const longer: ConversationItem[] = [
            ...conversation,
            { role: "assistant", segments: [{ type: "text", text: full.text }] },
            { role: "user", text: "More." },
          ];
          await assertRejectsWith(() => generate(session, longer), ContextFullError);
          // A cap below the room is the caller's: max_tokens, not context_full.
          const capped = await generate(session, conversation, { maxTokens: 5 });
          assertEquals([capped.stop, capped.tokens.generated], ["max_tokens", 5]);
        } finally {
          await session.dispose();
          await model.dispose();
        }
      },
    );

    await t.step(
      "a tool call cut by the end of the context is context_full, without a call",
      async () => {
        const model = await runtime.loadModel({
          modelPath: await writeToolCallModel(dir, READ_NOTES),
          contextSize: 1024,
          threads: 1,
        });
        try {
          // Pad the prompt until the call (8 tokens) no longer fits after it.
          const counter = await model.openSession();
          let conversation: ConversationItem[] | undefined;
          try {
            for (let pad = 0; pad < 200 && conversation === undefined; pad++) {
              const padded: ConversationItem[] = [
                { role: "system", text: `You are a test.${" a".repeat(pad)}` },
                { role: "user", text: "What is in notes.txt?" },
              ];
              const prompt = await counter.countPromptTokens!(padded, TOOLS);
              if (1024 - 1 - prompt <= 6) conversation = padded;
            }
          } finally {
            await counter.dispose();
          }
          if (conversation !== undefined) {
            const session = await model.openSession();
            try {
              const result = await generate(session, conversation, { tools: TOOLS });
              assertEquals([result.stop, result.toolCalls], ["context_full", []]);
              return;
            } finally {
              await session.dispose();
            }
          }
          throw new Error("no padding put the call at the end of the context");
        } finally {
          await model.dispose();
        }
      },
    );
  } finally {
    await runtime.dispose();
    await Deno.remove(dir, { recursive: true });
  }
});

testOnParts(
  "on SmolLM2 the counts are the model's own: generate()'s prompt, and its tokenizer's for a text",
  async (parts) => {
    const runtime = await openLlamaRuntime({ gpu: "off", log: () => {} });
    try {
      const model = await runtime.loadModel({
        modelPath: parts.instructModel,
        contextSize: 4096,
        threads: 2,
      });
      try {
        for (const conversation of Object.values(CONVERSATIONS)) {
          const session = await model.openSession();
          try {
            const counted = await session.countPromptTokens!(conversation, TOOLS);
            const result = await generate(session, conversation, { tools: TOOLS, maxTokens: 1 });
            assertEquals([result.tokens.prompt, result.tokens.evaluated], [counted, counted]);
          } finally {
            await session.dispose();
          }
        }
        const session = await model.openSession();
        try {
          // SmolLM2 splits it as Hello , world ! It 's a test .
          assertEquals(session.countTextTokens!("Hello, world! It's a test."), 9);
          const conversation: ConversationItem[] = [
            { role: "system", text: sampleText("prose", 6000) },
            { role: "user", text: sampleText("numbers", 6000) },
          ];
          const tokens = await session.countPromptTokens!(conversation, TOOLS);
          const started = performance.now();
          for (let round = 0; round < 10; round++) {
            await session.countPromptTokens!(conversation, TOOLS);
          }
          const each = (performance.now() - started) / 10;
          console.error(`SmolLM2 countPromptTokens: ${each.toFixed(2)} ms for ${tokens} tokens`);
        } finally {
          await session.dispose();
        }
      } finally {
        await model.dispose();
      }
    } finally {
      await runtime.dispose();
    }
  },
);
