/**
 * Token counts without the model's tokenizer (an endpoint, a scripted model), erring high: a
 * budget planned on a count that is too low overflows the context, one planned on a count that
 * is too high only leaves room unused.
 *
 * BPE tokenizers spend about one token per 4 characters of English prose, 3 of code, and close to
 * one per character of digits, hashes and punctuation (numeric output measured 1.35 characters a
 * token on SmolLM2). So the estimate charges each run of letters one token per 3 letters (per
 * letter beside a digit, as in a hash), each digit and punctuation mark one token, each non-ASCII character one token per byte of its UTF-8
 * (a byte-level BPE never needs more: CJK text took 1.7 tokens a character on SmolLM2, an emoji
 * 4), and each line break or run of indentation one token. A single space before a word is free,
 * as BPE merges it into the word; before anything else (a digit, a sign) it is a token of its own
 * on tokenizers that split digits, as SmolLM2's does.
 */
import type { ConversationItem, ToolDefinition } from "./model.ts";

/**
 * Pieces of text, each charged alone. Group 1 is a single space before a word (free); group 2 a
 * run of letters beside a digit (a hash, an id), which hardly merges at all.
 */
const PIECE =
  /( (?=[A-Za-z]))|((?<=\d)[A-Za-z]+|[A-Za-z]+(?=\d))|[A-Za-z]+|\d|\n| {2,}|\t+|[^\sA-Za-z\d]|\s/gu;

/** Tokens a message costs beyond its text: the chat template's role markers and separators. */
export const MESSAGE_OVERHEAD_TOKENS = 8;

export function estimateTextTokens(text: string): number {
  let tokens = 0;
  for (const [piece, freeSpace, besideDigit] of text.matchAll(PIECE)) {
    if (freeSpace !== undefined) continue;
    if (besideDigit !== undefined) {
      tokens += piece.length;
      continue;
    }
    const first = piece.codePointAt(0) ?? 0;
    const letters = (first >= 65 && first <= 90) || (first >= 97 && first <= 122);
    tokens += letters ? Math.ceil(piece.length / 3) : utf8Bytes(first);
  }
  return tokens;
}

/** Bytes of a code point in UTF-8: 1 for ASCII, so one token for any ASCII sign. */
function utf8Bytes(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
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
      let afterCall = false;
      for (const segment of item.segments) {
        if (segment.type === "tool_call") {
          // A call's result is a message of its own in a chat template.
          tokens += MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(segment.name) +
            estimateTextTokens(JSON.stringify(segment.input) ?? "") +
            estimateTextTokens(segment.result);
          afterCall = true;
          continue;
        }
        // Text after calls answers their results: a template starts a new message for it.
        if (segment.type === "text") {
          if (afterCall) tokens += MESSAGE_OVERHEAD_TOKENS;
          afterCall = false;
        }
        tokens += estimateTextTokens(segment.text);
      }
    }
  }
  for (const tool of tools) {
    tokens += MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(tool.name) +
      estimateTextTokens(tool.description) + estimateTextTokens(JSON.stringify(tool.inputSchema));
  }
  return tokens;
}
