/**
 * Compaction: when a session's next request would take too much of the context (or the user
 * asks, `/compact`), the conversation so far is replaced by a summary the model writes
 * (conversation_summary.ts), carried in the system prompt, and the latest turns that fit. When no
 * summary can be had (the model fails, answers with a call or says nothing), the oldest turns are
 * dropped whole instead, so a session never dies of its own history.
 *
 * The turn that is running is never changed: its prompt and its work so far are kept as they are
 * (the transcript rebuilds it the same way). The result is recorded as a `conversation` record, so
 * a load continues from the same state.
 */
import type { AssistantSegment, ConversationItem, ModelSession } from "../../model/model.ts";
import type { ToolDefinition } from "../../model/model.ts";
import { answerTokenCap } from "../../model/answer_cap.ts";
import type { AgentSession } from "../session/agent_session.ts";
import { type TokenCounter, tokenCounterOf, tokensText } from "./context_meter.ts";
import { mergeCompactInstructions } from "./compact_hooks.ts";
import { requestSummary } from "./conversation_summary.ts";
import { shrinkOlderResults } from "./shrink_older_results.ts";
import { systemPromptItem } from "../turn/system_prompt.ts";

export type CompactTrigger = "manual" | "auto";

/** PreCompact and PostCompact, where the profile fires them (compact_hooks.ts). */
export interface CompactionHooks {
  before(
    trigger: CompactTrigger,
    instructions: string,
    signal: AbortSignal,
  ): Promise<
    | { readonly kind: "go"; readonly instructions?: string }
    | { readonly kind: "blocked"; readonly message: string }
  >;
  after(trigger: CompactTrigger, summary: string, signal: AbortSignal): Promise<void>;
}

export interface CompactionRequest {
  readonly trigger: CompactTrigger;
  /** The user's `/compact` text; "" for an automatic compaction. */
  readonly focus: string;
  readonly signal: AbortSignal;
  /** Conversation items from this index on belong to the running turn: kept as they are. */
  readonly keepFrom: number;
  /** The running turn's assistant message so far: counted, never changed. */
  readonly pending: readonly AssistantSegment[];
  readonly tools: readonly ToolDefinition[];
  /** Prompt tokens to get down to; older turns are kept verbatim while they fit under it. */
  readonly target: number;
  readonly hooks?: CompactionHooks;
  /** The `session/prompt` the compaction happens in (hooks' `prompt_id`, the transcript's). */
  readonly promptId?: string;
  /** The user's answer cap (`--max-answer-tokens`); the default cap when absent. */
  readonly maxAnswerTokens?: number;
}

export type CompactionOutcome =
  | {
    readonly kind: "compacted";
    readonly before: number;
    readonly after: number;
    /** Absent: no summary could be made, and the oldest turns were dropped instead. */
    readonly summary?: string;
    /** Why there is no summary. */
    readonly summaryFailure?: string;
    readonly keptTurns: number;
    readonly droppedTurns: number;
  }
  /** Older tool results were shortened, and that made room enough: no summary was needed. */
  | {
    readonly kind: "shortened";
    readonly before: number;
    readonly after: number;
    readonly results: number;
  }
  | { readonly kind: "empty" }
  | { readonly kind: "blocked"; readonly message: string }
  | { readonly kind: "cancelled" }
  /** Even with every older turn gone, the running turn does not fit. */
  | { readonly kind: "too_large"; readonly tokens: number };

/**
 * The most tokens a summary may take in a context of `contextSize`: an answer's cap
 * (`maxAnswerTokens`, the user's setting where there is one), and no more than an eighth of the
 * context (at least 256).
 */
export function summaryTokenCap(contextSize: number, maxAnswerTokens?: number): number {
  return Math.min(
    answerTokenCap(contextSize, maxAnswerTokens),
    Math.max(256, Math.floor(contextSize / 8)),
  );
}

/**
 * The prompt size past which a request is compacted first: the threshold's share of the context,
 * and never so much that the answer's room (its cap, `maxAnswerTokens` where set) is gone.
 */
export function compactionLimit(
  contextSize: number,
  threshold: number,
  maxAnswerTokens?: number,
): number {
  return Math.min(
    Math.floor(contextSize * threshold),
    contextSize - answerTokenCap(contextSize, maxAnswerTokens),
  );
}

