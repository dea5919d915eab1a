/**
 * MCP benchmark: what one MCP tool call costs through llama-agent, against a direct call of the
 * same fixture server (tests/mcp/fixture_server.ts, `echo {text: "hi"}`) through the MCP client
 * SDK, in the same run. Target: at most 1.2× the direct call.
 *
 * Per transport (stdio, then Streamable HTTP), four arms run interleaved (bench/interleave.ts),
 * each against its own connection to its own instance of the server:
 *
 * - direct: `Client.callTool` of @modelcontextprotocol/client (its `StdioClientTransport`, or
 *   `StreamableHTTPClientTransport`): the baseline;
 * - McpServers.call: the agent's MCP layer alone (its client, and over stdio its own transport,
 *   src/agent/mcp/group_stdio_transport.ts);
 * - tool turn: a whole `session/prompt` through the agent in memory (tests/acp/in_memory_agent.ts),
 *   whose stepped model calls `mcp__fixture__echo` once and then replies, in `rule-based` mode
 *   with a rule that allows the call (nothing asks);
 * - reply turn: the same prompt turn with a model that only replies.
 *
 * The figure with the target is McpServers.call against the direct call: one MCP tool call's
 * round trip as the agent makes it (lookup, its client and transport, the result mapped for the
 * model and the client). Reported beside it, what one call adds to a whole prompt — the tool turn
 * less the reply turn, i.e. the whole seam: announce, PreToolUse, the permission policy, the
 * call, three updates, the transcript, PostToolUse, the second model call — in memory, and for
 * the real agent process driven over ACP stdio (bench/mcp_over_stdio.ts). Every figure is one
 * JSON line on stdout with its baseline measured in the same run, as medians; a summary goes to
 * stderr. All prompts of an arm run in one session, so starting servers and sessions is not
 * timed. About 25 s on two cores.
 *
 *   deno task bench:mcp
 *   deno run -A bench/mcp.ts --quick     # fewer samples, for a smoke run
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import {
  Client,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { McpServers } from "../src/agent/mcp/mcp_servers.ts";
import {
  parsePermissionRules,
  type PermissionRule,
} from "../src/agent/permissions/permission_rules.ts";
import type { GenerateRequest } from "../src/model/model.ts";
import { callTool, reply, steppedModel } from "../tests/acp/fake_models.ts";
import { type InMemoryAgent, withInMemoryAgent } from "../tests/acp/in_memory_agent.ts";
import { fixtureCommand, startHttpFixture, stdioFixture } from "../tests/mcp/fixture_servers.ts";
import { median, printFigure, round } from "./bench_stats.ts";
import { sleep } from "./cut_turn.ts";
import { interleave } from "./interleave.ts";
import { benchOverStdio } from "./mcp_over_stdio.ts";

const quick = Deno.args.includes("--quick");
const ROUNDS = quick ? 20 : 200;
const WARM_UP_ROUNDS = quick ? 3 : 10;
/** An idle pause before each sample, so every one starts from a quiet event loop. */
const SETTLE_MS = 5;
const TARGET_RATIO = 1.2;
const TOOL = "mcp__fixture__echo";
const ARGUMENTS = { text: "hi" };
const EXPECTED = "echo: hi";
const TOOL_PROMPT = "Echo hi with the fixture server.";
const REPLY_PROMPT = "Just say hi.";
const ANSWER = "Hi!";
const NEVER = new AbortController().signal;

/**
 * The model of both turns: a tool prompt gets one echo call, then (the conversation ending in
 * that call and its result) an answer; any other prompt gets the answer at once.
 */
function step(request: GenerateRequest) {
  const last = request.conversation.at(-1);
  const fresh = last?.role === "user" && last.text.endsWith(TOOL_PROMPT);
  return fresh ? callTool(TOOL, ARGUMENTS)(request) : reply(ANSWER)(request);
}

/** Every generate call of a session runs `step`: two per tool turn, one per reply turn, a round. */
const MODEL_CALLS = 3 * (ROUNDS + WARM_UP_ROUNDS);

function allowRules(): readonly PermissionRule[] {
  const parsed = parsePermissionRules(
    JSON.stringify({ rules: [{ tool: TOOL, decision: "allow" }] }),
    "bench/mcp.ts",
  );
  if (!parsed.ok) throw new Error(`Bad bench rules: ${parsed.errors.join("; ")}`);
  return parsed.rules;
}

interface TransportResult {
  readonly transport: string;
  readonly direct: number[];
  readonly servers: number[];
  readonly toolTurn: number[];
  readonly replyTurn: number[];
}

