/**
 * The endpoint backend against a real server: `llama-agent acp --endpoint` on llama-cpp-python's
 * `llama_cpp.server` serving SmolLM2-135M-Instruct (the test parts), against a streamed request
 * that the bench sends the same server itself with the same client library (`openai`) and the
 * very body the agent sends (captured from the agent by a loopback fake first). Turns alternate
 * between the two sides and are cut a fixed time after their first text.
 *
 * Two figures: tokens/s after the first token (a streamed chunk is one token on this server, and
 * the agent forwards each chunk as one update), agent ÷ direct, target ≥ 0.95; and the time to
 * the first token added by the agent, agent − direct in ms, target ≤ 10 ms. The server keeps the
 * previous request's prefix, and both sides send the same prompt, so the prompt costs them
 * alike: what differs is the agent.
 */
import OpenAI from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { BenchAgent } from "./agent_client.ts";
import { median, round } from "./bench_stats.ts";
import { sleep } from "./cut_turn.ts";
import { sessionUpdatesOf } from "../tests/helpers/acp_harness.ts";
import { startLlamaCppServer } from "../tests/helpers/llama_cpp_server.ts";
import { startFakeServer } from "../tests/helpers/openai_fake_server.ts";
import { textReply } from "../tests/helpers/openai_dialects.ts";
import { TEST_PARTS, TEST_PARTS_MISSING } from "../tests/helpers/test_parts.ts";

const PROMPT = "Write a short story about a lighthouse keeper who finds a message in a bottle.";

interface Side {
  /** From sending the prompt to its first text. */
  readonly firstTokenMs: number;
  /** Text chunks after the first, per second, until the cut. */
  readonly tokensPerS: number;
}

export interface EndpointBenchOptions {
  readonly project: string;
  readonly home: string;
  readonly pairs: number;
  readonly cutAfterMs: number;
  readonly summary: string[];
}

export async function benchEndpoint(options: EndpointBenchOptions): Promise<void> {
  if (TEST_PARTS === undefined) {
    options.summary.push(`endpoint: skipped, the test parts are ${TEST_PARTS_MISSING}`);
    return;
  }
  const server = await startLlamaCppServer(TEST_PARTS, { contextSize: 4096, threads: 1 });
  try {
    const agentArgs = (baseUrl: string) => ["--endpoint", baseUrl, "--model", server.alias];
    const body = await agentRequestBody(options, agentArgs);
    const agent = await BenchAgent.start({
      cwd: options.project,
      home: options.home,
      args: agentArgs(server.baseUrl),
    });
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: "none" });
    const agentSides: Side[] = [];
    const directSides: Side[] = [];
    try {
      // Warm-up on both: the server's first request evaluates the whole prompt.
      await agentTurn(agent, 0);
      await directTurn(client, body, 0);
      for (let i = 0; i < options.pairs; i++) {
        const order = i % 2 === 0 ? ["direct", "agent"] : ["agent", "direct"];
        for (const side of order) {
          if (side === "agent") agentSides.push(await agentTurn(agent, options.cutAfterMs));
          else directSides.push(await directTurn(client, body, options.cutAfterMs));
        }
      }
    } finally {
      await agent.close();
    }
    report(agentSides, directSides, options);
  } finally {
    await server.stop();
  }
}

/** The body the agent sends for PROMPT in a new session, as a fake server receives it. */
async function agentRequestBody(
  options: EndpointBenchOptions,
  agentArgs: (baseUrl: string) => string[],
): Promise<ChatCompletionCreateParamsStreaming> {
  const fake = startFakeServer({ models: [{ id: "smollm2-135m-instruct" }] });
  try {
    fake.reply({ kind: "stream", chunks: textReply("ok") });
    const agent = await BenchAgent.start({
      cwd: options.project,
      home: options.home,
      args: agentArgs(fake.baseUrl),
    });
    try {
      await agent.prompt(await agent.newSession(), PROMPT);
    } finally {
      await agent.close();
    }
    const body = fake.requests[0] as unknown as ChatCompletionCreateParamsStreaming;
    // Both sides must stream, or the comparison is of something else.
    if (body.stream !== true) throw new Error("The agent's request was not streamed");
    return body;
  } finally {
    await fake.close();
  }
}

