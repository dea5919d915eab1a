/**
 * What the context budgets buy a session on a small context, side by side in one run:
 *
 * 1. Turns survived at 2048, 4096 and 8192 tokens by a session whose every turn reads a numeric
 *    file of 2.7 KB (about 1.4 characters a token, as command output is), against a model that
 *    refuses a prompt longer than its context as llama-server does, counting it as a real
 *    tokenizer would (SERVER_SHARE of the agent's estimate, which errs high). "with": the agent as it is
 *    (results budgeted in tokens, compaction). "without": the same session under the rules before
 *    the budgets, replayed on the same counts: each result cut to one character per context
 *    token, nothing ever compacted, so the session dies at the first request that does not fit.
 * 2. The prompt tokens of each turn's first request, with and without, on the 4096 session.
 * 3. What a compaction costs in time against one turn, on a real model in process (the test
 *    parts' SmolLM2-135M when installed, else skipped) at 2048 tokens: the summary request of a
 *    conversation at the compaction limit plus the first turn on the compacted conversation,
 *    against one turn on the conversation as it was (its prefix cached, as most turns find it),
 *    every answer capped at the same number of tokens.
 *
 *   deno run -A bench/context_budget.ts [--turns N] [--model PATH]
 */
import * as acp from "@agentclientprotocol/sdk";
import { createAgentApp } from "../src/acp/agent_app.ts";
import type { AgentConfig } from "../src/acp/agent_config.ts";
import { createModelProvider } from "../src/acp/model_provider.ts";
import { compactionLimit, summaryTokenCap } from "../src/acp/compaction/compaction.ts";
import { tokenCounterOf } from "../src/acp/compaction/context_meter.ts";
import { requestSummary } from "../src/acp/compaction/conversation_summary.ts";
import { createHandlerRunner } from "../src/hooks/handlers/handler_dispatch.ts";
import { AgentError } from "../src/error.ts";
import type { ConversationItem, GenerateRequest, Model, ModelSession } from "../src/model/model.ts";
import { estimatePromptTokens } from "../src/model/token_estimate.ts";
import { createToolKit } from "../src/agent/tools/tool_kits.ts";
import { systemPrompt } from "../src/acp/turn/system_prompt.ts";
import { compatProfile } from "../src/profile/compat_profile.ts";
import { median, round } from "./bench_stats.ts";

const CONTEXTS = [2048, 4096, 8192];
const FILE = Array.from({ length: 180 }, (_, i) => `${i * 7919} ${(i * 104729) % 99991}`)
  .join("\n");
const TOKENS = { prompt: 0, evaluated: 0, generated: 1 };
/** Answers of the real-model part are capped here, and each figure is the median of RUNS. */
const ANSWER_TOKENS = 64;
const RUNS = 3;
/** What a real tokenizer takes of the agent's estimate on a session like this one. */
const SERVER_SHARE = 0.75;

interface SessionFigures {
  readonly survived: number;
  readonly promptTokens: number[];
  readonly compactions: number;
}

