/**
 * `doctor`'s verdict from what it found (pure): each finding is a reason with its level and what
 * to try instead, and the verdict is the worst level found.
 *
 * The rules:
 * - `unsuitable`: the server drops or refuses the tools; the fixed prompt (system prompt and
 *   tool definitions) and one answer do not fit in the context together (every turn would end
 *   before it starts); no probe prompt got a valid, relevant call.
 * - `limited`: fewer than `READY_CALL_SHARE` of the probe prompts got one; the fixed prompt
 *   takes more than `FIXED_PROMPT_SHARE_LIMIT` of the context (little room for the conversation,
 *   which then compacts often).
 * - `ready` otherwise. Notes (an assumed context, a generic call syntax that worked anyway) are
 *   said but change nothing.
 */
import type { ChatFormat } from "../model/chat_format.ts";
import { GENERIC_CALL_SYNTAX } from "../model/chat_format.ts";
import type { ContextSource } from "../model/model.ts";
import { type ServerKind, toolsFix } from "../model/openai/endpoint_tool_support.ts";
import { contextForPrompt } from "../model/answer_cap.ts";

export const VERDICTS = ["ready", "limited", "unsuitable"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** The share of probe prompts that must get a valid, relevant call for `ready`. */
export const READY_CALL_SHARE = 0.6;
/** The most of the context the fixed prompt may take for `ready`. */
export const FIXED_PROMPT_SHARE_LIMIT = 0.5;

/** What the server does with a request's tools (an endpoint only). */
export type ToolsStatus = "honoured" | "dropped" | "refused" | "unknown";

export interface FitnessFacts {
  readonly probe: {
    readonly prompts: number;
    readonly valid: number;
    /** Set where every probe prompt failed: the first one's error. */
    readonly failure?: string;
  };
  /** Absent where the model has no context size (a script without one). */
  readonly context?: {
    readonly size: number;
    readonly source: ContextSource;
    readonly answerTokenCap: number;
    /** What the user is told of an assumed context. */
    readonly notice?: string;
  };
  readonly fixedPromptTokens: number;
  /** A model in process: how it writes calls. */
  readonly chatFormat?: ChatFormat;
  /** A model on a server. */
  readonly endpoint?: {
    readonly model: string;
    readonly server?: ServerKind;
    readonly tools: ToolsStatus;
    /** How that was found out. */
    readonly said?: string;
  };
}

export interface Finding {
  readonly level: Verdict | "note";
  readonly reason: string;
  /** What to try instead. */
  readonly advice?: string;
}

/** What to try instead of a model that does not call tools well enough. */
export const LARGER_MODEL_ADVICE = "a larger instruct model whose chat template has tool " +
  "calls (its own call syntax, not node-llama-cpp's generic one), e.g. Qwen2.5-7B-Instruct, " +
  "Qwen3-8B or Llama-3.1-8B-Instruct in Q4_K_M: function-calling accuracy grows with size " +
  "(BFCL V4: Qwen3.5-2B 43.6 %, 4B 56.8 %, 9B 60.6 %)";

export function fitnessFindings(facts: FitnessFacts): Finding[] {
  return [...toolFindings(facts), ...contextFindings(facts), ...probeFindings(facts)];
}

export function verdictOf(findings: readonly Finding[]): Verdict {
  const levels = new Set(findings.map((finding) => finding.level));
  return levels.has("unsuitable") ? "unsuitable" : levels.has("limited") ? "limited" : "ready";
}

function toolFindings(facts: FitnessFacts): Finding[] {
  const endpoint = facts.endpoint;
  if (endpoint === undefined) return [];
  const fix = toolsFix(endpoint.server, endpoint.model);
  const said = endpoint.said === undefined ? "" : `: ${endpoint.said}`;
  switch (endpoint.tools) {
    case "dropped":
      return [{
        level: "unsuitable",
        reason: `The server drops the tools: the model never sees them${said}`,
        advice: fix,
      }];
    case "refused":
      return [{
        level: "unsuitable",
        reason: `The server refuses requests with tools${said}`,
        advice: fix,
      }];
    case "honoured":
    case "unknown":
      return [];
    default:
      return endpoint.tools satisfies never;
  }
}

function contextFindings(facts: FitnessFacts): Finding[] {
  const context = facts.context;
  if (context === undefined) return [];
  const findings: Finding[] = [];
  const fixed = facts.fixedPromptTokens;
  const needed = fixed + context.answerTokenCap;
  // The cap grows with the context: the least context that holds the prompt and its own cap.
  const enough = contextForPrompt(fixed);
  const larger = facts.endpoint === undefined
    ? "pass --ctx-size"
    : "give the server a larger context (llama-server -c, vLLM --max-model-len, Ollama " +
      "num_ctx) and pass --ctx-size";
  if (needed > context.size) {
    findings.push({
      level: "unsuitable",
      reason: `The fixed prompt (${count(fixed)}: the system prompt and the tool definitions) ` +
        `and one answer (${count(context.answerTokenCap)}) do not fit in the context of ` +
        `${count(context.size)}: every turn would end before it starts`,
      advice: `${larger} ${enough} or more`,
    });
  } else if (fixed > context.size * FIXED_PROMPT_SHARE_LIMIT) {
    findings.push({
      level: "limited",
      reason: `The fixed prompt takes ${percent(fixed / context.size)} of the context ` +
        `(${count(fixed)} of ${count(context.size)}): little room is left for the ` +
        "conversation, which compacts often",
      advice: `${larger} ${roundedUp(fixed * 4)} or more`,
    });
  }
  if (context.source === "assumed") {
    findings.push({
      level: "note",
      reason: context.notice ?? `The context of ${count(context.size)} is assumed`,
    });
  }
  return findings;
}

function probeFindings(facts: FitnessFacts): Finding[] {
  const { prompts, valid } = facts.probe;
  if (prompts === 0) return [];
  const tools = facts.endpoint?.tools;
  if (tools === "dropped" || tools === "refused") {
    // The model never saw a tool: the probe says nothing of it.
    return [{ level: "note", reason: "The probe could not judge the model: it got no tools" }];
  }
  if (facts.probe.failure !== undefined) {
    return [{
      level: "unsuitable",
      reason: `No probe prompt could be asked: ${facts.probe.failure}`,
    }];
  }
  const generic = facts.chatFormat?.toolCalls === "generic"
    ? `its chat template (node-llama-cpp's ${facts.chatFormat.wrapper} wrapper) has no tool ` +
      `calls of its own, so it is asked to write node-llama-cpp's generic syntax ` +
      `(${GENERIC_CALL_SYNTAX}), which it was not trained on`
    : undefined;
  const got = `${valid} of ${prompts} prompts that each needed one tool got a valid, relevant ` +
    "call";
  if (valid === 0) {
    return [{
      level: "unsuitable",
      reason: generic === undefined ? got : `${got}: ${generic}`,
      advice: LARGER_MODEL_ADVICE,
    }];
  }
  if (valid < prompts * READY_CALL_SHARE) {
    return [{
      level: "limited",
      reason: `Only ${generic === undefined ? got : `${got}; ${generic}`}`,
      advice: "keep to single reads and edits you check, and for multi-step work use " +
        LARGER_MODEL_ADVICE,
    }];
  }
  return generic === undefined ? [] : [{
    level: "note",
    reason: `Tool calls worked in the probe, though ${generic}`,
  }];
}

function count(tokens: number): string {
  return `${tokens.toLocaleString("en-US")} tokens`;
}

function percent(share: number): string {
  return `${Math.round(share * 100)} %`;
}

/** A context size to suggest: `tokens` rounded up to a whole 1024. */
function roundedUp(tokens: number): number {
  return Math.ceil(tokens / 1024) * 1024;
}
