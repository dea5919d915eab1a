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
  ToolDefinition,
} from "../../model/model.ts";
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
import { notifyFinishedText } from "../session/notification_hooks.ts";
import type { ToolTurn, TurnHookContext } from "./turn_types.ts";
import { contextResultBudget } from "./tool_output_budget.ts";
import { untilAborted } from "./until_aborted.ts";
import {
  DEFAULT_STOP_HOOK_BLOCK_CAP,
  stopBlockIgnoredNotice,
  stopContinuation,
} from "./stop_continuation.ts";
import { STOP_HOOKS_CONTINUE_NAME } from "../session/session_config.ts";
import { answerTokenCap, contextForPrompt, requestAnswerCap } from "../../model/answer_cap.ts";
import { takeBack } from "../../agent/transcript/take_back.ts";
import { LoopGuard } from "./loop_guard.ts";
import { RepetitionStop } from "./repetition_stop.ts";
import {
  type ContextBudgetSettings,
  DEFAULT_CONTEXT_BUDGET,
} from "../compaction/context_budget.ts";
import {
  clearConversation,
  type CompactionHooks,
  compactionLimit,
  requestItems,
  withdrawRunningTurn,
} from "../compaction/compaction.ts";
import { runCompaction } from "../compaction/compaction_step.ts";
import { tokenCounterOf, tokensText, usageUpdate } from "../compaction/context_meter.ts";
import { sessionCommandOf } from "../session/session_commands.ts";

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

/** What one turn has said and counted so far, and how it ends. */
class TurnState {
  segments: AssistantSegment[] = [];
  /** Where this turn's items start in the conversation (its prompt): compaction keeps them. */
  startIndex = 0;
  /** Why the turn ends, said to the user when it does (a limit, an empty answer). */
  pendingNotice: string | undefined;
  /** The prompt tokens of the request about to be made, as counted before it. */
  countedPrompt = 0;
  /** Model calls answered so far in this turn. */
  modelCalls = 0;
  readonly tokens = { prompt: 0, evaluated: 0, generated: 0 };
  /** The response's `_meta` besides `tokens` (the hook keys of acp.md). */
  readonly meta: Record<string, unknown> = {};

  constructor(readonly session: AgentSession, readonly hookContext: TurnHookContext) {}

