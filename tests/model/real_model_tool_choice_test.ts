/**
 * The tool choice on the real small models from PyPI (tools/install_test_parts.sh): SmolLM2-135M
 * (ChatML) and Gemma 3 270M (Gemma), whose calls both use node-llama-cpp's generic syntax. Short
 * prompts and capped answers, so each test takes seconds, not minutes.
 *
 * What they check does not depend on what the model says: a constrained choice ends, as text or
 * as a call, and a required call, whatever the model picks, is a call node-llama-cpp parsed, to a
 * tool on offer, with params as its schema has them: the call syntax's grammars on a real
 * tokenizer, whose tokens are not the syntax's characters. (A text answer under a constrained
 * choice need not be word for word the one without: the last prompt token is evaluated again on
 * its own after the first step, and llama.cpp's sums differ in the last bits with the batch,
 * which can tip a near tie in a model this small.) How often the choice helps is
 * bench/tool_choice.ts's question.
 */
import { openLlamaRuntime, preloadLlama } from "../../src/model/llama/llama_model.ts";
import type {
  ConversationItem,
  GenerateResult,
  ModelSession,
  ToolDefinition,
} from "../../src/model/model.ts";
import type { ToolChoice } from "../../src/model/llama/tool_choice_grammar.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { testOnGemma, testOnParts } from "../helpers/test_parts.ts";
import { oneStringTool } from "../helpers/test_models.ts";

await preloadLlama();

/** Two tools with one string each, no other keys: a call's params end after one string. */
const TOOLS: ToolDefinition[] = [
  oneStringTool("fs_read", "Read a text file.", "file_path"),
  oneStringTool("shell", "Run a shell command.", "command"),
];

/** Each tool's one param. */
const PARAM_OF: Readonly<Record<string, string>> = { fs_read: "file_path", shell: "command" };

const ASK: ConversationItem[] = [
  { role: "system", text: "You are a coding assistant. Use the tools to look at files." },
  { role: "user", text: "What does the file notes.txt say?" },
];

/** Enough for a call to fs_read or shell with a short string; a text answer is cut there. */
const ANSWER_TOKENS = 40;

async function answers(
  modelPath: string,
  choices: readonly ToolChoice[],
): Promise<Map<ToolChoice, GenerateResult>> {
  const runtime = await openLlamaRuntime({ gpu: "off", log: () => {} });
  const results = new Map<ToolChoice, GenerateResult>();
  try {
    for (const toolChoice of choices) {
      const model = await runtime.loadModel({
        modelPath,
        contextSize: 2048,
        // One thread: on a busy machine, threads on every core wait on each other (minutes, not s).
        threads: 1,
        toolChoice,
      });
      let session: ModelSession | undefined;
      try {
        session = await model.openSession();
        results.set(
          toolChoice,
          await session.generate({
            conversation: ASK,
            tools: TOOLS,
            signal: new AbortController().signal,
            maxTokens: ANSWER_TOKENS,
            onTextChunk: () => {},
            onThoughtChunk: () => {},
          }),
        );
      } finally {
        await session?.dispose();
        await model.dispose();
      }
    }
  } finally {
    await runtime.dispose();
  }
  return results;
}

function checkChoices(results: Map<ToolChoice, GenerateResult>): void {
  const constrained = results.get("constrained");
  const required = results.get("required");
  assert(constrained !== undefined && required !== undefined);
  if (constrained.toolCalls.length === 0) {
    assert(["end", "max_tokens"].includes(constrained.stop), constrained.stop);
    assert(constrained.text !== "", "text, since no call");
  } else {
    checkCalls(constrained);
  }
  checkCalls(required);
}

function checkCalls(result: GenerateResult): void {
  assertEquals(result.stop, "tool_calls", `a call within ${ANSWER_TOKENS} tokens: ${result.text}`);
  assertEquals(result.toolCalls.length, 1);
  const [call] = result.toolCalls;
  const param = PARAM_OF[call?.name ?? ""];
  assert(param !== undefined, `a tool on offer: ${JSON.stringify(call)}`);
  const input = call?.input;
  const value = typeof input === "object" && input !== null
    ? Object.entries(input).find(([key]) => key === param)?.[1]
    : undefined;
  assertEquals(typeof value, "string", `params as the schema has them: ${JSON.stringify(input)}`);
}

testOnParts(
  "SmolLM2: a constrained choice ends in text or a call; a required call names a given tool",
  async (parts) => checkChoices(await answers(parts.instructModel, ["constrained", "required"])),
);

testOnGemma(
  "Gemma 3 270M: a constrained choice ends in text or a call; a required call names a given tool",
  async (modelPath) => checkChoices(await answers(modelPath, ["constrained", "required"])),
);
