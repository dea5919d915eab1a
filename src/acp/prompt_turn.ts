/**
 * One prompt turn (acp.md "A prompt turn"): UserPromptSubmit hooks; the model generates,
 * streaming text and thoughts; each tool call it makes goes through the tool-call step; the
 * results go back to the model; this repeats until the model answers without tools, a limit is
 * hit, or the client cancels; then the Stop hooks.
 */
import type { ContentBlock, PromptResponse, StopReason } from "@agentclientprotocol/sdk";
import type {
  AssistantSegment,
  ConversationItem,
  GenerateResult,
  ModelSession,
  RequestedToolCall,
  ToolDefinition,
} from "../model/model.ts";
import { turnEndOf } from "../model/model.ts";
import { AgentError, errorMessage } from "../error.ts";
import { hookPermissionMode } from "../agent/permission_policy.ts";
import { systemReminder } from "../hooks/hook_messages.ts";
import type { AgentSession } from "./agent_session.ts";
import { promptText } from "./prompt_text.ts";
import { systemPrompt } from "./system_prompt.ts";
import type { ToolCallOutcome } from "./tool_call_step.ts";
import { batchedCall, runPostToolBatchHooks } from "./tool_batch_hooks.ts";
import type { BatchedToolCall } from "../hooks/payload.ts";
import { fireNotification, runStopHooks, runUserPromptSubmitHooks } from "./turn_hooks.ts";
import type { ToolTurn, TurnHookContext } from "./turn_types.ts";
import { contextResultBudget } from "./tool_output_budget.ts";
import { untilAborted } from "./until_aborted.ts";
import { DEFAULT_STOP_HOOK_BLOCK_CAP, stopContinuation } from "./stop_continuation.ts";

export interface TurnDeps {
  /** The prompt's id as hooks see it (`prompt_id`); a random UUID when absent. */
  readonly promptId?: string;
  /** The session's model context, opened (or loaded) on first use. */
  readonly openModel: () => Promise<ModelSession>;
  /** The tools on offer, read before each generation: an MCP server's list may change mid-turn. */
  readonly tools: () => readonly ToolDefinition[];
  readonly maxToolRounds: number;
  /**
   * Stop continuations a turn allows before the next block is overridden
   * (`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`); Claude Code's 8 when absent.
   */
  readonly stopHookBlockCap?: number;
  /** Runs one call end to end (announce, gate, dispatch, report) and returns what the model sees. */
  readonly runToolCall: (call: RequestedToolCall, turn: ToolTurn) => Promise<ToolCallOutcome>;
}

/**
 * Runs a turn the caller has begun (`session.beginTurn()`), under its signal. Whatever happens —
 * an answer, a limit, a cancel, a hook's refusal, a failure — the prompt, the assistant's message
 * so far and the outcome are in the conversation and the transcript before this returns or
 * throws.
 */
export async function runPromptTurn(
  session: AgentSession,
  prompt: readonly ContentBlock[],
  signal: AbortSignal,
  deps: TurnDeps,
): Promise<PromptResponse> {
  const turn = new TurnState(session, { promptId: deps.promptId ?? crypto.randomUUID(), signal });
  const text = promptText(prompt);
  try {
    const gate = await runUserPromptSubmitHooks(session, prompt, turn.hookContext);
    if (gate.kind !== "go" || signal.aborted) {
      // Not kept in the model's history: the model never saw this prompt.
      session.record({ type: "prompt", prompt: [...prompt], text, refused: true });
      if (signal.aborted) return turn.finish("cancelled");
      if (gate.kind === "refused") {
        session.notice(gate.message);
        return turn.finish("refusal");
      }
      if (gate.kind === "stopped") return turn.finishByHook(gate.stopReason);
      return turn.finish("end_turn");
    }
    const forModel = gate.forModel.map((line) => systemReminder(line) + "\n\n").join("");
    session.record({ type: "prompt", prompt: [...prompt], text: forModel + text });
    session.claudeTranscript?.prompt({
      promptId: turn.hookContext.promptId,
      text,
      permissionMode: hookPermissionMode(session.mode),
    });
    session.conversation.push({ role: "user", text: forModel + text });
    const model = await untilAborted(deps.openModel(), signal);
    if (!model || signal.aborted) return turn.finish("cancelled");
    return await runModelLoop(turn, model, deps);
  } catch (error) {
    turn.closeMessage();
    session.record({ type: "failure", message: errorMessage(error) });
    throw error;
  }
}

