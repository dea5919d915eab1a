/**
 * How much of a tool result the model is shown, in tokens: at most `toolOutputShare` (default
 * one half, context_budget.ts) of the tokens still free in the context, where free is the
 * context size less the prompt the next request would send (system prompt, conversation, the
 * turn's work so far, the tools' definitions) less the answer's room (answer_cap.ts). Tokens are
 * the model's own count where it can count (`countTextTokens`, `countPromptTokens`), else
 * token_estimate.ts's, which errs high: numeric output of 1.35 characters a token is charged
 * at least that.
 *
 * A result over its budget keeps its head and its tail, cut at line ends (errors and summaries
 * come last, so the tail gets the larger part: `HEAD_SHARE` of the room goes to the head, the
 * rest and whatever the head leaves to the tail), with one line between them saying what was
 * left out and how to get it, in the profile's words (src/profile/cut_notes.ts). A line too long
 * to be kept whole is cut inside: its start and its end are kept. The note is always there, even
 * where it alone is over the budget (a full context): the model must know something is missing.
 *
 * Pure: the counter is passed in, nothing here reads or writes anything.
 */
import type { ToolOperation } from "../../agent/tools/tool_operation.ts";
import { answerTokenCap } from "../../model/answer_cap.ts";
import type { ConversationItem, ModelSession, ToolDefinition } from "../../model/model.ts";
import { estimatePromptTokens, estimateTextTokens } from "../../model/token_estimate.ts";
import type { CutNotes, OutputCut, ResultOrigin } from "../../profile/cut_notes.ts";
import { DEFAULT_TOOL_OUTPUT_SHARE } from "../compaction/context_budget.ts";

/** Tokens of a text, as the model counts them (or an estimate erring high). */
export type CountTokens = (text: string) => number;

/** The head's share of a cut result's room; the tail gets the rest. */
export const HEAD_SHARE = 0.4;

/** The most characters one token is taken to cover when a line is cut inside. */
const MAX_CHARS_PER_TOKEN = 32;

/** Less room than this beside the note, and the note is given alone: a few tokens show nothing. */
export const MIN_KEPT_TOKENS = 16;

/** Tries at a cut before the note alone is given (a tokenizer that merges across the joins). */
const FIT_ATTEMPTS = 4;

export interface FittedOutput {
  readonly text: string;
  /** What was left out; absent when the text fit whole. */
  readonly cut?: OutputCut;
}

/**
 * `text` in at most `maxTokens` tokens: whole when it fits, else its head and tail around the
 * line `note` makes of what was left out.
 */
export function fitToTokens(
  text: string,
  maxTokens: number,
  countTokens: CountTokens,
  note: (cut: OutputCut) => string,
): FittedOutput {
  const limit = Math.max(0, Math.floor(maxTokens));
  const totalTokens = countTokens(text);
  if (totalTokens <= limit) return { text };
  const lines = text.split(/(?<=\n)/);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const facts = { totalTokens, maxTokens: limit };
  const everything: OutputCut = {
    fromLine: 1,
    toLine: lines.length,
    lines: lines.length,
    chars: text.length,
    insideLines: false,
    cutTokens: totalTokens,
    ...facts,
  };
  // The note's room, with its numbers at their largest (a longer note is caught below).
  const noteRoom = countTokens(eol + note(everything) + eol);
  let room = limit - noteRoom;
  for (let attempt = 0; attempt < FIT_ATTEMPTS && room >= MIN_KEPT_TOKENS; attempt++) {
    const kept = keep(lines, room, countTokens);
    const cut: OutputCut = {
      fromLine: kept.fromLine,
      toLine: kept.toLine,
      lines: kept.toLine - kept.fromLine + 1,
      chars: text.length - kept.head.length - kept.tail.length,
      insideLines: kept.insideLines,
      cutTokens: Math.max(0, totalTokens - kept.tokens),
      ...facts,
    };
    const fitted = kept.head + (kept.head.endsWith("\n") || kept.head === "" ? "" : eol) +
      note(cut) + (kept.tail === "" ? "" : eol) + kept.tail;
    const used = countTokens(fitted);
    if (used <= limit) return { text: fitted, cut };
    room -= used - limit;
  }
  return { text: note(everything), cut: everything };
}

interface Kept {
  readonly head: string;
  readonly tail: string;
  /** Tokens of head and tail, as counted piece by piece. */
  readonly tokens: number;
  readonly fromLine: number;
  readonly toLine: number;
  readonly insideLines: boolean;
}