const started = performance.now();
const summary: string[] = [];
const overStdio = await benchOverStdio(ROUNDS, WARM_UP_ROUNDS, SETTLE_MS, stdioFixture());
reportOverStdio(overStdio);
const results: TransportResult[] = [];
results.push(
  await benchTransport("stdio", stdioFixture(), () => {
    const { command, args } = fixtureCommand();
    // The agent's stdio servers inherit its environment; the SDK's default is a short list.
    return new StdioClientTransport({ command, args, env: Deno.env.toObject() });
  }),
);
{
  await using http = await startHttpFixture();
  results.push(
    await benchTransport(
      "http",
      http.entry(),
      () => new StreamableHTTPClientTransport(new URL(http.url)),
    ),
  );
}
for (const result of results) report(result);
summary.push(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.error(summary.map((line) => `bench/mcp: ${line}`).join("\n"));

/** The four arms over one transport: a direct client, McpServers, and the agent's two turns. */
async function benchTransport(
  transport: string,
  spec: McpServer,
  directTransport: () => Transport,
): Promise<TransportResult> {
  const client = new Client({ name: "bench-mcp", version: "0.0.0-bench" });
  const servers = McpServers.start([spec], {
    cwd: Deno.cwd(),
    env: Deno.env.toObject(),
    startTimeoutMs: 30_000,
    callTimeoutMs: 30_000,
    killGraceMs: 1_000,
    clientVersion: "0.0.0-bench",
    log: (line) => console.error(`bench/mcp servers: ${line}`),
  });
  let samples: number[][] = [];
  try {
    await client.connect(directTransport());
    // As McpConnection does when it connects: the SDK caches what it needs per tool from here.
    const { tools } = await client.listTools();
    if (!tools.some((tool) => tool.name === "echo")) throw new Error("The fixture has no echo");
    await servers.ready();
    const found = servers.lookup(TOOL);
    if (found.kind !== "tool") throw new Error(`McpServers offers no ${TOOL}: ${found.kind}`);
    const tool = found.tool;

    const direct = async () => {
      await sleep(SETTLE_MS);
      const start = performance.now();
      const result = await client.callTool({ name: "echo", arguments: ARGUMENTS });
      const elapsed = performance.now() - start;
      const first = Array.isArray(result.content) ? result.content[0] : undefined;
      if (first?.type !== "text" || first.text !== EXPECTED) {
        throw new Error(`The direct call answered ${JSON.stringify(result)}`);
      }
      return elapsed;
    };
    const throughServers = async () => {
      await sleep(SETTLE_MS);
      const start = performance.now();
      const execution = await servers.call(tool, ARGUMENTS, NEVER);
      const elapsed = performance.now() - start;
      if (execution.status !== "completed" || execution.modelText !== EXPECTED) {
        throw new Error(`McpServers.call answered ${JSON.stringify(execution)}`);
      }
      return elapsed;
    };

    await withInMemoryAgent({
      model: steppedModel(Array.from({ length: MODEL_CALLS }, () => step)),
      mcpServers: [spec],
      mode: "rule-based",
      rules: allowRules(),
      mcpLimits: { startTimeoutMs: 30_000, callTimeoutMs: 30_000, killGraceMs: 1_000 },
    }, async (agent) => {
      const sessionId = await agent.newSession();
      await untilUpdate(agent, sessionId, "available_commands_update");
      samples = await interleave(ROUNDS, WARM_UP_ROUNDS, [
        direct,
        throughServers,
        () => timedTurn(agent, sessionId, TOOL_PROMPT, 1),
        () => timedTurn(agent, sessionId, REPLY_PROMPT, 0),
      ]);
      if (agent.permissionRequests.length > 0) {
        throw new Error("The agent asked for permission: the bench's calls must run unasked");
      }
    });
  } finally {
    await servers.close();
    await client.close();
  }
  const [direct = [], throughServers = [], toolTurn = [], replyTurn = []] = samples;
  return { transport, direct, servers: throughServers, toolTurn, replyTurn };
}

/** One `session/prompt`, timed from the request to its response, checked for its tool calls. */
async function timedTurn(
  agent: InMemoryAgent,
  sessionId: string,
  text: string,
  toolCalls: number,
): Promise<number> {
  await sleep(SETTLE_MS);
  const from = agent.updates.length;
  const start = performance.now();
  const response = await agent.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text }],
  });
  const elapsed = performance.now() - start;
  const updates = agent.updates.slice(from).map((u) => u.update);
  const completed = updates.filter((u) =>
    u.sessionUpdate === "tool_call_update" && u.status === "completed"
  );
  const failed = updates.filter((u) =>
    u.sessionUpdate === "tool_call_update" && u.status === "failed"
  );
  if (response.stopReason !== "end_turn" || completed.length !== toolCalls || failed.length > 0) {
    throw new Error(
      `The bench turn went wrong: stop "${response.stopReason}", ${completed.length} completed ` +
        `tool call(s) (expected ${toolCalls}), ${failed.length} failed: ` +
        JSON.stringify(failed) + ` ${agent.logs.join(" / ")}`,
    );
  }
  return elapsed;
}

