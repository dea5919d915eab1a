/**
 * How full a session's context is: the tokens the next request takes (the system prompt, the
 * conversation, the turn's work so far and the tools' definitions), counted by the model where
 * it can count, estimated erring high where it cannot; and the `usage_update` a client shows as
 * its context meter.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ConversationItem, ModelSession, ToolDefinition } from "../../model/model.ts";
import { estimatePromptTokens, estimateTextTokens } from "../../model/token_estimate.ts";

export interface TokenCounter {
  prompt(items: readonly ConversationItem[], tools: readonly ToolDefinition[]): Promise<number>;
  text(text: string): number;
}

export function tokenCounterOf(model: ModelSession): TokenCounter {
  return {
    prompt: (items, tools) =>
      model.countPromptTokens?.(items, tools) ??
        Promise.resolve(estimatePromptTokens(items, tools)),
    text: (text) => model.countTextTokens?.(text) ?? estimateTextTokens(text),
  };
}

/** ACP's context meter: `used` of `size` tokens. */
export function usageUpdate(used: number, size: number): SessionUpdate {
  return {
    sessionUpdate: "usage_update",
    used: Math.max(0, Math.round(used)),
    size: Math.max(0, Math.round(size)),
  };
}

/** "3,412 tokens", as the user reads it. */
export function tokensText(count: number): string {
  return `${count.toLocaleString("en-US")} token${count === 1 ? "" : "s"}`;
}