/** The agent, in this process, on a model that refuses what does not fit. */
async function withBudgets(contextSize: number, turns: number): Promise<SessionFigures> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "bench_ctx_" }));
  try {
    await Deno.mkdir(`${root}/project`);
    await Deno.mkdir(`${root}/home`);
    await Deno.writeTextFile(`${root}/project/data.txt`, FILE);
    const promptTokens: number[] = [];
    let compactions = 0;
    let firstOfTurn = true;
    const session: ModelSession = {
      contextSize,
      generate(request: GenerateRequest) {
        // A server's tokenizer takes fewer tokens than the agent's estimate, which errs high:
        // SERVER_SHARE of it, about what SmolLM2's takes of mixed prose, JSON and numbers.
        const prompt = Math.ceil(
          estimatePromptTokens(request.conversation, request.tools) * SERVER_SHARE,
        );
        if (prompt > contextSize) {
          return Promise.reject(new AgentError("CONTEXT_FULL", "exceeds the context size"));
        }
        if (request.tools.length === 0) {
          compactions++;
          return Promise.resolve({
            text: "The user had data.txt read again and again; nothing is left to do.",
            thought: "",
            toolCalls: [],
            stop: "end" as const,
            tokens: TOKENS,
          });
        }
        if (firstOfTurn) promptTokens.push(prompt);
        const asked = request.conversation.at(-1)?.role === "user";
        firstOfTurn = !asked;
        if (asked) {
          return Promise.resolve({
            text: "",
            thought: "",
            toolCalls: [{ name: "fs_read", input: { file_path: "data.txt" } }],
            stop: "tool_calls" as const,
            tokens: { ...TOKENS, prompt },
          });
        }
        request.onTextChunk("Read it.");
        return Promise.resolve({
          text: "Read it.",
          thought: "",
          toolCalls: [],
          stop: "end" as const,
          tokens: { ...TOKENS, prompt },
        });
      },
      dispose: () => Promise.resolve(),
    };
    const model: Model = {
      displayName: "bench",
      openSession: () => Promise.resolve(session),
      dispose: () => Promise.resolve(),
    };
    const config: AgentConfig = {
      models: createModelProvider(() => Promise.resolve(model)),
      launchCwd: `${root}/project`,
      home: `${root}/home`,
      env: (name) => (name === "HOME" ? `${root}/home` : undefined),
      defaultMode: "auto-approve-reads",
      rules: [],
      maxToolRounds: 32,
      profile: compatProfile("llama"),
      hookRunner: () => createHandlerRunner({}),
      version: "bench",
      log: () => {},
    };
    const handle = createAgentApp(config);
    const connection = acp.client({ name: "bench" })
      .onNotification("session/update", () => {})
      .connect(handle.app);
    const agent = connection.agent;
    await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await agent.request("session/new", {
      cwd: `${root}/project`,
      mcpServers: [],
    });
    let survived = 0;
    for (let turn = 0; turn < turns; turn++) {
      firstOfTurn = true;
      try {
        const answer = await agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: `Read data.txt (${turn + 1})` }],
        });
        if (answer.stopReason !== "end_turn") break;
        survived++;
      } catch {
        break;
      }
    }
    await handle.shutdown();
    return { survived, promptTokens, compactions };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * The same session under the old rules: a fixed prompt as the agent's, each result cut to
 * `contextSize` characters, the conversation only ever growing.
 */
function withoutBudgets(contextSize: number, turns: number, fixed: number): SessionFigures {
  const cut = FILE.slice(0, contextSize);
  const conversation: ConversationItem[] = [];
  const promptTokens: number[] = [];
  let survived = 0;
  for (let turn = 0; turn < turns; turn++) {
    conversation.push({ role: "user", text: `Read data.txt (${turn + 1})` });
    const first = Math.ceil((fixed + estimatePromptTokens(conversation, [])) * SERVER_SHARE);
    promptTokens.push(first);
    const call = {
      type: "tool_call" as const,
      name: "fs_read",
      input: { file_path: "data.txt" },
      result: cut,
    };
    const second = first +
      Math.ceil(estimatePromptTokens([{ role: "assistant", segments: [call] }], []) * SERVER_SHARE);
    // Each request must leave the answer's room; the old agent asked for the whole context.
    if (first > contextSize || second > contextSize) break;
    conversation.push({ role: "assistant", segments: [call, { type: "text", text: "Read it." }] });
    survived++;
  }
  return { survived, promptTokens, compactions: 0 };
}

/** The fixed prompt's estimate (system prompt and tools), as the agent counts it without a tokenizer. */
function fixedPromptTokens(cwd: string): number {
  const profile = compatProfile("llama");
  const system = systemPrompt({ cwd, additionalDirectories: [] }, profile);
  return estimatePromptTokens(
    [{ role: "system", text: system }],
    createToolKit(profile).definitions(),
  );
}