/** Waits (bounded) until the session has received an update of this kind. */
async function untilUpdate(agent: InMemoryAgent, sessionId: string, kind: string): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (!agent.kinds(sessionId).includes(kind)) {
    if (performance.now() > deadline) throw new Error(`No ${kind} within 30 s`);
    await sleep(5);
  }
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function ms(n: number): string {
  return `${n.toFixed(3)} ms`;
}

function report(result: TransportResult): void {
  const { transport } = result;
  const direct = median(result.direct);
  const servers = median(result.servers);
  const toolTurn = median(result.toolTurn);
  const replyTurn = median(result.replyTurn);
  const added = toolTurn - replyTurn;
  const directWhat = transport === "stdio"
    ? "Client.callTool over the SDK's StdioClientTransport, same fixture server"
    : "Client.callTool over the SDK's StreamableHTTPClientTransport, same fixture server";
  const spread = {
    samples: result.direct.length,
    // Each round's turns ran side by side: the median of their differences, beside the
    // difference of medians the figure gives.
    added_paired_median_ms: round(
      median(result.toolTurn.map((ms, i) => ms - (result.replyTurn[i] ?? Number.NaN))),
    ),
    direct_p90_ms: round(percentile(result.direct, 90)),
    mcp_servers_call_median_ms: round(servers),
    mcp_servers_call_p90_ms: round(percentile(result.servers, 90)),
    turn_with_call_median_ms: round(toolTurn),
    turn_with_call_p90_ms: round(percentile(result.toolTurn, 90)),
    turn_without_call_median_ms: round(replyTurn),
    turn_without_call_p90_ms: round(percentile(result.replyTurn, 90)),
  };
  printFigure({
    bench: `mcp_${transport}_call_added_to_a_turn_in_memory_vs_direct_sdk_call`,
    median_ms: added,
    baseline: directWhat,
    baseline_median_ms: direct,
    ...spread,
  });
  printFigure({
    bench: `mcp_${transport}_call_round_trip_vs_direct_sdk_call`,
    median_ms: servers,
    baseline: directWhat,
    baseline_median_ms: direct,
    target_ratio_max: TARGET_RATIO,
    ...{ samples: result.servers.length, p90_ms: round(percentile(result.servers, 90)) },
  });
  printFigure({
    bench: `mcp_${transport}_whole_turn_with_call_vs_direct_sdk_call`,
    median_ms: toolTurn,
    baseline: directWhat,
    baseline_median_ms: direct,
    ...{ samples: result.toolTurn.length, turn_without_call_median_ms: round(replyTurn) },
  });
  const ratio = servers / direct;
  summary.push(
    `${transport}: one MCP tool call's round trip (McpServers.call: lookup, the agent's client ` +
      `and transport, result mapping) ${ms(servers)} vs direct SDK call ${ms(direct)} → ` +
      `${ratio.toFixed(2)}× (target ≤ ${TARGET_RATIO}×) ${
        ratio <= TARGET_RATIO ? "MET" : "MISSED"
      }`,
    `  ${transport}: added to a turn in memory (turn with call ${ms(toolTurn)} − without ` +
      `${ms(replyTurn)}) ${ms(added)} → ${(added / direct).toFixed(2)}× (report)`,
    `  ${transport}: whole turn with the call ${ms(toolTurn)} = ` +
      `${(toolTurn / direct).toFixed(2)}× the direct call (report); p90 direct ` +
      `${ms(percentile(result.direct, 90))}, McpServers ${ms(percentile(result.servers, 90))}, ` +
      `turn with ${ms(percentile(result.toolTurn, 90))}, without ` +
      `${ms(percentile(result.replyTurn, 90))}`,
  );
}

/** The headline: what one MCP call adds to a prompt, for a client of the agent process. */
function reportOverStdio(samples: Awaited<ReturnType<typeof benchOverStdio>>): void {
  const direct = median(samples.direct);
  const toolTurn = median(samples.toolTurn);
  const replyTurn = median(samples.replyTurn);
  const added = toolTurn - replyTurn;
  printFigure({
    bench: "mcp_call_added_to_a_prompt_over_acp_stdio_vs_direct_sdk_call",
    median_ms: added,
    baseline: "Client.callTool over the SDK's StdioClientTransport, same fixture server",
    baseline_median_ms: direct,
    ...{
      samples: samples.direct.length,
      added_paired_median_ms: round(
        median(samples.toolTurn.map((ms, i) => ms - (samples.replyTurn[i] ?? Number.NaN))),
      ),
      turn_with_call_median_ms: round(toolTurn),
      turn_without_call_median_ms: round(replyTurn),
    },
  });
  const ratio = added / direct;
  summary.push(
    `agent process over ACP stdio: one MCP call adds ${ms(added)} to a prompt, the whole ` +
      `seam (with ${ms(toolTurn)}, without ${ms(replyTurn)}) vs direct SDK call ` +
      `${ms(direct)} → ${ratio.toFixed(2)}× (report)`,
  );
}
