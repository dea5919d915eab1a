/**
 * One prompt turn (acp.md "A prompt turn"): UserPromptSubmit hooks; the model generates,
 * streaming text and thoughts; each tool call it makes goes through the tool-call step; the
 * results go back to the model; this repeats until the model answers without tools, a limit is
 * hit, or the client cancels; then the Stop hooks.
 */
import type { ContentBlock, PromptResponse, StopReason } from "@agentclientprotocol/sdk";
import type { GenerateResult, ModelSession, ToolDefinition } from "../../model/model.ts";
import { turnEndOf } from "../../model/model.ts";
import { AgentError, errorMessage } from "../../error.ts";
import { hookPermissionMode } from "../../agent/permissions/permission_policy.ts";
import { systemReminder } from "../../hooks/hook_messages.ts";
import type { AgentSession } from "../session/agent_session.ts";
import { promptText } from "./prompt_text.ts";
import type { ToolCallOutcome } from "./tool_call_step.ts";
import { repairAnswer, type TurnToolCall } from "./tool_call_repair.ts";
import { batchedCall, runPostToolBatchHooks } from "./tool_batch_hooks.ts";
import type { BatchedToolCall } from "../../hooks/payload.ts";
import { runStopHooks, runUserPromptSubmitHooks } from "./turn_hooks.ts";
import type { ToolTurn } from "./turn_types.ts";
import { contextResultBudget } from "./tool_output_budget.ts";
import { untilAborted } from "./until_aborted.ts";
import {
  DEFAULT_STOP_HOOK_BLOCK_CAP,
  stopBlockIgnoredNotice,
  stopContinuation,
} from "./stop_continuation.ts";
import { STOP_HOOKS_CONTINUE_NAME } from "../session/session_config.ts";
import { requestAnswerCap } from "../../model/answer_cap.ts";
import { LoopGuard } from "./loop_guard.ts";
import {
  type ContextBudgetSettings,
  DEFAULT_CONTEXT_BUDGET,
} from "../compaction/context_budget.ts";
import { clearConversation, type CompactionHooks, requestItems } from "../compaction/compaction.ts";
import { runCompaction } from "../compaction/compaction_step.ts";
import { tokenCounterOf, tokensText, usageUpdate } from "../compaction/context_meter.ts";
import { sessionCommandOf } from "../session/session_commands.ts";
import { TurnState } from "./turn_state.ts";
import { generateOnce } from "./generate_once.ts";
import { makeRoom } from "./make_room.ts";

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
  readonly runToolCall: (call: TurnToolCall, turn: ToolTurn) => Promise<ToolCallOutcome>;
  /** When to compact and what one tool result may take; the defaults when absent. */
  readonly contextBudget?: ContextBudgetSettings;
  /** PreCompact and PostCompact, where the profile fires them. */
  readonly compactionHooks?: CompactionHooks;
  /** The client takes ACP's `compaction_update` (else a compaction is told as a notice). */
  readonly compactionUpdates?: boolean;
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
  const command = sessionCommandOf(prompt);
  if (command !== undefined) {
    // A command is the agent's to run: no hook sees it as a prompt, the model never reads it.
    session.record({ type: "prompt", prompt: [...prompt], text, refused: true });
    try {
      if (command.name === "clear") {
        clearConversation(session);
        session.notice(
          "The conversation was cleared: the model starts over from your next " +
            "prompt (this thread still shows what came before)",
        );
        return turn.finish("end_turn");
      }
      const model = await untilAborted(deps.openModel(), signal);
      if (!model || signal.aborted) return turn.finish("cancelled");
      const outcome = await runCompaction(session, model, {
        trigger: "manual",
        focus: command.focus,
        signal,
        keepFrom: session.conversation.length,
        pending: [],
        tools: deps.tools(),
        target: 0,
        hooks: deps.compactionHooks,
        promptId: turn.hookContext.promptId,
        maxAnswerTokens: deps.contextBudget?.maxAnswerTokens,
      }, { compactionUpdates: deps.compactionUpdates ?? false });
      if (outcome.kind === "cancelled" || signal.aborted) return turn.finish("cancelled");
      return turn.finish("end_turn");
    } catch (error) {
      session.record({ type: "failure", message: errorMessage(error) });
      throw error;
    }
  }
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
    turn.startIndex = session.conversation.length - 1;
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
    budget: contextResultBudget(
      model,
      () => ({
        conversation: requestItems(
          session,
          session.contextSummary,
          session.conversation,
          turn.segments,
        ),
        tools: deps.tools(),
      }),
      (deps.contextBudget ?? DEFAULT_CONTEXT_BUDGET).toolOutputShare,
      deps.contextBudget?.maxAnswerTokens,
    ),
    loopGuard: new LoopGuard(),
  };
  let toolRounds = 0;
  let continuations = 0;
  for (let round = 0;; round++) {
    let stop: StopReason;
    const room = await makeRoom(turn, model, deps);
    if (room !== "go") return room;
    let result: GenerateResult;
    try {
      result = await generateOnce(turn, model, deps);
    } catch (error) {
      if (!(error instanceof AgentError) || error.code !== "CONTEXT_FULL") throw error;
      // The count was short of the model's, or the server's context is smaller than it said:
      // compacted at once, and tried again once.
      session.log(error.message);
      // Without a known context size there is nothing to plan a compaction against.
      if (model.contextSize === undefined) {
        return turn.endForRoom(error.message, turn.modelCalls === 0);
      }
      const again = await makeRoom(turn, model, deps, error.message);
      if (again !== "go") return again;
      try {
        result = await generateOnce(turn, model, deps);
      } catch (retryError) {
        if (!(retryError instanceof AgentError) || retryError.code !== "CONTEXT_FULL") {
          throw retryError;
        }
        session.log(retryError.message);
        return turn.endForRoom(retryError.message, turn.modelCalls === 0);
      }
    }
    turn.count(result, round === 0);
    sendUsage(turn, model, result);
    if (result.notice !== undefined) {
      session.log(result.notice);
      session.notice(result.notice);
    }
    if (signal.aborted || result.stop === "cancelled") return turn.finish("cancelled");
    // Calls written as text, other agents' tool names, arguments as JSON text: made into the
    // calls they mean (tool_call_repair.ts).
    result = repairAnswer(session, turn.segments, result, deps.tools());
    if (result.toolCalls.length === 0) {
      stop = turnEndOf(result.stop);
      const why = endNotice(result, model, deps.contextBudget?.maxAnswerTokens);
      if (why !== undefined && result.notice === undefined) turn.pendingNotice = why;
    } else if (toolRounds >= deps.maxToolRounds) {
      stop = "max_turn_requests";
      turn.pendingNotice = `The turn was stopped after ${deps.maxToolRounds} rounds of tool ` +
        "calls, the limit (--max-tool-rounds): send a prompt to let the model go on";
    } else {
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
        batch.push(batchedCall(session, call, outcome));
        // A loop guard's limit: the rest of the batch is not run.
        if (toolTurn.loopGuard.endNotice !== undefined) break;
      }
      if (signal.aborted) return turn.finish("cancelled");
      const batchGate = await runPostToolBatchHooks(session, turn.hookContext, batch);
      if (signal.aborted) return turn.finish("cancelled");
      if (batchGate.kind === "halt") return turn.finishByHook(batchGate.stopReason);
      if (batchGate.inLastResult !== null) turn.addToLastResult(batchGate.inLastResult);
      const looping = toolTurn.loopGuard.endNotice;
      if (looping === undefined) continue;
      // The model repeats itself (loop_guard.ts): the turn ends as at the round limit, saying so.
      stop = "max_turn_requests";
      turn.pendingNotice = looping;
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
    if (stop !== "end_turn") return turn.finish(stop);
    if (!session.stopHooksContinue) {
      if (stopGate.kind === "block") {
        const option = session.clientFeatures.booleanConfigOptions
          ? STOP_HOOKS_CONTINUE_NAME
          : undefined;
        session.notice(stopBlockIgnoredNotice(option), "warning");
      }
      return turn.finish(stop);
    }
    const cap = deps.stopHookBlockCap ?? DEFAULT_STOP_HOOK_BLOCK_CAP;
    const next = stopContinuation(stopGate, continuations, cap);
    for (const notice of next.notices) session.notice(notice);
    if (next.kind === "end") return turn.finish(stop);
    continuations++;
    // The turn goes on: what would have been said of its end is not its end.
    turn.pendingNotice = undefined;
    turn.feedBack(next.forModel);
  }
}

