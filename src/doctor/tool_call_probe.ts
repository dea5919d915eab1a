/**
 * `doctor`'s tool-calling probe: each task's prompt (probe_tasks.ts) goes to the model once, with
 * the session's system prompt and the profile's tool definitions, its answer capped; no tool is
 * run. Each answer is judged as the agent would take it: repaired as a turn repairs it (a call
 * written as text, arguments as a JSON string, another agent's tool name: tool_call_repair.ts),
 * then by which tool its call names, whether the tool takes the input (the kit's own parse), and
 * whether the input is about what was asked.
 *
 * All prompts go through one model session, so a model in process evaluates the shared prefix
 * (system prompt and tools) once.
 */
import { errorMessage } from "../error.ts";
import type { ToolKit } from "../agent/tools/tool_kit.ts";
import {
  repairAnswer,
  type RepairSession,
  type TurnToolCall,
} from "../acp/turn/tool_call_repair.ts";
import type {
  ConversationItem,
  GenerateStop,
  ModelSession,
  ToolDefinition,
} from "../model/model.ts";
import { profileTool, toolNameOf } from "../profile/compat_profile.ts";
import type { ProbeTask } from "./probe_tasks.ts";

/**
 * How one answer went, best first: only `valid` counts. `off_task`: the right tool with input it
 * takes, about something else; `invalid`: the right tool with input it refuses; `wrong_tool`:
 * another tool, or a name that is none; `text`: no call; `failed`: the model call failed.
 */
export const PROBE_OUTCOMES = [
  "valid",
  "off_task",
  "invalid",
  "wrong_tool",
  "text",
  "failed",
] as const;
export type ProbeOutcome = (typeof PROBE_OUTCOMES)[number];

export interface ProbeResult {
  readonly task: string;
  readonly label: string;
  /** The tool the task needs, by this profile's name. */
  readonly expected: string;
  readonly outcome: ProbeOutcome;
  /** The call judged: the best of the answer's calls, with how it was repaired, if it was. */
  readonly call?: TurnToolCall;
  /** Why it is not valid, the start of a text answer, or the error. */
  readonly detail?: string;
  readonly stop?: GenerateStop;
  /** The prompt's tokens as the model reported them (a server's usage; 0 where none). */
  readonly promptTokens: number;
  readonly generatedTokens: number;
  readonly seconds: number;
}

export interface ProbeOptions {
  readonly session: ModelSession;
  readonly kit: ToolKit;
  /** The session's system prompt. */
  readonly system: string;
  readonly tools: readonly ToolDefinition[];
  /** Where relative paths in a call's input start. */
  readonly cwd: string;
  /** The cap on each answer's tokens. */
  readonly answerTokens: number;
  readonly signal: AbortSignal;
  /** Called before each task, and with its result. */
  onTask?(task: ProbeTask, index: number): void;
  onResult?(result: ProbeResult, index: number): void;
}

/** Characters of a text answer or a message that a result keeps. */
const DETAIL_CHARS = 160;

/** The conversation one task is asked in. */
export function probeConversation(system: string, task: ProbeTask): ConversationItem[] {
  return [{ role: "system", text: system }, { role: "user", text: task.prompt }];
}

/** Asks each task in turn; a failed model call is that task's result, never a throw. */
export async function runToolCallProbe(
  tasks: readonly ProbeTask[],
  options: ProbeOptions,
): Promise<ProbeResult[]> {
  const results: ProbeResult[] = [];
  for (const [index, task] of tasks.entries()) {
    if (options.signal.aborted) break;
    options.onTask?.(task, index);
    const result = await askTask(task, options);
    results.push(result);
    options.onResult?.(result, index);
  }
  return results;
}

async function askTask(task: ProbeTask, options: ProbeOptions): Promise<ProbeResult> {
  const expected = toolNameOf(options.kit.profile, task.capability);
  const started = performance.now();
  const seconds = () => Math.round(performance.now() - started) / 1000;
  try {
    const answer = await options.session.generate({
      conversation: probeConversation(options.system, task),
      tools: options.tools,
      signal: options.signal,
      maxTokens: options.answerTokens,
      onTextChunk: () => {},
      onThoughtChunk: () => {},
    });
    const repaired = repairAnswer(
      unrecordedSession(options.kit),
      [{ type: "text", text: answer.text }],
      answer,
      options.tools,
    );
    const judged = repaired.toolCalls.length > 0
      ? judgeCalls(task, repaired.toolCalls, options.kit, options.cwd)
      : { outcome: "text" as const, detail: textDetail(answer.text) };
    return {
      task: task.id,
      label: task.label,
      expected,
      ...judged,
      stop: answer.stop,
      promptTokens: answer.tokens.prompt,
      generatedTokens: answer.tokens.generated,
      seconds: seconds(),
    };
  } catch (error) {
    return {
      task: task.id,
      label: task.label,
      expected,
      outcome: "failed",
      detail: shortened(errorMessage(error)),
      promptTokens: 0,
      generatedTokens: 0,
      seconds: seconds(),
    };
  }
}

/** The repair's view of a session whose records and notices nobody reads. */
function unrecordedSession(kit: ToolKit): RepairSession {
  return { toolKit: kit, record: () => {}, notice: () => {} };
}

export interface Judgement {
  readonly outcome: Exclude<ProbeOutcome, "text" | "failed">;
  readonly call: TurnToolCall;
  readonly detail?: string;
}

/** The best of an answer's calls for `task` (pure); `calls` is not empty. */
export function judgeCalls(
  task: ProbeTask,
  calls: readonly TurnToolCall[],
  kit: ToolKit,
  cwd: string,
): Judgement {
  const judged = calls.map((call) => judgeCall(task, call, kit, cwd));
  const rank = (judgement: Judgement) => PROBE_OUTCOMES.indexOf(judgement.outcome);
  return judged.reduce((best, next) => (rank(next) < rank(best) ? next : best));
}

function judgeCall(task: ProbeTask, call: TurnToolCall, kit: ToolKit, cwd: string): Judgement {
  const profile = kit.profile;
  const expected = toolNameOf(profile, task.capability);
  const refusal = call.repair?.refusal;
  if (refusal !== undefined) return { outcome: "invalid", call, detail: shortened(refusal) };
  const tool = profileTool(profile, call.name);
  if (tool === undefined) {
    return {
      outcome: "wrong_tool",
      call,
      detail: `"${call.name}" is not a tool here; ${expected} was needed`,
    };
  }
  if (tool.capability !== task.capability) {
    return { outcome: "wrong_tool", call, detail: `${tool.name} where ${expected} was needed` };
  }
  const parsed = kit.parse(tool.capability, call.input, call.name, cwd);
  if (!parsed.ok) return { outcome: "invalid", call, detail: shortened(parsed.message) };
  const input = JSON.stringify(call.input ?? null).toLowerCase();
  if (!input.includes(task.mentions.toLowerCase())) {
    return { outcome: "off_task", call, detail: `its input does not mention "${task.mentions}"` };
  }
  return { outcome: "valid", call };
}

function textDetail(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line === "" ? "an empty answer" : `"${shortened(line)}"`;
}

function shortened(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= DETAIL_CHARS ? line : `${line.slice(0, DETAIL_CHARS - 1)}…`;
}
