/**
 * Token counts without the model's tokenizer (an endpoint, a scripted model), erring high: a
 * budget planned on a count that is too low overflows the context, one planned on a count that
 * is too high only leaves room unused.
 *
 * BPE tokenizers spend about one token per 4 characters of English prose, 3 of code, and close to
 * one per character of digits, hashes and punctuation (numeric output measured 1.35 characters a
 * token on SmolLM2). So the estimate charges each run of letters one token per 3 letters, each
 * digit, punctuation mark and non-ASCII character one token, and each line break or run of
 * indentation one token; a single space before a word is free, as BPE merges it into the word.
 */
import type { ConversationItem, ToolDefinition } from "./model.ts";

const PIECE = /[A-Za-z]+|\d|\n| {2,}|\t+| |[^\sA-Za-z\d]|\s/gu;

/** Tokens a message costs beyond its text: the chat template's role markers and separators. */
export const MESSAGE_OVERHEAD_TOKENS = 8;

export function estimateTextTokens(text: string): number {
  let tokens = 0;
  for (const [piece] of text.matchAll(PIECE)) {
    if (piece === " ") continue;
    const first = piece.charCodeAt(0);
    const letters = (first >= 65 && first <= 90) || (first >= 97 && first <= 122);
    tokens += letters ? Math.ceil(piece.length / 3) : 1;
  }
  return tokens;
}

/** The estimated prompt of a conversation with its tools' definitions. */
export function estimatePromptTokens(
  conversation: readonly ConversationItem[],
  tools: readonly ToolDefinition[],
): number {
  let tokens = 0;
  for (const item of conversation) {
    tokens += MESSAGE_OVERHEAD_TOKENS;
    if (item.role !== "assistant") tokens += estimateTextTokens(item.text);
    else {
      for (const segment of item.segments) {
        tokens += segment.type === "tool_call"
          ? MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(segment.name) +
            estimateTextTokens(JSON.stringify(segment.input) ?? "") +
            estimateTextTokens(segment.result)
          : estimateTextTokens(segment.text);
      }
    }
  }
  for (const tool of tools) {
    tokens += MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(tool.name) +
      estimateTextTokens(tool.description) + estimateTextTokens(JSON.stringify(tool.inputSchema));
  }
  return tokens;
}
