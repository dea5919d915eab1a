/**
 * Prompt counts on an endpoint: the estimate (token_estimate.ts), corrected by what the server
 * reports of the requests it served. Pure: requests and their reported usage go in, counts come
 * out.
 *
 * The estimate errs high by a factor that depends on the text (on SmolLM2: x1.6 on prose and
 * code, x1.0 on numbers and hashes), so one ratio learnt from a request cannot be applied to the
 * next one's new text without risk: a ratio learnt on prose would count a numeric tool result 40 %
 * short. So the correction is applied where it is known to hold:
 * - a request that extends the last reported one (the same tools, the same items, its last item
 *   perhaps with more segments) counts the reported tokens for that part, exactly, and the
 *   estimate for what was added; so a count never goes below what the server reported;
 * - any request counts at least its estimate times the ratio when the server's tokenizer takes
 *   more than the estimate (a ratio above 1 is applied to everything, it only raises counts).
 * A report that is not believable is not learnt from: no usage (llama-cpp-python sends none), a
 * prompt of 0 (Ollama's, for a prompt it had cached), or one below `MIN_BELIEVED_RATIO` of the
 * estimate (a server that counted only the tokens it evaluated, or one that truncated the prompt).
 */
import type { ConversationItem, ToolDefinition } from "../model.ts";
import { estimatePromptTokens, estimateTextTokens } from "../token_estimate.ts";

/**
 * The lowest reported/estimated ratio taken as a count of the whole prompt. The estimate was
 * measured at most 1.8 times the real count (JSON and non-ASCII text on SmolLM2); a report far
 * below that counted something else.
 */
export const MIN_BELIEVED_RATIO = 0.4;

interface Reported {
  readonly conversation: readonly ConversationItem[];
  readonly toolsText: string;
  /** `JSON.stringify` of each item, to compare a later request with. */
  readonly itemTexts: readonly string[];
  readonly estimate: number;
  readonly reported: number;
}

export class PromptCalibration {
  #last: Reported | undefined;

  /** reported / estimated of the last believed report; 1 before any. */
  get ratio(): number {
    return this.#last === undefined ? 1 : this.#last.reported / this.#last.estimate;
  }

  /** The server reported `promptTokens` for a request of `conversation` with `tools`. */
  record(
    conversation: readonly ConversationItem[],
    tools: readonly ToolDefinition[],
    promptTokens: number | undefined,
  ): void {
    const estimate = estimatePromptTokens(conversation, tools);
    if (
      promptTokens === undefined || !Number.isFinite(promptTokens) || estimate <= 0 ||
      promptTokens < estimate * MIN_BELIEVED_RATIO
    ) {
      return;
    }
    this.#last = {
      conversation: [...conversation],
      toolsText: JSON.stringify(tools),
      itemTexts: conversation.map((item) => JSON.stringify(item)),
      estimate,
      reported: promptTokens,
    };
  }

  /** Tokens a request of `conversation` with `tools` takes, erring high. */
  count(conversation: readonly ConversationItem[], tools: readonly ToolDefinition[]): number {
    const estimate = estimatePromptTokens(conversation, tools);
    const last = this.#last;
    if (last === undefined) return estimate;
    const raise = Math.max(1, this.ratio);
    if (!this.#extends(last, conversation, tools)) return Math.ceil(estimate * raise);
    const added = Math.max(0, estimate - last.estimate);
    return last.reported + Math.ceil(added * raise);
  }

  /** Tokens of `text` alone: the estimate, raised where the server's tokenizer takes more. */
  countText(text: string): number {
    return Math.ceil(estimateTextTokens(text) * Math.max(1, this.ratio));
  }

  /** Whether `conversation` is the reported one with more after it. */
  #extends(
    last: Reported,
    conversation: readonly ConversationItem[],
    tools: readonly ToolDefinition[],
  ): boolean {
    const count = last.itemTexts.length;
    if (conversation.length < count || JSON.stringify(tools) !== last.toolsText) return false;
    for (let index = 0; index < count - 1; index++) {
      if (!sameItem(conversation[index], last.conversation[index], last.itemTexts[index])) {
        return false;
      }
    }
    if (count === 0) return true;
    const before = last.conversation[count - 1]!;
    const now = conversation[count - 1]!;
    if (sameItem(now, before, last.itemTexts[count - 1])) return true;
    // The assistant message being continued: its earlier segments unchanged.
    if (before.role !== "assistant" || now.role !== "assistant") return false;
    return before.segments.length <= now.segments.length &&
      before.segments.every((segment, index) =>
        JSON.stringify(segment) === JSON.stringify(now.segments[index])
      );
  }
}

function sameItem(
  now: ConversationItem | undefined,
  before: ConversationItem | undefined,
  beforeText: string | undefined,
): boolean {
  return now !== undefined && (now === before || JSON.stringify(now) === beforeText);
}
