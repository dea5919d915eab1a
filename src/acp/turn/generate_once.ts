/**
 * One model call of a prompt turn (prompt_turn.ts): the request built from the conversation, the
 * text and thoughts streamed to the client as they come, a verbatim repetition cut off.
 */
import type {
  AssistantSegment,
  ConversationItem,
  GenerateResult,
  ModelSession,
} from "../../model/model.ts";
import { requestAnswerCap } from "../../model/answer_cap.ts";
import { takeBack } from "../../agent/transcript/take_back.ts";
import { notifyFinishedText } from "../session/notification_hooks.ts";
import { requestItems } from "../compaction/compaction.ts";
import { RepetitionStop } from "./repetition_stop.ts";
import type { TurnDeps } from "./prompt_turn.ts";
import type { TurnState } from "./turn_state.ts";

/**
 * One model call: streams its text and thoughts as they come, each as one message, and stops at
 * a verbatim repetition (repetition_stop.ts), which ends the turn as the answer cap does.
 */
export async function generateOnce(
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