/** What the next request takes: the system prompt (with `summary`), `items`, `pending`. */
export function requestItems(
  session: AgentSession,
  summary: string | undefined,
  items: readonly ConversationItem[],
  pending: readonly AssistantSegment[],
): ConversationItem[] {
  return [
    systemPromptItem({ ...placeOf(session), contextSummary: summary }, session.toolKit.profile),
    ...items,
    ...(pending.length > 0 ? [{ role: "assistant" as const, segments: [...pending] }] : []),
  ];
}

function placeOf(session: AgentSession) {
  return {
    cwd: session.cwd,
    additionalDirectories: session.additionalDirectories,
    projectInstructions: session.projectInstructions,
    startContext: session.startContext,
  };
}

export async function compactConversation(
  session: AgentSession,
  model: ModelSession,
  request: CompactionRequest,
): Promise<CompactionOutcome> {
  const counter = tokenCounterOf(model);
  const contextSize = model.contextSize ?? Number.MAX_SAFE_INTEGER;
  const conversation = session.conversation;
  const count = (summary: string | undefined, items: readonly ConversationItem[]) =>
    counter.prompt(requestItems(session, summary, items, request.pending), request.tools);
  const before = await count(session.contextSummary, conversation);
  const older = conversation.slice(0, request.keepFrom);
  const running = conversation.slice(request.keepFrom);
  // The room a request needs: its prompt, and the answer's cap free after it.
  const answer = answerTokenCap(contextSize, request.maxAnswerTokens);
  const fits = (tokens: number) => tokens + answer <= contextSize;
  // Nothing older to fold away (an automatic compaction would only keep the summary it has):
  // the running turn fits as it is, or nothing will make it.
  if (older.length === 0 && (session.contextSummary === undefined || request.trigger === "auto")) {
    return request.trigger === "manual" || fits(before)
      ? { kind: "empty" }
      : { kind: "too_large", tokens: before };
  }

  if (request.trigger === "auto") {
    // Older tool results shrink first: often that alone makes room, and the conversation stays.
    const shrunk = shrinkOlderResults(older, counter.text, before - request.target, {
      note: session.toolKit.profile.cutNotes.older,
    });
    if (shrunk.shortened > 0) {
      older.splice(0, older.length, ...shrunk.conversation);
      const after = await count(session.contextSummary, [...older, ...running]);
      if (after <= request.target) {
        const items = [...older, ...running];
        session.conversation.splice(0, session.conversation.length, ...items);
        session.record({
          type: "conversation",
          reason: "results_shortened",
          items: structuredClone(items),
          ...(session.contextSummary === undefined ? {} : { summary: session.contextSummary }),
          tokens: { before, after },
        });
        return { kind: "shortened", before, after, results: shrunk.shortened };
      }
    }
  }

  const gate = await request.hooks?.before(request.trigger, request.focus, request.signal);
  if (request.signal.aborted) return { kind: "cancelled" };
  if (gate?.kind === "blocked") return gate;

  const summaryCap = summaryTokenCap(contextSize, request.maxAnswerTokens);
  const turns = splitTurns(older);
  // A manual compaction summarises everything, as Claude Code's /compact does.
  let keep = request.trigger === "manual"
    ? 0
    : await turnsThatFit(turns, running, request.target - summaryCap, (items) =>
      count(undefined, items));
  const summarised = turns.slice(0, turns.length - keep).flat();
  const made = summarised.length === 0 && session.contextSummary !== undefined
    ? { ok: true as const, summary: session.contextSummary }
    : await requestSummary(model, counter, {
      items: summarised,
      previousSummary: session.contextSummary,
      // What PreCompact hooks printed follows the user's own words, as in Claude Code.
      focus: mergeCompactInstructions(request.focus, gate?.instructions) ?? "",
      maxTokens: summaryCap,
      signal: request.signal,
    });
  if (!made.ok && made.cancelled) return { kind: "cancelled" };
  if (request.signal.aborted) return { kind: "cancelled" };
  // Without a new summary, the earlier one (if any) still stands for what it covered.
  const summary = made.ok ? capSummary(made.summary, summaryCap, counter) : session.contextSummary;

  let after = await count(summary, [...turns.slice(turns.length - keep).flat(), ...running]);
  while (!fits(after) && keep > 0) {
    keep--;
    after = await count(summary, [...turns.slice(turns.length - keep).flat(), ...running]);
  }
  if (!fits(after)) return { kind: "too_large", tokens: after };

  const items = [...turns.slice(turns.length - keep).flat(), ...running];
  session.conversation.splice(0, session.conversation.length, ...items);
  session.contextSummary = summary;
  session.record({
    type: "conversation",
    reason: request.trigger === "manual" ? "compact_manual" : "compact_auto",
    items: structuredClone(items),
    ...(summary === undefined ? {} : { summary }),
    tokens: { before, after },
  });
  if (made.ok && summary !== undefined) {
    session.claudeTranscript?.compacted({
      trigger: request.trigger,
      preTokens: before,
      summary,
      promptId: request.promptId,
    });
    // Only a compaction that made a summary is one PostCompact hears of, as in Claude Code.
    await request.hooks?.after(request.trigger, summary, request.signal);
  }
  return {
    kind: "compacted",
    before,
    after,
    ...(made.ok ? { summary } : { summaryFailure: made.reason }),
    keptTurns: keep,
    droppedTurns: turns.length - keep,
  };
}