/** ACP's context meter after a model call: what the server counted, else our own count. */
function sendUsage(turn: TurnState, model: ModelSession, result: GenerateResult): void {
  if (model.contextSize === undefined) return;
  const used = result.tokens.prompt > 0
    ? result.tokens.prompt + result.tokens.generated
    : turn.countedPrompt + tokenCounterOf(model).text(result.text + result.thought);
  turn.session.sendState(usageUpdate(used, model.contextSize));
}

/**
 * Why a turn that ends on this answer ended, when the answer alone does not say it;
 * `maxAnswerTokens` is the user's answer cap, where set.
 */
function endNotice(
  result: GenerateResult,
  model: ModelSession,
  maxAnswerTokens: number | undefined,
): string | undefined {
  switch (result.stop) {
    case "max_tokens": {
      const cap = requestAnswerCap(model.contextSize, maxAnswerTokens);
      return `The answer reached its cap${cap === undefined ? "" : ` of ${tokensText(cap)}`}${
        maxAnswerTokens === undefined ? "" : " (--max-answer-tokens)"
      } and was cut there; anything it was still writing, a tool call included, was dropped`;
    }
    case "context_full":
      return "The context filled up during the answer, which was cut there; the conversation " +
        "is compacted before the next request";
    case "end":
      return result.text.trim() === "" ? "The model ended its turn without an answer" : undefined;
    case "tool_calls":
    case "cancelled":
      return undefined;
    default:
      return result.stop satisfies never;
  }
}