/** Generate, run the tools asked for, repeat; at the end, the Stop hooks may ask for more. */
async function runModelLoop(
  turn: TurnState,
  model: ModelSession,
  deps: TurnDeps,
): Promise<PromptResponse> {
  const { session, hookContext: { signal } } = turn;
  // Each result may take its share of what the next request leaves free (tool_output_budget.ts).
  const toolTurn = {
    ...turn.hookContext,
    budget: contextResultBudget(model, () => ({
      conversation: [
        { role: "system" as const, text: systemPrompt(session, session.toolKit.profile) },
        ...session.conversation,
        ...(turn.segments.length > 0
          ? [{ role: "assistant" as const, segments: [...turn.segments] }]
          : []),
      ],
      tools: deps.tools(),
    })),
  };
  let toolRounds = 0;
  let continuations = 0;
  for (let round = 0;; round++) {
    let stop: StopReason;
    let result: GenerateResult | undefined;
    try {
      result = await generateOnce(turn, model, deps.tools());
    } catch (error) {
      // Tool results filled the context: the turn ends at the limit, as acp.md asks. A prompt
      // that does not fit at all is the user's to fix, and its error says how.
      if (round === 0 || !(error instanceof AgentError) || error.code !== "CONTEXT_FULL") {
        throw error;
      }
      session.log(error.message);
    }
    if (result) {
      turn.count(result, round === 0);
      if (result.notice !== undefined) {
        session.log(result.notice);
        session.notice(result.notice);
      }
      if (signal.aborted || result.stop === "cancelled") return turn.finish("cancelled");
    }
    if (!result) stop = "max_tokens";
    else if (result.toolCalls.length === 0) stop = turnEndOf(result.stop);
    else if (toolRounds >= deps.maxToolRounds) stop = "max_turn_requests";
    else {
      toolRounds++;
      const batch: BatchedToolCall[] = [];
      for (const call of result.toolCalls) {
        if (signal.aborted) break;
        const outcome = await deps.runToolCall(call, toolTurn);
        turn.segments.push(outcome.segment);
        if (outcome.deferred) {
          // Claude Code's own word (`stop_reason: "tool_deferred"`), under the key a client
          // already reads for a hook that ended the turn; ACP has no stop reason of its own
          // for it, and the call's update says which call was held. The later calls of the
          // batch are not run, no PostToolBatch or Stop hook fires, the model is not called.
          return turn.finishByHook("tool_deferred");
        }
        if (outcome.halt) return turn.finishByHook(outcome.halt.stopReason);
        batch.push(batchedCall(call, outcome));
      }
      if (signal.aborted) return turn.finish("cancelled");
      const batchGate = await runPostToolBatchHooks(session, turn.hookContext, batch);
      if (signal.aborted) return turn.finish("cancelled");
      if (batchGate.kind === "halt") return turn.finishByHook(batchGate.stopReason);
      if (batchGate.forModel.length > 0) {
        turn.feedBack(batchGate.forModel.map(systemReminder).join("\n\n"));
      }
      continue;
    }

    const stopGate = await runStopHooks(session, turn.hookContext, {
      stopHookActive: continuations > 0,
      lastAssistantMessage: turn.lastText(),
    });
    if (signal.aborted) return turn.finish("cancelled");
    delete turn.meta.hook_should_continue;
    delete turn.meta.hook_reason;
    if (stopGate.kind === "halt") turn.meta.hook_stop_reason = stopGate.stopReason ?? "";
    if (stopGate.kind === "block") {
      turn.meta.hook_should_continue = true;
      turn.meta.hook_reason = stopGate.reason;
    }
    if (!session.stopHooksContinue || stop !== "end_turn") return turn.finish(stop);
    const cap = deps.stopHookBlockCap ?? DEFAULT_STOP_HOOK_BLOCK_CAP;
    const next = stopContinuation(stopGate, continuations, cap);
    for (const notice of next.notices) session.notice(notice);
    if (next.kind === "end") return turn.finish(stop);
    continuations++;
    turn.feedBack(next.forModel);
  }
}

