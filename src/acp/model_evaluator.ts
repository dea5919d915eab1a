/**
 * The `Evaluator` of `prompt` and `agent` hooks on the session's own model (hooks.md §7). Each
 * evaluation opens its own model session (a separate context sequence, so the conversation's
 * cached prefix is untouched) and disposes it after, whatever happens.
 *
 * A `prompt` hook is one generation under a JSON-schema grammar for the verdict. An `agent` hook
 * first gets up to `MAX_AGENT_TOOL_ROUNDS` rounds with the `fs_read` tool (confined to the allowed
 * roots, run here), then the verdict under the grammar: a grammar and tools cannot share a call.
 * An answer without tool calls that already is a valid verdict is taken as it is; after the last
 * round, calls are no longer offered and the verdict is asked for all the same.
 *
 * Anything that is not a verdict (invalid JSON, a cut answer, a model error, a cancel) rejects;
 * `runEvaluatedHandler` turns that into a non-blocking error.
 */
import { z } from "zod";
import { LocalFileAccess } from "../agent/files/local_file_access.ts";
import type { ShellRunner } from "../agent/shell/shell_runner.ts";
import type { ToolOperation } from "../agent/tools/tool_operation.ts";
import { llamaToolKit } from "../agent/tools/llama_tool_kit.ts";
import { capabilityOf } from "../profile/compat_profile.ts";

/** An agent hook reads files with the llama profile's `fs_read`, whatever the session's profile. */
const READ_ONLY_KIT = llamaToolKit();
import { AgentError, errorMessage } from "../error.ts";
import type { Evaluation, EvaluationRequest, Evaluator } from "../hooks/handlers/evaluator.ts";
import type {
  AssistantSegment,
  ConversationItem,
  GenerateRequest,
  GenerateResult,
  ModelSession,
  RequestedToolCall,
  ToolDefinition,
} from "../model/model.ts";
import type { ModelProvider } from "./model_provider.ts";
import { DEFAULT_TOOL_OUTPUT_SHARE } from "./compaction/context_budget.ts";
import { contextResultBudget, fitResult, resultOrigin } from "./turn/tool_output_budget.ts";
import { untilAborted } from "./turn/until_aborted.ts";

/** Rounds of tool calls an `agent` hook may make before it must answer (hooks.md §7). */
export const MAX_AGENT_TOOL_ROUNDS = 8;
/** Tokens a verdict may take: a verdict is a line, not an essay. */
export const VERDICT_MAX_TOKENS = 512;

/**
 * The verdict as a JSON schema, in the subset a llama grammar can hold exactly: a grammar object
 * lists all of its properties, so "reason optional" is two alternatives, and the grammar itself
 * makes `reason` required when `ok` is false.
 */
export const VERDICT_SCHEMA: Readonly<Record<string, unknown>> = {
  anyOf: [
    {
      type: "object",
      properties: { ok: { type: "boolean" }, reason: { type: "string" } },
      required: ["ok", "reason"],
      additionalProperties: false,
    },
    {
      type: "object",
      properties: { ok: { const: true } },
      required: ["ok"],
      additionalProperties: false,
    },
  ],
};

/** What is accepted from any backend (a scripted one is not bound by the grammar). */
const Verdict = z.object({ ok: z.boolean(), reason: z.string().optional() });

const VERDICT_SHAPE = '{"ok": boolean, "reason"?: string}';

export interface ModelEvaluatorOptions {
  readonly models: Pick<ModelProvider, "get">;
  /** The allowed roots, already resolved (see `allowedRoots`): where `fs_read` may look. */
  readonly roots: readonly string[];
  readonly log: (line: string) => void;
}

export function createModelEvaluator(options: ModelEvaluatorOptions): Evaluator {
  return {
    async evaluate(request) {
      const { signal } = request;
      const model = await untilAborted(options.models.get(), signal);
      if (model === undefined || signal.aborted) throw stopped(signal);
      const session = await model.openSession();
      try {
        if (signal.aborted) throw stopped(signal);
        switch (request.kind) {
          case "prompt":
            return await askVerdict(session, conversationFor(request), signal);
          case "agent":
            return await runAgent(session, request, options);
          default:
            return request.kind satisfies never;
        }
      } finally {
        await session.dispose().catch((error) =>
          options.log(`Cannot free the model context of a hook evaluation: ${errorMessage(error)}`)
        );
      }
    },
  };
}

function conversationFor(request: EvaluationRequest): ConversationItem[] {
  return [
    { role: "system", text: systemPrompt(request) },
    { role: "user", text: request.prompt },
  ];
}

/** Says what is judged and the one answer expected; an agent hook also learns of its tool. */
export function systemPrompt(request: Pick<EvaluationRequest, "kind" | "cwd">): string {
  const lines = [
    "You check one event of a coding agent, as a Claude Code hook does. The user message holds " +
    "the hook's instructions and the event as JSON.",
    `Answer with one JSON object and nothing else: {"ok": true} when the event may go ahead, ` +
    `or {"ok": false, "reason": "..."} when it must not. When "ok" is false, "reason" is ` +
    "required: say in one sentence why, for the user and the agent.",
  ];
  if (request.kind === "agent") {
    lines.push(
      "Before you answer, you may read files with the fs_read tool (read-only; relative paths " +
        `start at "${request.cwd}"), in at most ${MAX_AGENT_TOOL_ROUNDS} rounds of tool calls.`,
    );
  }
  return lines.join("\n");
}

