/**
 * The estimate that plans a context where no tokenizer counts (an endpoint, a scripted model):
 * its rules, and that it errs high against a real tokenizer (SmolLM2's, from the test parts) on
 * each kind of text an agent reads.
 */
import { openLlamaRuntime, preloadLlama } from "../../src/model/llama/llama_model.ts";
import {
  estimatePromptTokens,
  estimateTextTokens,
  MESSAGE_OVERHEAD_TOKENS,
} from "../../src/model/token_estimate.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { SAMPLE_KINDS, sampleText } from "../helpers/token_samples.ts";
import { testOnParts } from "../helpers/test_parts.ts";

await preloadLlama();

Deno.test("a word costs a token per 3 letters, and the single space before it nothing", () => {
  assertEquals(estimateTextTokens("read the file"), 2 + 1 + 2);
  assertEquals(estimateTextTokens("configuration"), 5);
});

Deno.test("a space before a digit or a sign is a token of its own, as each digit is", () => {
  // SmolLM2 splits "0 0.5" as 0, " ", 0, ".", 5.
  assertEquals(estimateTextTokens("0 0.5"), 5);
  assertEquals(estimateTextTokens("x = 1"), 1 + 1 + 1 + 1 + 1);
});

Deno.test("a character beyond ASCII costs a token per byte of its UTF-8", () => {
  assertEquals(estimateTextTokens("é"), 2);
  assertEquals(estimateTextTokens("日本"), 6);
  assertEquals(estimateTextTokens("🎉"), 4);
});

Deno.test("a prompt adds each message's and each tool's overhead to its texts", () => {
  const tool = { name: "shell", description: "Run it", inputSchema: { type: "object" } };
  assertEquals(
    estimatePromptTokens([{ role: "user", text: "hello" }], [tool]),
    MESSAGE_OVERHEAD_TOKENS + 2 +
      MESSAGE_OVERHEAD_TOKENS + estimateTextTokens("shell") + estimateTextTokens("Run it") +
      estimateTextTokens('{"type":"object"}'),
  );
});

testOnParts(
  "on SmolLM2's tokenizer the estimate errs high on prose, code, numbers, JSON and non-ASCII text",
  async (parts) => {
    const runtime = await openLlamaRuntime({ gpu: "off", log: () => {} });
    try {
      const model = await runtime.loadModel({ modelPath: parts.instructModel, threads: 1 });
      const session = await model.openSession();
      try {
        const figures: string[] = [];
        for (const kind of SAMPLE_KINDS) {
          const text = sampleText(kind);
          const real = session.countTextTokens!(text);
          const estimate = estimateTextTokens(text);
          figures.push(
            `${kind}: ${text.length} chars, ${real} tokens (${(text.length / real).toFixed(2)} ` +
              `chars a token), estimate ${estimate} (x${(estimate / real).toFixed(2)})`,
          );
          assert(estimate >= real, `${kind}: estimate ${estimate} < real ${real}`);
        }
        console.error(figures.join("\n"));
      } finally {
        await session.dispose();
        await model.dispose();
      }
    } finally {
      await runtime.dispose();
    }
  },
);
