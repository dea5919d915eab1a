/**
 * `doctor`'s check of one opened model: what the fixed prompt (the system prompt and the
 * profile's tool definitions, as a session here starts with them) takes of its context, the
 * tool-calling probe (tool_call_probe.ts), for a server whether it uses the tools, and the
 * verdict (fitness_verdict.ts). The command opens the model and prints; this only asks it.
 *
 * Whether a server uses the tools is read, in this order, from: a tool call in any answer (it
 * does); the first probe prompt asked again for one token with the tools and without them
 * (endpoint_tool_usage.ts: refused where only the one with them fails, dropped where the usage
 * it reports is nearly the same); what the server says of itself (endpoint_tool_support.ts).
 * Otherwise it is unknown.
 */
import { type ToolForm, toolFormFor, type ToolKit } from "../agent/tools/tool_kit.ts";
import type { TurnToolCall } from "../acp/turn/tool_call_repair.ts";
import { tokenCounterOf } from "../acp/compaction/context_meter.ts";
import { systemPrompt } from "../acp/turn/system_prompt.ts";
import { answerTokenCap } from "../model/answer_cap.ts";
import type { ChatFormat } from "../model/chat_format.ts";
import type { ServerKind, ServerToolSupport } from "../model/openai/endpoint_tool_support.ts";
import type {
  ContextSource,
  ConversationItem,
  Model,
  ModelSession,
  ToolDefinition,
} from "../model/model.ts";
import type { ToolsUsage } from "../model/openai/endpoint_tool_usage.ts";
import { estimatePromptTokens } from "../model/token_estimate.ts";
import type { CompatProfileId } from "../profile/compat_profile.ts";
import {
  type Finding,
  fitnessFindings,
  type ToolsStatus,
  type Verdict,
  verdictOf,
} from "./fitness_verdict.ts";
import { PROBE_TASKS, type ProbeTask } from "./probe_tasks.ts";
import { probeConversation, type ProbeResult, runToolCallProbe } from "./tool_call_probe.ts";

/** The cap on each probe answer: a call takes a few dozen tokens; a ramble is cut early. */
export const PROBE_ANSWER_TOKENS = 128;

/**
 * A prompt that a server counts with the tools as fewer than this share of their definitions'
 * estimated tokens above the same prompt without them was sent without them.
 */
const DROPPED_TOOLS_SHARE = 0.1;

export interface FitnessCheckOptions {
  readonly model: Model;
  readonly session: ModelSession;
  readonly kit: ToolKit;
  /** The directory a session would start in: the system prompt names it. */
  readonly cwd: string;
  readonly signal: AbortSignal;
  /** A model in process: how it writes calls (llama_model.ts `chatFormatOf`). */
  readonly chatFormat?: ChatFormat;
  /** A model on a server. */
  readonly endpoint?: {
    readonly baseUrl: string;
    readonly support: ServerToolSupport;
    /** The server's usage for one conversation with `tools` and without (endpoint_tool_usage.ts). */
    toolsUsage(
      conversation: readonly ConversationItem[],
      tools: readonly ToolDefinition[],
      signal: AbortSignal,
    ): Promise<ToolsUsage>;
  };
  readonly tasks?: readonly ProbeTask[];
  readonly answerTokens?: number;
  /** A line for the user while the probe runs. */
  progress?(line: string): void;
}

