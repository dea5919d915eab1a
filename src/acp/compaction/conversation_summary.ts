/**
 * The summary a compaction asks the model for: one request with no tools, whose prompt is ours
 * (docs/context.md, "Compaction"). The conversation goes in as plain text rather than as the
 * chat's own messages: a request without tools that replays tool calls is refused by some
 * servers, and text can be cut to fit with the same counter as everything else.
 */
import { AgentError, errorMessage } from "../../error.ts";
import type { ConversationItem, ModelSession } from "../../model/model.ts";
import type { TokenCounter } from "./context_meter.ts";

export const SUMMARY_SYSTEM_PROMPT =
  "You summarise a conversation between a user and a coding assistant, so that the assistant " +
  "can carry on the work from your summary alone. Write plain text. Do not call tools.";

export const SUMMARY_INSTRUCTION =
  "Summarise the conversation above for the assistant to continue from. Keep: what the user " +
  "asked for and still wants; what was done (files read or changed, commands run) and what came " +
  "of it; errors and how they were dealt with; decisions, names, paths and values that will be " +
  "needed; what is left to do. Be brief: short lines, no preamble.";

/** Each tool result is shown to the summariser at most this long: it needs the gist. */
const RESULT_TOKENS_SHOWN = 300;

const OMITTED = "[earlier messages omitted]";

export interface SummaryRequest {
  /** What is to be summarised, oldest first. */
  readonly items: readonly ConversationItem[];
  /** The summary of an earlier compaction, which these items followed. */
  readonly previousSummary?: string;
  /** The user's `/compact` text: what to focus on. */
  readonly focus: string;
  /** The most tokens the summary may take. */
  readonly maxTokens: number;
  readonly signal: AbortSignal;
}

export type SummaryResult =
  | { readonly ok: true; readonly summary: string }
  | { readonly ok: false; readonly cancelled: boolean; readonly reason: string };

/** Asks the model for the summary; a failure is a value, so the caller can fall back. */
export async function requestSummary(
  model: ModelSession,
  counter: TokenCounter,
  request: SummaryRequest,
): Promise<SummaryResult> {
  const instruction = request.focus.trim() === ""
    ? SUMMARY_INSTRUCTION
    : `${SUMMARY_INSTRUCTION} Focus on: ${request.focus.trim()}`;
  const frame = await counter.prompt([
    { role: "system", text: SUMMARY_SYSTEM_PROMPT },
    { role: "user", text: `<conversation>\n</conversation>\n\n${instruction}` },
  ], []);
  const room = (model.contextSize ?? Number.MAX_SAFE_INTEGER) - frame - request.maxTokens;
  if (room <= 0) {
    return { ok: false, cancelled: false, reason: "the context has no room for a summary" };
  }
  const text = fitFromEnd(conversationAsText(request, counter), room, counter);
  try {
    const result = await model.generate({
      conversation: [
        { role: "system", text: SUMMARY_SYSTEM_PROMPT },
        { role: "user", text: `<conversation>\n${text}\n</conversation>\n\n${instruction}` },
      ],
      tools: [],
      signal: request.signal,
      maxTokens: request.maxTokens,
      onTextChunk: () => {},
      onThoughtChunk: () => {},
    });
    if (result.stop === "cancelled" || request.signal.aborted) {
      return { ok: false, cancelled: true, reason: "cancelled" };
    }
    if (result.toolCalls.length > 0) {
      return { ok: false, cancelled: false, reason: "the model answered with a tool call" };
    }
    const summary = result.text.trim();
    if (summary === "") return { ok: false, cancelled: false, reason: "the model said nothing" };
    return { ok: true, summary };
  } catch (error) {
    if (request.signal.aborted) return { ok: false, cancelled: true, reason: "cancelled" };
    const reason = error instanceof AgentError ? error.message : errorMessage(error);
    return { ok: false, cancelled: false, reason };
  }
}

/** The conversation as lines of text, one block per message, results cut to their gist. */
function conversationAsText(request: SummaryRequest, counter: TokenCounter): string[] {
  const blocks: string[] = [];
  if (request.previousSummary !== undefined && request.previousSummary !== "") {
    blocks.push(`Summary of what came before:\n${request.previousSummary}`);
  }
  for (const item of request.items) {
    switch (item.role) {
      case "system":
        break;
      case "user":
        blocks.push(`User: ${item.text}`);
        break;
      case "assistant":
        for (const segment of item.segments) {
          if (segment.type === "text" && segment.text.trim() !== "") {
            blocks.push(`Assistant: ${segment.text}`);
          } else if (segment.type === "tool_call") {
            blocks.push(
              `Assistant called ${segment.name} ${JSON.stringify(segment.input)}; result:\n` +
                gist(segment.result, counter),
            );
          }
        }
        break;
      default:
        item satisfies never;
    }
  }
  return blocks;
}

/** The head and tail of a result, within RESULT_TOKENS_SHOWN. */
function gist(result: string, counter: TokenCounter): string {
  if (counter.text(result) <= RESULT_TOKENS_SHOWN) return result;
  const lines = result.split("\n");
  const head: string[] = [];
  const tail: string[] = [];
  let spent = 0;
  for (let i = 0, j = lines.length - 1; i <= j;) {
    const line = (head.length <= tail.length ? lines[i] : lines[j]) ?? "";
    const cost = counter.text(line) + 1;
    if (spent + cost > RESULT_TOKENS_SHOWN) break;
    spent += cost;
    if (head.length <= tail.length) {
      head.push(line);
      i++;
    } else {
      tail.unshift(line);
      j--;
    }
  }
  const cut = lines.length - head.length - tail.length;
  return [...head, `[${cut} lines not shown]`, ...tail].join("\n");
}

/**
 * The latest blocks that fit in `room` tokens: a summary of the end is worth more than one of
 * the start, and an earlier summary, when it is among them, still comes first.
 */
function fitFromEnd(blocks: readonly string[], room: number, counter: TokenCounter): string {
  const kept: string[] = [];
  let spent = counter.text(OMITTED) + 1;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i] ?? "";
    const cost = counter.text(block) + 1;
    if (spent + cost > room) {
      // The newest block alone is too long: its end is shown rather than nothing.
      if (kept.length === 0) kept.unshift(tailWithin(block, room - spent, counter));
      kept.unshift(OMITTED);
      break;
    }
    spent += cost;
    kept.unshift(block);
  }
  return kept.join("\n\n");
}

function tailWithin(text: string, tokens: number, counter: TokenCounter): string {
  let low = 0;
  let high = text.length;
  // The shortest suffix start whose tail fits: counting is monotone in the suffix's length.
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (counter.text(text.slice(middle)) <= tokens) high = middle;
    else low = middle + 1;
  }
  return text.slice(low);
}
