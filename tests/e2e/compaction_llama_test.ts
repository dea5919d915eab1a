/**
 * Compaction in process: the real agent over real stdio on a generated GGUF model through
 * node-llama-cpp, at `--ctx-size 4096`, each turn reading a large numeric file. The model calls
 * `fs_read` on every prompt and answers once it has the result; asked for a summary (no tools),
 * it writes its call as text, which is a summary as good as any for the session to go on with.
 *
 * The model's tokenizer knows the words of the agent's fixed prompt (the system prompt, the
 * tools' definitions, node-llama-cpp's function preamble), so that prompt takes about what it
 * takes on a real model (~1,200 tokens; a character a token would make it 3,300), and numbers
 * are a token a character, as SmolLM2 reads them.
 */
import { assert, assertEquals, assertLess } from "../helpers/assert.ts";
import type { AcpHarness, JsonObject } from "../helpers/acp_harness.ts";
import { type ToolCallScript, writeToolCallModel } from "../helpers/test_models.ts";
import { llamaToolDefinitions } from "../../src/agent/tools/llama_tool_definitions.ts";
import { systemPrompt } from "../../src/acp/turn/system_prompt.ts";
import {
  SUMMARY_INSTRUCTION,
  SUMMARY_SYSTEM_PROMPT,
} from "../../src/acp/compaction/conversation_summary.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { type E2eProject, textPrompt as text, withE2eProject } from "./e2e_project.ts";
import { noticesOf, readTranscript } from "./hook_project.ts";

const CONTEXT = 4096;

/** 300 lines of numbers, about 5,800 tokens here: one read alone would take the whole context. */
const NUMBERS = Array.from(
  { length: 300 },
  (_, i) => `${i * 7919} ${(i * 104729) % 99991} ${(i * 15485863) % 1000003}`,
).join("\n");

const READ_DATA: ToolCallScript = {
  toolName: "fs_read",
  params: { file_path: "data.txt" },
  answer: "The file holds numbers.",
};

/** node-llama-cpp's preamble to the functions it offers (ChatWrapper, ChatML). */
const FUNCTIONS_PREAMBLE = "The assistant calls the provided functions as needed to retrieve " +
  "information instead of relying on existing knowledge. To fulfill a request, the assistant " +
  "calls relevant functions in advance when needed before responding to the request, and does " +
  "not tell the user prior to calling a function. Provided functions: typescript Calling any " +
  "of the provided functions can be done like this: getSomeInfo someKey someValue Note that " +
  "the prefix is mandatory. The assistant does not inform the user about using functions and " +
  "does not explain anything before calling a function. After calling a function, the raw " +
  "result appears afterwards and is not part of the conversation. To make information be part " +
  "of the conversation, the assistant paraphrases and repeats the information without the " +
  "function syntax. function params type string number integer boolean array object enum";

/** The words of what the model reads besides the conversation, each with and without a space. */
function fixedPromptWords(): string[] {
  const text = [
    JSON.stringify(llamaToolDefinitions()),
    systemPrompt({ cwd: "/", additionalDirectories: [] }, compatProfile("llama")),
    SUMMARY_SYSTEM_PROMPT,
    SUMMARY_INSTRUCTION,
    FUNCTIONS_PREAMBLE,
  ].join(" ");
  return [...new Set(text.match(/[A-Za-z]+/g) ?? [])].flatMap((word) => [word, ` ${word}`]);
}

async function startReader(p: E2eProject): Promise<AcpHarness> {
  const model = await writeToolCallModel(p.models, READ_DATA, "read_data.gguf", {
    words: fixedPromptWords(),
  });
  return p.startAgent(model, ["--ctx-size", String(CONTEXT)]);
}

async function prompt(agent: AcpHarness, sessionId: string, words: string): Promise<JsonObject> {
  return await agent.call("session/prompt", { sessionId, prompt: text(words) }) as JsonObject;
}

function promptTokensOf(result: JsonObject): number {
  return Number((result._meta as { tokens: { prompt: number } }).tokens.prompt);
}

function usageOf(agent: AcpHarness, sessionId: string): { used: number; size: number }[] {
  return agent.sessionUpdates(sessionId)
    .filter((update) => update.sessionUpdate === "usage_update")
    .map((update) => ({ used: Number(update.used), size: Number(update.size) }));
}

Deno.test("in process at --ctx-size 4096: twelve turns that each read a large numeric file all end end_turn, compacted on the way, and a load goes on from the compacted state", async () => {
  await withE2eProject({ "project/data.txt": NUMBERS }, async (p) => {
    const agent = await startReader(p);
    const sessionId = await p.newSession(agent);
    const results: JsonObject[] = [];
    for (let turn = 1; turn <= 12; turn++) {
      results.push(await prompt(agent, sessionId, `Read data.txt (${turn}).`));
    }
    assertEquals(results.map((result) => result.stopReason), Array(12).fill("end_turn"));
    // A real model's share of the context before the user's first word.
    assertLess(promptTokensOf(results[0]!), 1600);
    const completed = agent.toolCallUpdates(sessionId).filter((u) => u.status === "completed");
    assertEquals(completed.length, 12, "every turn read the file");
    const notices = noticesOf(agent, sessionId);
    const compactions = notices.filter((notice) => notice.includes("compacted into a summary"));
    assert(compactions.length >= 1, notices.join("\n"));
    assertEquals(notices.length, compactions.length, `only compactions: ${notices.join("\n")}`);
    const usage = usageOf(agent, sessionId);
    assert(usage.length >= 24, `a usage_update after each model call: ${usage.length}`);
    for (const { used, size } of usage) {
      assertEquals(size, CONTEXT);
      assert(used <= CONTEXT, `${used} of ${size}`);
    }
    const records = await readTranscript(p.home, sessionId);
    const compacted = records.filter((r) =>
      r.type === "conversation" && r.reason === "compact_auto"
    );
    assertEquals(compacted.length, compactions.length, "each compaction is in the transcript");
    for (const record of compacted) {
      assert(String(record.summary ?? "").trim() !== "", "the model wrote a summary");
      const tokens = record.tokens as { before: number; after: number };
      assertLess(tokens.after, tokens.before);
    }
    const lastUsed = usage.at(-1)!.used;
    await agent.close();

    // A new agent on the same HOME loads the session and goes on from where it was.
    const loaded = await startReader(p);
    await loaded.call("session/load", { sessionId, cwd: p.cwd, mcpServers: [] });
    // The load replays the history to the editor, notices included.
    assertEquals(noticesOf(loaded, sessionId), notices);
    const next = await prompt(loaded, sessionId, "Read data.txt (13).");
    assertEquals(next.stopReason, "end_turn");
    assertEquals(noticesOf(loaded, sessionId), notices, "no compaction was needed after the load");
    // The compacted conversation and the new prompt: not the whole history, which would not
    // fit; its summary and kept turns, as the first agent left them.
    const after = promptTokensOf(next);
    assert(after > lastUsed && after < lastUsed + 40, `${after} tokens after ${lastUsed}`);
    await loaded.close();
  });
});