/** What one turn has said and counted so far, and how it ends. */
class TurnState {
  segments: AssistantSegment[] = [];
  readonly tokens = { prompt: 0, evaluated: 0, generated: 0 };
  /** The response's `_meta` besides `tokens` (the hook keys of acp.md). */
  readonly meta: Record<string, unknown> = {};

  constructor(readonly session: AgentSession, readonly hookContext: TurnHookContext) {}

  count(result: GenerateResult, first: boolean): void {
    if (first) this.tokens.prompt = result.tokens.prompt;
    this.tokens.evaluated += result.tokens.evaluated;
    this.tokens.generated += result.tokens.generated;
  }

  /** The assistant's last text in this turn (Stop's `last_assistant_message`). */
  lastText(): string {
    const last = this.segments.findLast((s) => s.type === "text");
    return last?.type === "text" ? last.text : "";
  }

  closeMessage(): void {
    if (this.segments.length > 0) {
      this.session.conversation.push({ role: "assistant", segments: this.segments });
    }
    this.segments = [];
  }

  /** Hook text the model reads as the next message of the conversation. */
  feedBack(text: string): void {
    this.closeMessage();
    this.session.conversation.push({ role: "user", text });
    this.session.record({ type: "hook_feedback", text });
    this.session.claudeTranscript?.hookFeedback({
      promptId: this.hookContext.promptId,
      content: text,
    });
  }

  finish(stopReason: StopReason): PromptResponse {
    this.closeMessage();
    const meta = { ...this.meta, tokens: { ...this.tokens } };
    this.session.record({ type: "response", stopReason, _meta: meta });
    this.session.claudeTranscript?.endTurn();
    return { stopReason, _meta: meta };
  }

  /** A hook ended the turn (`continue:false`, a deferred call): `stopReason` is what it said. */
  finishByHook(stopReason: string | null): PromptResponse {
    this.meta.hook_stop_reason = stopReason ?? "";
    return this.finish("end_turn");
  }
}

/** One model call: streams its text and thoughts as they come, each as one message. */
async function generateOnce(
  turn: TurnState,
  model: ModelSession,
  tools: readonly ToolDefinition[],
): Promise<GenerateResult> {
  const { session, segments } = turn;
  const messageId = crypto.randomUUID();
  const thoughtId = crypto.randomUUID();
  const conversation: ConversationItem[] = [
    { role: "system", text: systemPrompt(session, session.toolKit.profile) },
    ...session.conversation,
    ...(segments.length > 0 ? [{ role: "assistant" as const, segments: [...segments] }] : []),
  ];
  let text = "";
  let thought = "";
  const result = await model.generate({
    conversation,
    tools,
    signal: turn.hookContext.signal,
    onTextChunk(chunk) {
      if (chunk === "") return;
      text += chunk;
      appendText(segments, "text", chunk);
      session.send({
        sessionUpdate: "agent_message_chunk",
        messageId,
        content: { type: "text", text: chunk },
      });
    },
    onThoughtChunk(chunk) {
      if (chunk === "") return;
      thought += chunk;
      appendText(segments, "thought", chunk);
      session.send({
        sessionUpdate: "agent_thought_chunk",
        messageId: thoughtId,
        content: { type: "text", text: chunk },
      });
    },
  });
  // Before any hook of this round runs: the Stop hook reads this reply, a PreToolUse hook its call.
  session.claudeTranscript?.reply({
    model: session.modelName ?? "llama-agent",
    text,
    stop: result.stop,
    calledTools: result.toolCalls.length > 0,
    tokens: result.tokens,
  });
  // Once per finished message, never per chunk, and never holding up the turn.
  fireNotification(session, turn.hookContext, "agent_thought", thought);
  fireNotification(session, turn.hookContext, "agent_message", text);
  return result;
}

function appendText(segments: AssistantSegment[], type: "text" | "thought", text: string): void {
  const last = segments.at(-1);
  if (last?.type === type) segments[segments.length - 1] = { type, text: last.text + text };
  else segments.push({ type, text });
}