export interface FitnessReport {
  readonly verdict: Verdict;
  readonly findings: readonly Finding[];
  readonly model: string;
  readonly where: "process" | "endpoint";
  /** The server's base URL. */
  readonly endpoint?: string;
  readonly profile: CompatProfileId;
  readonly chatFormat?: ChatFormat;
  readonly server?: {
    readonly kind?: ServerKind;
    readonly tools: ToolsStatus;
    readonly said?: string;
  };
  readonly context: {
    /** Absent where the model has none (a script without `contextSize`). */
    readonly size?: number;
    /** `server`: the server says it; `assumed`: nobody does. */
    readonly source?: ContextSource;
    readonly answerTokenCap?: number;
    readonly systemPromptTokens: number;
    readonly toolDefinitionTokens: number;
    readonly fixedPromptTokens: number;
    readonly fixedPromptShare?: number;
    /** The tools' form for this context (tool_kit.ts `toolFormFor`). */
    readonly toolForm: ToolForm;
    /** The model's tokenizer, or the estimate (which errs high). */
    readonly counted: "tokenizer" | "estimate";
  };
  readonly probe: {
    readonly prompts: number;
    readonly valid: number;
    readonly answerTokenCap: number;
    readonly seconds: number;
    readonly results: readonly ProbeResult[];
  };
  readonly seconds: number;
}

export async function checkModelFitness(options: FitnessCheckOptions): Promise<FitnessReport> {
  const started = performance.now();
  const { session, kit, endpoint } = options;
  const system = systemPrompt({ cwd: options.cwd, additionalDirectories: [] }, kit.profile);
  // The form a session of this context is offered (lean at 4096 tokens or fewer).
  const toolForm = toolFormFor(session.contextSize);
  const tools = kit.definitions(toolForm);
  const counter = tokenCounterOf(session);
  const systemTokens = await counter.prompt([{ role: "system", text: system }], []);
  const fixed = await counter.prompt([{ role: "system", text: system }], tools);
  const size = session.contextSize;
  const context = size === undefined ? undefined : {
    size,
    source: session.contextSource ?? "model",
    answerTokenCap: answerTokenCap(size),
    ...(options.model.contextNotice === undefined ? {} : { notice: options.model.contextNotice }),
  };

  const tasks = options.tasks ?? PROBE_TASKS;
  const answerTokens = options.answerTokens ?? PROBE_ANSWER_TOKENS;
  const probeStarted = performance.now();
  const results = await runToolCallProbe(tasks, {
    session,
    kit,
    system,
    tools,
    cwd: options.cwd,
    answerTokens,
    signal: options.signal,
    onTask: (task, index) =>
      options.progress?.(`Asking the model to ${task.label} (${index + 1} of ${tasks.length})`),
    onResult: (result) => options.progress?.(`  ${resultLine(result)}`),
  });
  const probeSeconds = seconds(probeStarted);
  const valid = results.filter((result) => result.outcome === "valid").length;

  const server = endpoint === undefined ? undefined : {
    kind: endpoint.support.server,
    ...await toolsStatusOf(
      results,
      endpoint,
      probeConversation(system, tasks[0] ?? PROBE_TASKS[0]!),
      tools,
      options.signal,
    ),
  };
  const findings = fitnessFindings({
    probe: {
      prompts: results.length,
      valid,
      failure: results.every((result) => result.outcome === "failed")
        ? results[0]?.detail
        : undefined,
    },
    context,
    fixedPromptTokens: fixed,
    chatFormat: options.chatFormat,
    endpoint: server === undefined ? undefined : {
      model: options.model.displayName,
      server: server.kind,
      tools: server.tools,
      said: server.said,
    },
  });
  return {
    verdict: verdictOf(findings),
    findings,
    model: options.model.displayName,
    where: endpoint === undefined ? "process" : "endpoint",
    ...(endpoint === undefined ? {} : { endpoint: endpoint.baseUrl }),
    profile: kit.profile.id,
    ...(options.chatFormat === undefined ? {} : { chatFormat: options.chatFormat }),
    ...(server === undefined ? {} : { server }),
    context: {
      ...(context === undefined ? {} : {
        size: context.size,
        source: context.source,
        answerTokenCap: context.answerTokenCap,
        fixedPromptShare: Math.round((fixed / context.size) * 1000) / 1000,
      }),
      systemPromptTokens: systemTokens,
      toolDefinitionTokens: fixed - systemTokens,
      fixedPromptTokens: fixed,
      toolForm,
      counted: session.countPromptTokens !== undefined && options.chatFormat !== undefined
        ? "tokenizer"
        : "estimate",
    },
    probe: {
      prompts: results.length,
      valid,
      answerTokenCap: answerTokens,
      seconds: probeSeconds,
      results,
    },
    seconds: seconds(started),
  };
}