async function runAgent(
  session: ModelSession,
  request: EvaluationRequest,
  options: ModelEvaluatorOptions,
): Promise<Evaluation> {
  const { signal } = request;
  const tools = readOnlyTools();
  const files = new LocalFileAccess({ cwd: request.cwd, roots: options.roots });
  const segments: AssistantSegment[] = [];
  const conversation = () => [
    ...conversationFor(request),
    ...(segments.length > 0 ? [{ role: "assistant" as const, segments: [...segments] }] : []),
  ];
  // As in a prompt turn: a result takes its share of what the next request leaves free.
  const budget = contextResultBudget(
    session,
    () => ({ conversation: conversation(), tools }),
    DEFAULT_TOOL_OUTPUT_SHARE,
  );
  for (let round = 1;; round++) {
    const result = await generate(session, { conversation: conversation(), tools, signal });
    if (result.thought !== "") segments.push({ type: "thought", text: result.thought });
    if (result.text !== "") segments.push({ type: "text", text: result.text });
    if (result.toolCalls.length === 0) {
      const early = parseVerdict(result.text);
      if (early.ok) return early.verdict;
      break;
    }
    for (const call of result.toolCalls) {
      const { text, operation } = await runReadOnlyTool(call, request.cwd, files, signal);
      if (signal.aborted) throw stopped(signal);
      const origin = resultOrigin(operation, "fs_read");
      const result = await fitResult(text, origin, budget, READ_ONLY_KIT.profile.cutNotes);
      segments.push({ type: "tool_call", name: call.name, input: call.input, result });
    }
    if (round === MAX_AGENT_TOOL_ROUNDS) {
      options.log(
        `An agent hook used its ${MAX_AGENT_TOOL_ROUNDS} tool rounds: asking for its verdict`,
      );
      break;
    }
  }
  return await askVerdict(session, conversation(), signal);
}

/** The built-in tool definitions an agent hook is offered: `fs_read` only. */
export function readOnlyTools(): ToolDefinition[] {
  return READ_ONLY_KIT.definitions().filter((tool) => tool.name === "fs_read");
}

/** Only never-used doors need this: an agent hook's calls never reach the shell. */
const NO_SHELL: ShellRunner = {
  run: () =>
    Promise.resolve({
      kind: "failed",
      message: "An agent hook cannot run shell commands",
      durationMs: 0,
    }),
};

async function runReadOnlyTool(
  call: RequestedToolCall,
  cwd: string,
  files: LocalFileAccess,
  signal: AbortSignal,
): Promise<{ readonly text: string; readonly operation?: ToolOperation }> {
  if (capabilityOf(READ_ONLY_KIT.profile, call.name) !== "fs_read") {
    return { text: `Cannot run "${call.name}": an agent hook may only read files, with fs_read` };
  }
  const parsed = READ_ONLY_KIT.parse("fs_read", call.input, call.name, cwd);
  if (!parsed.ok) return { text: parsed.message };
  const execution = await READ_ONLY_KIT.execute(parsed.operation, {
    cwd,
    roots: [cwd],
    files,
    shell: NO_SHELL,
    signal,
  });
  return { text: execution.modelText, operation: parsed.operation };
}

/** One generation under the verdict grammar, continuing an agent's message where there is one. */
async function askVerdict(
  session: ModelSession,
  conversation: readonly ConversationItem[],
  signal: AbortSignal,
): Promise<Evaluation> {
  const result = await generate(session, {
    conversation,
    tools: [],
    signal,
    maxTokens: VERDICT_MAX_TOKENS,
    responseSchema: VERDICT_SCHEMA,
  });
  const parsed = parseVerdict(result.text);
  if (parsed.ok) return parsed.verdict;
  const cut = result.stop === "max_tokens" || result.stop === "context_full"
    ? ` (cut off after ${result.tokens.generated} tokens)`
    : "";
  throw new AgentError(
    "INPUT_INVALID",
    `Invalid verdict ${quote(result.text)}${cut}: ${parsed.problem}; expected ${VERDICT_SHAPE}`,
  );
}

async function generate(
  session: ModelSession,
  request: Omit<GenerateRequest, "onTextChunk" | "onThoughtChunk">,
): Promise<GenerateResult> {
  const result = await session.generate({
    ...request,
    onTextChunk: () => {},
    onThoughtChunk: () => {},
  });
  if (request.signal.aborted || result.stop === "cancelled") throw stopped(request.signal);
  return result;
}

type ParsedVerdict =
  | { readonly ok: true; readonly verdict: Evaluation }
  | { readonly ok: false; readonly problem: string };

/** The verdict in an answer that is one JSON object and nothing else. */
export function parseVerdict(text: string): ParsedVerdict {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: "it is not JSON" };
  }
  const parsed = Verdict.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue && issue.path.length > 0 ? ` at /${issue.path.join("/")}` : "";
    return { ok: false, problem: `${issue?.message ?? "wrong shape"}${at}` };
  }
  const { ok, reason } = parsed.data;
  return { ok: true, verdict: reason === undefined ? { ok } : { ok, reason } };
}

/** The signal's reason when it is an error (a timeout or cancel says which), else an AbortError. */
function stopped(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new DOMException("The hook evaluation was stopped", "AbortError");
}

function quote(text: string): string {
  const shown = text.length > 200 ? `${text.slice(0, 200)}...` : text;
  return JSON.stringify(shown);
}
