/**
 * Older tool results shrink first as a session grows: before the conversation is summarised,
 * the oldest results are cut to a short head and tail (`OLDER_RESULT_STUB_TOKENS`) with a note
 * of what was cut, oldest first, until enough tokens are free. The results of the latest
 * assistant message are never touched: the model is working on them. A result already as short
 * as a stub is left as it is, so shrinking twice changes nothing.
 *
 * Pure: the counter and the wording are passed in; the conversation given is not changed.
 */
import type { AssistantSegment, ConversationItem } from "../../model/model.ts";
import { LLAMA_CUT_NOTES, type OutputCut } from "../../profile/cut_notes.ts";
import { type CountTokens, fitToTokens } from "../turn/tool_output_budget.ts";

/** Tokens an older result keeps: a few lines of its head and tail, and the note. */
export const OLDER_RESULT_STUB_TOKENS = 80;

export interface ShrinkOptions {
  /** Tokens a shortened result keeps, note included (`OLDER_RESULT_STUB_TOKENS`). */
  readonly stubTokens?: number;
  /** The note's words (the profile's `cutNotes.older`); `[older output shortened: …]`. */
  readonly note?: (cut: OutputCut) => string;
}

export interface ShrunkConversation {
  readonly conversation: ConversationItem[];
  /** Tokens freed, as `countTokens` counts the results before and after. */
  readonly freed: number;
  /** Results shortened. */
  readonly shortened: number;
}

/** Shortens the oldest tool results until `toFree` tokens are freed, or none is left to shorten. */
export function shrinkOlderResults(
  conversation: readonly ConversationItem[],
  countTokens: CountTokens,
  toFree: number,
  options: ShrinkOptions = {},
): ShrunkConversation {
  const stubTokens = options.stubTokens ?? OLDER_RESULT_STUB_TOKENS;
  const note = options.note ?? LLAMA_CUT_NOTES.older;
  const latest = conversation.findLastIndex((item) => item.role === "assistant");
  const shrunk = [...conversation];
  let freed = 0;
  let shortened = 0;
  for (let index = 0; index < latest && freed < toFree; index++) {
    const item = shrunk[index]!;
    if (item.role !== "assistant") continue;
    let changed = false;
    const segments = item.segments.map((segment): AssistantSegment => {
      if (segment.type !== "tool_call" || freed >= toFree) return segment;
      const fitted = fitToTokens(segment.result, stubTokens, countTokens, note);
      if (fitted.cut === undefined) return segment;
      const gain = countTokens(segment.result) - countTokens(fitted.text);
      if (gain <= 0) return segment;
      freed += gain;
      shortened++;
      changed = true;
      return { ...segment, result: fitted.text };
    });
    if (changed) shrunk[index] = { role: "assistant", segments };
  }
  return { conversation: shrunk, freed, shortened };
}