/** Whole lines from both ends within `room`; inside a line too long to be kept whole. */
function keep(lines: readonly string[], room: number, countTokens: CountTokens): Kept {
  const tailRoom = room - Math.floor(room * HEAD_SHARE);
  let tailTokens = 0;
  let end = lines.length;
  while (end > 0) {
    const tokens = countTokens(lines[end - 1]!);
    if (tailTokens + tokens > tailRoom) break;
    tailTokens += tokens;
    end--;
  }
  let headTokens = 0;
  let start = 0;
  while (start < end) {
    const tokens = countTokens(lines[start]!);
    if (headTokens + tokens > room - tailTokens) break;
    headTokens += tokens;
    start++;
  }
  // Counted apart, every line fit, though the text as a whole did not: leave one out.
  if (start === end) start = Math.max(0, end - 1);
  if (start === end) end = Math.min(lines.length, start + 1);
  const head = lines.slice(0, start).join("");
  const tail = lines.slice(end).join("");
  const whole = { fromLine: start + 1, toLine: end };
  // A line longer than the whole room could never be kept: the cut goes inside it when it is
  // all that is cut, or when it kept anything else from being kept.
  const tooLong = (index: number) => countTokens(lines[index]!) > room;
  const nothingKept = start === 0 && end === lines.length;
  const inside = (end - start === 1 || nothingKept) && (tooLong(start) || tooLong(end - 1));
  if (!inside) return { head, tail, tokens: headTokens + tailTokens, ...whole, insideLines: false };
  const middle = lines.slice(start, end).join("");
  const left = room - headTokens - tailTokens;
  const prefix = longestFitting(middle, Math.floor(left * HEAD_SHARE), countTokens, "start");
  const prefixTokens = countTokens(prefix);
  const suffix = longestFitting(
    middle.slice(prefix.length),
    left - prefixTokens,
    countTokens,
    "end",
  );
  return {
    head: head + prefix,
    tail: suffix + tail,
    tokens: headTokens + tailTokens + prefixTokens + countTokens(suffix),
    ...whole,
    insideLines: prefix !== "" || suffix !== "",
  };
}

/** The longest start (or end) of `text` within `budget` tokens, never half a surrogate pair. */
function longestFitting(
  text: string,
  budget: number,
  countTokens: CountTokens,
  from: "start" | "end",
): string {
  if (budget <= 0 || text === "") return "";
  const piece = (length: number) =>
    from === "start" ? text.slice(0, length) : text.slice(text.length - length);
  let low = 0;
  let high = Math.min(text.length, budget * MAX_CHARS_PER_TOKEN);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (countTokens(piece(middle)) <= budget) low = middle;
    else high = middle - 1;
  }
  let length = low;
  const splitsPair = (at: number) => {
    const code = text.charCodeAt(at);
    return code >= 0xdc00 && code <= 0xdfff;
  };
  // A start ending before a low surrogate, or an end starting on one, would halve a character.
  if (from === "start" && length > 0 && length < text.length && splitsPair(length)) length--;
  if (from === "end" && length > 0 && splitsPair(text.length - length)) length--;
  return piece(length);
}

/** How much of a tool result the model may be shown, as the context stands now. */
export interface ResultBudget {
  /**
   * Tokens free in the context for what the next request adds: the context size less the
   * prompt so far and the answer's room, never below 0; Infinity where the model has no size.
   */
  freeTokens(): Promise<number>;
  /** The share of the free tokens one result may take (`toolOutputShare`). */
  readonly share: number;
  readonly countTokens: CountTokens;
}

/** What the next request would send, as the turn stands. */
export interface NextRequest {
  readonly conversation: readonly ConversationItem[];
  readonly tools: readonly ToolDefinition[];
}

/**
 * The budget of results for a model session, counted by the model where it can count; the
 * answer's room is its cap (`maxAnswerTokens`, the user's setting where there is one).
 */
export function contextResultBudget(
  model: Pick<ModelSession, "contextSize" | "countPromptTokens" | "countTextTokens">,
  next: () => NextRequest,
  share: number = DEFAULT_TOOL_OUTPUT_SHARE,
  maxAnswerTokens?: number,
): ResultBudget {
  const countTokens: CountTokens = model.countTextTokens
    ? (text) => model.countTextTokens!(text)
    : estimateTextTokens;
  return {
    share,
    countTokens,
    async freeTokens() {
      const size = model.contextSize;
      if (size === undefined) return Infinity;
      const { conversation, tools } = next();
      const prompt = model.countPromptTokens
        ? await model.countPromptTokens(conversation, tools)
        : estimatePromptTokens(conversation, tools);
      return Math.max(0, size - prompt - answerTokenCap(size, maxAnswerTokens));
    },
  };
}

/** The tokens one result may take now. */
export async function resultTokenLimit(budget: ResultBudget): Promise<number> {
  return Math.floor((await budget.freeTokens()) * budget.share);
}

/** A tool result cut to its budget, with the note `notes` words for `origin`. */
export async function fitResult(
  text: string,
  origin: ResultOrigin,
  budget: ResultBudget,
  notes: CutNotes,
): Promise<string> {
  if (text === "") return text;
  const limit = await resultTokenLimit(budget);
  if (!Number.isFinite(limit)) return text;
  return fitToTokens(text, limit, budget.countTokens, (cut) => notes.cut(origin, cut)).text;
}

/**
 * What a built-in operation's result is, for its note: `tool` is the name the profile offers
 * for it (an alias call is told the offered name). Without an operation (bad input, a refusal)
 * the result is a short message: `other`.
 */
export function resultOrigin(operation: ToolOperation | undefined, tool: string): ResultOrigin {
  switch (operation?.capability) {
    case "fs_read":
      return { kind: "read", tool, path: operation.path, firstLine: operation.offset ?? 1 };
    case "shell":
      return { kind: "shell", tool };
    case "fs_glob":
      return { kind: "glob", tool };
    case "fs_grep":
      return { kind: "grep", tool };
    case "fs_write":
    case "fs_edit":
    case undefined:
      return { kind: "other", tool };
    default:
      return operation satisfies never;
  }
}
