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

export type ToolCallSegment = Extract<AssistantSegment, { type: "tool_call" }>;

export interface TurnDeps {
  readonly model: ModelSession;
  readonly tools: readonly ToolDefinition[];
  readonly maxToolRounds: number;
  /** Runs one call end to end (announce, gate, dispatch, report) and returns what the model sees. */
  readonly runToolCall: (call: RequestedToolCall, signal: AbortSignal) => Promise<ToolCallSegment>;
}

interface TokenTotals {
  prompt: number;
  evaluated: number;
  generated: number;
}

/** Runs a turn the caller has begun (`session.beginTurn()`), under its signal. */
export async function runPromptTurn(
  session: AgentSession,
  prompt: readonly ContentBlock[],
  signal: AbortSignal,
  deps: TurnDeps,
): Promise<PromptResponse> {
  const segments: AssistantSegment[] = [];
  const tokens: TokenTotals = { prompt: 0, evaluated: 0, generated: 0 };
  const finish = (stopReason: StopReason): PromptResponse => {
    if (segments.length > 0) session.conversation.push({ role: "assistant", segments });
    const response: PromptResponse = { stopReason, _meta: { tokens: { ...tokens } } };
    session.record({ type: "response", stopReason, _meta: response._meta ?? undefined });
    return response;
  };
  const text = promptText(prompt);
  session.record({ type: "prompt", prompt: [...prompt], text });
  session.conversation.push({ role: "user", text });
  if (signal.aborted) return finish("cancelled");
  let toolRounds = 0;
  for (let round = 0;; round++) {
    const result = await generateOnce(session, deps, segments, signal);
    if (round === 0) tokens.prompt = result.tokens.prompt;
    tokens.evaluated += result.tokens.evaluated;
    tokens.generated += result.tokens.generated;
    if (signal.aborted || result.stop === "cancelled") return finish("cancelled");
    if (result.toolCalls.length === 0) return finish(stopReasonOf(result.stop));
    if (toolRounds >= deps.maxToolRounds) return finish("max_turn_requests");
    toolRounds++;
    for (const call of result.toolCalls) {
      if (signal.aborted) break;
      segments.push(await deps.runToolCall(call, signal));
    }
    if (signal.aborted) return finish("cancelled");
  }
}

/** One model call: streams its text and thoughts as they come, each as one message. */
async function generateOnce(
  session: AgentSession,
  deps: TurnDeps,
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
  const result = await deps.model.generate({
    conversation,
    tools: deps.tools,
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
