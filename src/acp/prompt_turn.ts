/**
 * One prompt turn (acp.md "A prompt turn"): the model generates, streaming text and thoughts;
 * each tool call it makes goes through the tool-call step; the results go back to the model;
 * this repeats until the model answers without tools, a limit is hit, or the client cancels.
 */
import type { ContentBlock, PromptResponse, StopReason } from "@agentclientprotocol/sdk";
import type {
  AssistantSegment,
  ConversationItem,
  GenerateResult,
  GenerateStop,
  ModelSession,
  RequestedToolCall,
  ToolDefinition,
} from "../model/model.ts";
import type { AgentSession } from "./agent_session.ts";
import { promptText } from "./prompt_text.ts";
import { systemPrompt } from "./system_prompt.ts";
import { untilAborted } from "./until_aborted.ts";
import { AgentError, errorMessage } from "../error.ts";

export type ToolCallSegment = Extract<AssistantSegment, { type: "tool_call" }>;

export interface TurnDeps {
  /** The session's model context, opened (or loaded) on first use. */
  readonly openModel: () => Promise<ModelSession>;
  readonly tools: readonly ToolDefinition[];
  readonly maxToolRounds: number;
  /** Runs one call end to end (announce, gate, dispatch, report) and returns what the model sees. */
  readonly runToolCall: (
    call: RequestedToolCall,
    signal: AbortSignal,
    budget: ResultBudget,
  ) => Promise<ToolCallSegment>;
}

/** How much of a tool result the model may be shown, from its context size. */
export interface ResultBudget {
  readonly maxChars: number | undefined;
}

interface TokenTotals {
  prompt: number;
  evaluated: number;
  generated: number;
}

/**
 * Runs a turn the caller has begun (`session.beginTurn()`), under its signal. Whatever happens —
 * an answer, a limit, a cancel, a failure — the prompt, the assistant's message so far and the
 * outcome are in the conversation and the transcript before this returns or throws.
 */
export async function runPromptTurn(
  session: AgentSession,
  prompt: readonly ContentBlock[],
  signal: AbortSignal,
  deps: TurnDeps,
): Promise<PromptResponse> {
  const segments: AssistantSegment[] = [];
  const tokens: TokenTotals = { prompt: 0, evaluated: 0, generated: 0 };
  const closeMessage = () => {
    if (segments.length > 0) session.conversation.push({ role: "assistant", segments });
  };
  const finish = (stopReason: StopReason): PromptResponse => {
    closeMessage();
    const response: PromptResponse = { stopReason, _meta: { tokens: { ...tokens } } };
    session.record({ type: "response", stopReason, _meta: response._meta ?? undefined });
    return response;
  };
  const text = promptText(prompt);
  session.record({ type: "prompt", prompt: [...prompt], text });
  session.conversation.push({ role: "user", text });
  try {
    const model = await untilAborted(deps.openModel(), signal);
    if (!model || signal.aborted) return finish("cancelled");
    // One character per context token: a token is ~3-4 characters of text, so one result can
    // take at most about a third of the context and the conversation goes on after it.
    const budget: ResultBudget = { maxChars: model.contextSize };
    let toolRounds = 0;
    for (let round = 0;; round++) {
      let result: GenerateResult;
      try {
        result = await generateOnce(session, model, deps.tools, segments, signal);
      } catch (error) {
        // Tool results filled the context: the turn ends at the limit, as acp.md asks. A prompt
        // that does not fit at all is the user's to fix, and its error says how.
        if (round > 0 && error instanceof AgentError && error.code === "CONTEXT_FULL") {
          session.log(error.message);
          return finish("max_tokens");
        }
        throw error;
      }
      if (round === 0) tokens.prompt = result.tokens.prompt;
      tokens.evaluated += result.tokens.evaluated;
      tokens.generated += result.tokens.generated;
      if (signal.aborted || result.stop === "cancelled") return finish("cancelled");
      if (result.toolCalls.length === 0) return finish(stopReasonOf(result.stop));
      if (toolRounds >= deps.maxToolRounds) return finish("max_turn_requests");
      toolRounds++;
      for (const call of result.toolCalls) {
        if (signal.aborted) break;
        segments.push(await deps.runToolCall(call, signal, budget));
      }
      if (signal.aborted) return finish("cancelled");
    }
  } catch (error) {
    closeMessage();
    session.record({ type: "failure", message: errorMessage(error) });
    throw error;
  }
}

/** One model call: streams its text and thoughts as they come, each as one message. */
async function generateOnce(
  session: AgentSession,
  model: ModelSession,
  tools: readonly ToolDefinition[],
  segments: AssistantSegment[],
  signal: AbortSignal,
): Promise<GenerateResult> {
  const messageId = crypto.randomUUID();
  const thoughtId = crypto.randomUUID();
  const conversation: ConversationItem[] = [
    { role: "system", text: systemPrompt(session) },
    ...session.conversation,
    ...(segments.length > 0 ? [{ role: "assistant" as const, segments: [...segments] }] : []),
  ];
  const result = await model.generate({
    conversation,
    tools,
    signal,
    onTextChunk(text) {
      if (text === "") return;
      appendText(segments, "text", text);
      session.send({
        sessionUpdate: "agent_message_chunk",
        messageId,
        content: { type: "text", text },
      });
    },
    onThoughtChunk(text) {
      if (text === "") return;
      appendText(segments, "thought", text);
      session.send({
        sessionUpdate: "agent_thought_chunk",
        messageId: thoughtId,
        content: { type: "text", text },
      });
    },
  });
  return result;
}

function appendText(segments: AssistantSegment[], type: "text" | "thought", text: string): void {
  const last = segments.at(-1);
  if (last?.type === type) segments[segments.length - 1] = { type, text: last.text + text };
  else segments.push({ type, text });
}

function stopReasonOf(stop: GenerateStop): StopReason {
  switch (stop) {
    case "end":
    case "tool_calls":
      return "end_turn";
    case "max_tokens":
    case "context_full":
      return "max_tokens";
    case "cancelled":
      return "cancelled";
    default:
      return stop satisfies never;
  }
}
