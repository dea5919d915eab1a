/**
 * Room for a prompt turn's next request (prompt_turn.ts): compact the conversation when the
 * prompt would pass the compaction limit, or end the turn saying why nothing makes it fit.
 */
import type { PromptResponse } from "@agentclientprotocol/sdk";
import type { ModelSession } from "../../model/model.ts";
import { answerTokenCap, contextForPrompt } from "../../model/answer_cap.ts";
import { DEFAULT_CONTEXT_BUDGET } from "../compaction/context_budget.ts";
import { compactionLimit, requestItems } from "../compaction/compaction.ts";
import { runCompaction } from "../compaction/compaction_step.ts";
import { tokenCounterOf, tokensText } from "../compaction/context_meter.ts";
import type { TurnDeps } from "./prompt_turn.ts";
import type { TurnState } from "./turn_state.ts";

/**
 * Before a request: when its prompt would pass the compaction limit (or the model refused it for
 * its size: `refusal` says how), the conversation is compacted; when nothing can make it fit, the
 * turn ends saying why. "go" when the request may be made.
 */
export async function makeRoom(
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