async function agentTurn(agent: BenchAgent, cutAfterMs: number): Promise<Side> {
  const sessionId = await agent.newSession();
  const chunks = () =>
    sessionUpdatesOf(agent.harness.notifications, sessionId)
      .filter((update) => update.sessionUpdate === "agent_message_chunk").length;
  const sent = performance.now();
  const responding = agent.harness.call("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: PROMPT }],
  });
  await agent.harness.waitFor(() => chunks() > 0, {
    timeoutMs: 120_000,
    what: "the agent's first text",
  });
  const first = performance.now();
  await sleep(cutAfterMs);
  const counted = chunks();
  const cutAt = performance.now();
  await agent.harness.notify("session/cancel", { sessionId });
  await responding;
  await agent.closeSession(sessionId);
  return {
    firstTokenMs: first - sent,
    tokensPerS: cutAfterMs === 0 ? 0 : (counted - 1) / ((cutAt - first) / 1000),
  };
}

async function directTurn(
  client: OpenAI,
  body: ChatCompletionCreateParamsStreaming,
  cutAfterMs: number,
): Promise<Side> {
  const controller = new AbortController();
  let counted = 0;
  let first = 0;
  let cutAt = 0;
  const sent = performance.now();
  try {
    const stream = await client.chat.completions.create(body, { signal: controller.signal });
    for await (const chunk of stream) {
      const text = chunk.choices[0]?.delta.content;
      if (typeof text !== "string" || text === "") continue;
      counted++;
      const now = performance.now();
      if (counted === 1) first = now;
      if (now - first >= cutAfterMs) {
        cutAt = now;
        controller.abort();
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  // A reply shorter than the cut ends on its own.
  if (cutAt === 0) cutAt = performance.now();
  return {
    firstTokenMs: first - sent,
    tokensPerS: cutAfterMs === 0 ? 0 : (counted - 1) / ((cutAt - first) / 1000),
  };
}

/** One figure as a JSON line: these two have a floor and an added time, not a ratio cap. */
function printLine(line: Readonly<Record<string, unknown>>): void {
  console.log(JSON.stringify(line));
}

function report(agent: readonly Side[], direct: readonly Side[], options: EndpointBenchOptions) {
  const agentRate = median(agent.map((side) => side.tokensPerS));
  const directRate = median(direct.map((side) => side.tokensPerS));
  const rateRatio = agentRate / directRate;
  printLine({
    bench: "endpoint_tokens_per_s_vs_direct_stream",
    baseline: "the same body streamed to the same server with the openai client",
    tokens_per_s: round(agentRate, 2),
    baseline_tokens_per_s: round(directRate, 2),
    ratio: round(rateRatio),
    target_ratio_min: 0.95,
    meets_target: rateRatio >= 0.95,
    server: "llama-cpp-python llama_cpp.server, SmolLM2-135M-Instruct Q4_1, 1 thread",
    cut_after_ms: options.cutAfterMs,
  });
  const agentFirst = median(agent.map((side) => side.firstTokenMs));
  const directFirst = median(direct.map((side) => side.firstTokenMs));
  const added = agentFirst - directFirst;
  printLine({
    bench: "endpoint_first_token_ms_added_by_agent",
    median_ms: round(agentFirst),
    baseline: "the same body streamed to the same server with the openai client",
    baseline_median_ms: round(directFirst),
    added_ms: round(added, 1),
    target_added_ms_max: 10,
    meets_target: added <= 10,
  });
  options.summary.push(
    `endpoint: agent ${agentRate.toFixed(1)} tok/s, direct ${directRate.toFixed(1)} tok/s, ` +
      `ratio ${rateRatio.toFixed(3)} (target >= 0.95); first token ${agentFirst.toFixed(1)} ms ` +
      `vs ${directFirst.toFixed(1)} ms, +${added.toFixed(1)} ms (target <= 10)`,
  );
}