/**
 * The running turn could not be sent at all (it does not fit, or the model refused it): it is
 * taken back out, so the model never reads a prompt it never answered, and the next prompt
 * starts clean.
 */
export function withdrawRunningTurn(session: AgentSession, keepFrom: number): void {
  session.conversation.splice(keepFrom);
  session.record({
    type: "conversation",
    reason: "prompt_withdrawn",
    items: structuredClone(session.conversation),
    ...(session.contextSummary === undefined ? {} : { summary: session.contextSummary }),
  });
}

/** `/clear`: the model starts over; the client keeps the history it has shown. */
export function clearConversation(session: AgentSession): void {
  session.conversation.splice(0);
  session.contextSummary = undefined;
  session.record({ type: "conversation", reason: "clear", items: [] });
}

/** What the user reads about a compaction that happened. */
export function compactionNotice(
  outcome: Extract<CompactionOutcome, { kind: "compacted" }>,
  trigger: CompactTrigger,
  contextSize: number | undefined,
): string {
  const of = contextSize === undefined
    ? ""
    : ` of the ${contextSize.toLocaleString("en-US")}-token context`;
  const why = trigger === "auto"
    ? "The conversation was nearly filling the context, so it was"
    : "The conversation was";
  const kept = outcome.keptTurns === 0
    ? ""
    : `, and the latest ${
      outcome.keptTurns === 1 ? "turn" : `${outcome.keptTurns} turns`
    } kept as they were`;
  const sizes = `${tokensText(outcome.before)} → ${tokensText(outcome.after)}${of}`;
  if (outcome.summary !== undefined) {
    return `${why} compacted into a summary${kept} (${sizes})`;
  }
  const dropped = outcome.droppedTurns === 1 ? "turn was" : `${outcome.droppedTurns} turns were`;
  return `${why} shortened: no summary could be made (${outcome.summaryFailure}), so the ` +
    `oldest ${dropped} dropped (${sizes})`;
}

/** Turns of the conversation: each starts at a user message. */
function splitTurns(items: readonly ConversationItem[]): ConversationItem[][] {
  const turns: ConversationItem[][] = [];
  for (const item of items) {
    const last = turns.at(-1);
    if (item.role === "user" || last === undefined) turns.push([item]);
    else last.push(item);
  }
  return turns;
}

/** How many of the latest turns fit under `limit` beside the running turn. */
async function turnsThatFit(
  turns: readonly ConversationItem[][],
  running: readonly ConversationItem[],
  limit: number,
  count: (items: readonly ConversationItem[]) => Promise<number>,
): Promise<number> {
  let keep = 0;
  while (keep < turns.length) {
    const items = [...turns.slice(turns.length - keep - 1).flat(), ...running];
    if (await count(items) > limit) break;
    keep++;
  }
  return keep;
}

/** A summary the model made longer than asked (a server that ignores `max_tokens`), cut. */
function capSummary(summary: string, cap: number, counter: TokenCounter): string {
  if (counter.text(summary) <= cap) return summary;
  const lines = summary.split("\n");
  const kept: string[] = [];
  let spent = 0;
  for (const line of lines) {
    const cost = counter.text(line) + 1;
    if (spent + cost > cap) break;
    spent += cost;
    kept.push(line);
  }
  return kept.join("\n");
}