async function compactionCost(modelPath: string, contextSize: number): Promise<void> {
  const { loadLlamaModel } = await import("../src/model/llama/llama_model.ts");
  // One thread: two spinning on two busy cores stretch a turn tenfold, and the figure is a ratio.
  const model = await loadLlamaModel({
    modelPath,
    contextSize,
    threads: 1,
    gpu: "off",
    log: () => {},
  });
  try {
    const session = await model.openSession();
    const counter = tokenCounterOf(session);
    const limit = compactionLimit(contextSize, 0.8);
    const conversation: ConversationItem[] = [
      { role: "system", text: "You are llama-agent, a coding assistant." },
    ];
    for (let turn = 1; await counter.prompt(conversation, []) < limit - 200; turn++) {
      conversation.push({ role: "user", text: `What is in data.txt? (${turn})` });
      conversation.push({
        role: "assistant",
        segments: [{
          type: "tool_call",
          name: "fs_read",
          input: { file_path: "data.txt" },
          result: FILE.slice(0, 600),
        }, { type: "text", text: "It holds numbers." }],
      });
    }
    // The same short cap for every answer: the figure is what the prompts cost, and a small
    // model's answer length is noise.
    const cap = ANSWER_TOKENS;
    const signal = new AbortController().signal;
    const ask = (items: ConversationItem[]) =>
      session.generate({
        conversation: items,
        tools: [],
        signal,
        maxTokens: cap,
        onTextChunk: () => {},
        onThoughtChunk: () => {},
      });
    const turnTimes: number[] = [];
    const compactionTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // A turn as most turns are: the conversation so far is the sequence's cached prefix.
      await ask([...conversation, { role: "user", text: `And now? (${run})` }]);
      let start = performance.now();
      await ask([...conversation, { role: "user", text: `And then? (${run})` }]);
      turnTimes.push(performance.now() - start);
      // A compaction: the summary request, then the first turn on the compacted conversation,
      // which has no cached prefix beyond the system prompt.
      start = performance.now();
      const made = await requestSummary(session, counter, {
        items: conversation.slice(1),
        focus: "",
        maxTokens: summaryTokenCap(contextSize),
        signal,
      });
      const summary = made.ok ? made.summary : "(no summary)";
      await ask([
        { role: "system", text: `You are llama-agent, a coding assistant.\n\n${summary}` },
        { role: "user", text: `And now? (${run})` },
      ]);
      compactionTimes.push(performance.now() - start);
    }
    const turn = median(turnTimes);
    const compaction = median(compactionTimes);
    printLine({
      figure: "compaction time vs one turn (real model, in process)",
      model: modelPath.split("/").at(-1),
      context: contextSize,
      prompt_tokens: await counter.prompt(conversation, []),
      answer_tokens_max: cap,
      turn_ms: round(turn, 0),
      compaction_ms: round(compaction, 0),
      ratio: round(compaction / turn, 2),
    });
    await session.dispose();
  } finally {
    await model.dispose();
  }
}

/** One JSON line per figure, as the other benches print theirs. */
function printLine(figure: Record<string, unknown>): void {
  console.log(JSON.stringify(figure));
}

async function main(args: readonly string[]): Promise<number> {
  const turnsFlag = args.indexOf("--turns");
  const turns = turnsFlag >= 0 ? Number(args[turnsFlag + 1]) : 30;
  const modelFlag = args.indexOf("--model");
  const parts = `${Deno.env.get("HOME")}/.cache/llama-agent-test-parts/instruct.gguf`;
  const modelPath = modelFlag >= 0 ? args[modelFlag + 1] : parts;
  const rows: string[] = [];
  for (const contextSize of CONTEXTS) {
    const start = performance.now();
    const withFigures = await withBudgets(contextSize, turns);
    const elapsed = performance.now() - start;
    const withoutFigures = withoutBudgets(
      contextSize,
      turns,
      fixedPromptTokens("/tmp/bench_ctx_project/project"),
    );
    printLine({
      figure: "turns survived",
      context: contextSize,
      turns,
      with_budgets: withFigures.survived,
      without_budgets: withoutFigures.survived,
      compactions: withFigures.compactions,
      ms_per_turn: round(elapsed / Math.max(1, turns), 1),
    });
    rows.push(
      `| ${contextSize} | ${withFigures.survived} of ${turns} (${withFigures.compactions} ` +
        `compactions) | ${withoutFigures.survived} of ${turns} |`,
    );
    if (contextSize === 4096) {
      const pairs = withoutFigures.promptTokens.map((without, i) =>
        `${i + 1}: ${withFigures.promptTokens[i] ?? "-"} vs ${without}`
      );
      printLine({
        figure: "prompt tokens of each turn's first request, with vs without (4096)",
        turns: pairs.join(", "),
        with_median: median(withFigures.promptTokens),
        without_median: median(withoutFigures.promptTokens),
      });
    }
  }
  console.log("\n| context | with the budgets | without |\n|---|---|---|\n" + rows.join("\n"));
  try {
    await Deno.stat(modelPath!);
    await compactionCost(modelPath!, 2048);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    console.error(`No model at "${modelPath}": the compaction time is not measured`);
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