/** One probe result as a progress line: "valid call to fs_read (1.2 s)". */
export function resultLine(result: ProbeResult): string {
  const time = `(${result.seconds.toFixed(1)} s)`;
  const call = result.call === undefined
    ? ""
    : ` to ${result.call.name}${repairWords(result.call)}`;
  const detail = result.detail === undefined ? "" : `: ${result.detail}`;
  switch (result.outcome) {
    case "valid":
      return `valid call${call} ${time}`;
    case "off_task":
      return `call${call} about something else${detail} ${time}`;
    case "invalid":
      return `invalid call${call}${detail} ${time}`;
    case "wrong_tool":
      return `wrong tool${detail} ${time}`;
    case "text":
      return `no call, text${detail} ${time}`;
    case "failed":
      return `failed${detail} ${time}`;
    default:
      return result.outcome satisfies never;
  }
}

/** How a call was repaired, as the progress line says it: " (written as text, as bash)". */
function repairWords(call: TurnToolCall): string {
  const repair = call.repair;
  if (repair === undefined) return "";
  const words = [
    ...(repair.fromText === undefined ? [] : ["written as text"]),
    ...(repair.renamed ? [`as ${repair.emittedName}`] : []),
    ...(repair.decodedArguments ? ["arguments as a JSON string"] : []),
  ];
  return words.length === 0 ? "" : ` (${words.join(", ")})`;
}

async function toolsStatusOf(
  results: readonly ProbeResult[],
  endpoint: NonNullable<FitnessCheckOptions["endpoint"]>,
  conversation: readonly ConversationItem[],
  tools: readonly ToolDefinition[],
  signal: AbortSignal,
): Promise<{ readonly tools: ToolsStatus; readonly said?: string }> {
  // A call written as text says nothing of the server: a model that never saw the tools may
  // still write one.
  if (results.some((result) => result.call !== undefined && !result.call.repair?.fromText)) {
    return { tools: "honoured", said: "the model answered with tool calls" };
  }
  const usage = signal.aborted ? undefined : await endpoint.toolsUsage(conversation, tools, signal);
  const status = usage === undefined ? undefined : toolsStatusOfUsage(usage, tools);
  if (status !== undefined) return status;
  const support = endpoint.support;
  if (support.tools !== undefined) {
    return { tools: support.tools === "no" ? "dropped" : "honoured", said: support.said };
  }
  return { tools: "unknown" };
}

/**
 * What the same prompt's usage with and without the tools says: refused where only the request
 * with them fails; dropped where they add less than `DROPPED_TOOLS_SHARE` of what their
 * definitions take by the estimate; undefined where it says nothing (no usage, or both failed).
 */
export function toolsStatusOfUsage(
  usage: ToolsUsage,
  tools: readonly ToolDefinition[],
): { readonly tools: ToolsStatus; readonly said: string } | undefined {
  const { withTools, withoutTools } = usage;
  if (typeof withoutTools !== "number") return undefined;
  if (typeof withTools !== "number") return { tools: "refused", said: withTools.error };
  if (withTools <= 0 || withoutTools <= 0) return undefined;
  const said = `it reported ${withTools} prompt tokens with the tools and ${withoutTools} ` +
    "without them";
  const added = withTools - withoutTools;
  return added < estimatePromptTokens([], tools) * DROPPED_TOOLS_SHARE
    ? { tools: "dropped", said }
    : { tools: "honoured", said };
}

function seconds(since: number): number {
  return Math.round(performance.now() - since) / 1000;
}
