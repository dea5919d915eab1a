/**
 * The state of one prompt turn: the assistant's message being written, where the turn starts in
 * the conversation, the tokens counted, and how the turn ends (prompt_turn.ts runs it).
 */
import type { PromptResponse, StopReason } from "@agentclientprotocol/sdk";
import type { AssistantSegment, GenerateResult } from "../../model/model.ts";
import type { AgentSession } from "../session/agent_session.ts";
import type { TurnHookContext } from "./turn_types.ts";
import { withdrawRunningTurn } from "../compaction/compaction.ts";

/** What one turn has said and counted so far, and how it ends. */
export class TurnState {
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