  count(result: GenerateResult, first: boolean): void {
    this.modelCalls++;
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

  /**
   * Hook text the model reads at the end of this reply's last tool result, after a blank line
   * (PostToolBatch's context, where Claude Code puts it); a message of its own where the reply
   * has no tool result.
   */
  addToLastResult(text: string): void {
    const index = this.segments.findLastIndex((segment) => segment.type === "tool_call");
    const last = this.segments[index];
    if (last?.type !== "tool_call") return this.feedBack(text);
    this.segments[index] = { ...last, result: `${last.result}\n\n${text}` };
    this.session.record({ type: "hook_feedback", text, inLastResult: true });
  }

  finish(stopReason: StopReason): PromptResponse {
    if (this.pendingNotice !== undefined) this.session.notice(this.pendingNotice);
    this.pendingNotice = undefined;
    this.closeMessage();
    const meta = { ...this.meta, tokens: { ...this.tokens } };
    this.session.record({ type: "response", stopReason, _meta: meta });
    this.session.claudeTranscript?.endTurn();
    return { stopReason, _meta: meta };
  }

  /**
   * The request cannot be made to fit the context: the turn ends at the limit, saying why. A
   * prompt the model never read is taken back out of the conversation.
   */
  endForRoom(message: string, neverRead: boolean): PromptResponse {
    if (neverRead && this.segments.length === 0) {
      withdrawRunningTurn(this.session, this.startIndex);
      // A server's message may end its own sentence: one full stop between the two.
      this.pendingNotice = `${message.replace(/\.+$/, "")}. Your prompt was not sent to the ` +
        "model and is not kept in the conversation: shorten it, or run /compact or /clear";
    } else this.pendingNotice = message;
    return this.finish("max_tokens");
  }

  /** A hook ended the turn (`continue:false`, a deferred call): `stopReason` is what it said. */
  finishByHook(stopReason: string | null): PromptResponse {
    this.meta.hook_stop_reason = stopReason ?? "";
    return this.finish("end_turn");
  }
}

/**
 * One model call: streams its text and thoughts as they come, each as one message, and stops at
 * a verbatim repetition (repetition_stop.ts), which ends the turn as the answer cap does.
 */
async function generateOnce(
  turn: TurnState,
  model: ModelSession,
  deps: TurnDeps,
): Promise<GenerateResult> {
  const { session, segments } = turn;
  const tools = deps.tools();
  const maxTokens = requestAnswerCap(model.contextSize, deps.contextBudget?.maxAnswerTokens);
  const repetition = new RepetitionStop(turn.hookContext.signal);
  const messageId = crypto.randomUUID();
  const thoughtId = crypto.randomUUID();
  const conversation: ConversationItem[] = requestItems(
    session,
    session.contextSummary,
    session.conversation,
    segments,
  );
  let text = "";
  let thought = "";
  const result = await model.generate({
    conversation,
    tools,
    ...(maxTokens === undefined ? {} : { maxTokens }),
    signal: repetition.signal,
    onTextChunk(whole) {
      const chunk = repetition.take("text", whole);
      if (chunk === "") return;
      text += chunk;
      appendText(segments, "text", chunk);
      session.send({
        sessionUpdate: "agent_message_chunk",
        messageId,
        content: { type: "text", text: chunk },
      });
    },
    onThoughtChunk(whole) {
      const chunk = repetition.take("thought", whole);
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
  const cut = repetition.found;
  if (cut !== undefined) {
    // One copy of what was repeated stays; the rest was shown, and is taken back.
    takeBack(segments, cut.stream, cut.dropped);
    session.record({ type: "taken_back", stream: cut.stream, chars: cut.dropped });
    if (cut.stream === "text") text = text.slice(0, text.length - cut.dropped);
    else thought = thought.slice(0, thought.length - cut.dropped);
  }
  const answer: GenerateResult = cut === undefined || turn.hookContext.signal.aborted
    ? result
    : { ...result, text, thought, toolCalls: [], stop: "max_tokens", notice: repetition.notice() };
  // Before any hook of this round runs: the Stop hook reads this reply, a PreToolUse hook its call.
  session.claudeTranscript?.reply({
    model: session.modelName ?? "llama-agent",
    text,
    stop: answer.stop,
    calledTools: answer.toolCalls.length > 0,
    tokens: answer.tokens,
  });
  // Once per finished message, never per chunk, and never holding up the turn.
  notifyFinishedText(session, turn.hookContext, "thought", thought);
  notifyFinishedText(session, turn.hookContext, "message", text);
  return answer;
}

function appendText(segments: AssistantSegment[], type: "text" | "thought", text: string): void {
  const last = segments.at(-1);
  if (last?.type === type) segments[segments.length - 1] = { type, text: last.text + text };
  else segments.push({ type, text });
}

/**
 * Before a request: when its prompt would pass the compaction limit (or the model refused it for
 * its size: `refusal` says how), the conversation is compacted; when nothing can make it fit, the
 * turn ends saying why. "go" when the request may be made.
 */
async function makeRoom(
  turn: TurnState,
  model: ModelSession,
  deps: TurnDeps,
  refusal?: string,
): Promise<"go" | PromptResponse> {
  const { session } = turn;
  const contextSize = model.contextSize;
  if (contextSize === undefined) return "go";
  const neverRead = turn.modelCalls === 0;
  const force = refusal !== undefined;
  const budget = deps.contextBudget ?? DEFAULT_CONTEXT_BUDGET;
  const tools = deps.tools();
  const counter = tokenCounterOf(model);
  const answer = answerTokenCap(contextSize, budget.maxAnswerTokens);
  const fixed = await counter.prompt(requestItems(session, undefined, [], []), tools);
  // An estimate errs high (a server's tokenizer usually takes fewer tokens): what it alone says
  // does not fit is sent all the same, and the server's refusal has the last word.
  const certain = model.exactCounts === true || force;
  if (fixed + answer > contextSize && certain) {
    return turn.endForRoom(
      `The model's context of ${tokensText(contextSize)} cannot hold the agent's fixed prompt ` +
        `(${tokensText(fixed)}: the system prompt and the tools' definitions) and an answer ` +
        `(${tokensText(answer)}): start the agent with --ctx-size ${
          contextForPrompt(fixed, budget.maxAnswerTokens)
        } or more` +
        (budget.maxAnswerTokens === undefined ? "" : ", or a smaller --max-answer-tokens"),
      neverRead,
    );
  }
  const current = () =>
    counter.prompt(
      requestItems(session, session.contextSummary, session.conversation, turn.segments),
      tools,
    );
  const tokens = await current();
  turn.countedPrompt = tokens;
  const limit = compactionLimit(contextSize, budget.compactThreshold, budget.maxAnswerTokens);
  if (!force && tokens <= limit) return "go";
  const running = session.conversation.length - turn.startIndex;
  const outcome = await runCompaction(session, model, {
    trigger: "auto",
    focus: "",
    signal: turn.hookContext.signal,
    keepFrom: turn.startIndex,
    pending: turn.segments,
    tools,
    target: Math.floor(limit / 2),
    hooks: deps.compactionHooks,
    promptId: turn.hookContext.promptId,
    maxAnswerTokens: budget.maxAnswerTokens,
  }, { compactionUpdates: deps.compactionUpdates ?? false });
  // A refusal is the model's own word on it, where our count said the request fitted.
  const full = refusal ??
    `The conversation does not fit in the model's context of ${
      tokensText(contextSize)
    } with room for an answer`;
  switch (outcome.kind) {
    case "compacted":
    case "shortened":
      turn.startIndex = session.conversation.length - running;
      turn.countedPrompt = outcome.after;
      return "go";
    case "cancelled":
      return turn.finish("cancelled");
    case "too_large":
      if (!certain) return "go";
      return turn.endForRoom(
        `This turn takes ${tokensText(outcome.tokens)} with the system prompt and tools, more ` +
          `than the model's context of ${tokensText(contextSize)} holds with room for an answer`,
        neverRead,
      );
    case "empty":
    case "blocked":
      // Nothing was freed: the request goes as it is when it fits at all.
      if (!force && (tokens + answer <= contextSize || !certain)) return "go";
      return turn.endForRoom(full, neverRead);
    default:
      return outcome satisfies never;
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
