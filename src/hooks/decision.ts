/**
 * Many hook outcomes of one firing → one decision (spec §8, with §4/§5 saying what each event
 * reads). Deterministic: outcomes are read in chain order whatever order they finished in, and
 * every piece of the decision names the registration that supplied it, so `hooks test --explain`
 * can say which hook decided what.
 */
import type { FiredEventName } from "./event_table.ts";
import type { BlockCause, ErrorCause, HookOutcome } from "./hook_outcome.ts";
import { DecisionCollector } from "./decision_collector.ts";
import type { CompatProfile } from "../profile/compat_profile.ts";

/** Something one hook said, and the id of the registration that said it. */
export interface Said {
  readonly by: string;
  readonly text: string;
}

/** Part of a hook's answer that has no effect on this event, with the hook's `<cmd>`. */
export interface Unread extends Said {
  readonly command: string;
}

/** A PreToolUse `allow`, `ask` or `defer`, with its `permissionDecisionReason` when given. */
export interface Vote {
  readonly by: string;
  readonly reason: string | null;
}

/** Where a block came from: the outcome's cause, or a field of the JSON output. */
export type BlockSource =
  | BlockCause
  | "decision"
  | "permission_decision"
  /** Stop's `hookSpecificOutput.reason`. */
  | "stop_reason";

export interface BlockEntry {
  readonly by: string;
  /** The hook's `<cmd>`, which PostToolUse messages quote. */
  readonly command: string;
  readonly source: BlockSource;
  /** As messages quote it (`[<cmd>]: <stderr>` for exit 2). */
  readonly reason: string;
  /** The hook's own words (raw stderr for exit 2). */
  readonly detail: string;
}

export type Verdict =
  | { readonly kind: "none" }
  /**
   * PreToolUse: skip the permission prompt (never overrides a policy deny). PermissionRequest:
   * answer the prompt with allow.
   */
  | { readonly kind: "allow"; readonly votes: readonly Vote[] }
  /** PreToolUse only: ask the client even if the policy would approve. */
  | { readonly kind: "ask"; readonly votes: readonly Vote[] }
  /**
   * PreToolUse only: hold the call. It is not run and the turn ends at once, with no Post or
   * Stop hook (hooks.md §12.4, Claude Code's `tool_deferred`).
   */
  | { readonly kind: "defer"; readonly votes: readonly Vote[] }
  /**
   * PreToolUse or PermissionRequest deny, UserPromptSubmit block, Stop "don't stop", Post* and
   * PostToolBatch feedback to the model.
   */
  | { readonly kind: "block"; readonly reason: string; readonly blocks: readonly BlockEntry[] }
  /** `continue:false`: beats everything; the first one in chain order is kept. */
  | { readonly kind: "stop"; readonly by: string; readonly stopReason: string | null };

/** A hook that gave no usable answer: shown to the user, never to the model. */
export interface HookErrorNote {
  readonly by: string;
  readonly command: string;
  readonly cause: ErrorCause;
  readonly detail: string;
  readonly timedOut: boolean;
}

export interface HookDecision {
  readonly event: FiredEventName;
  readonly verdict: Verdict;
  /**
   * PreToolUse: the last rewrite in chain order; it applies on allow and on no decision.
   * PermissionRequest: the last allow's rewrite.
   */
  readonly updatedInput: {
    readonly by: string;
    readonly input: Readonly<Record<string, unknown>>;
  } | null;
  /**
   * PostToolUse: the last `updatedToolOutput` in chain order, as the hook gave it (`value`) and
   * as text (a string as it is, any other JSON value as its JSON text). The model reads it in
   * place of the tool's result; a value of the tool's own `tool_response` shape is told as the
   * tool tells its own output (ToolKit.rewrittenOutput), `text` otherwise.
   */
  readonly updatedToolOutput: {
    readonly by: string;
    readonly value: unknown;
    readonly text: string;
  } | null;
  /** `additionalContext` (top-level, then `hookSpecificOutput`), chain order; kept on block too. */
  readonly contexts: readonly Said[];
  /**
   * Plain stdout on exit 0, chain order, where the event reads it: the model's context on
   * SessionStart and UserPromptSubmit, the summary's instructions on PreCompact, the user's
   * notice on PostCompact.
   */
  readonly texts: readonly Said[];
  /** `systemMessage`s, for the user. */
  readonly systemMessages: readonly Said[];
  readonly errors: readonly HookErrorNote[];
  /** What hooks said that has no effect on this event, so `--explain` can say so. */
  readonly ignored: readonly Said[];
  /**
   * The part of `ignored` that reads as an answer (a JSON field, a block), which the user is
   * told of (hook_notices.ts), so an answer that does nothing is never silent. Plain stdout
   * where the event reads none is usually a log line, and only `--explain` names it.
   */
  readonly unread: readonly Unread[];
}

/** What of a hook's JSON the session's profile reads (compat_profile.ts). */
export type OutputRules = Pick<CompatProfile, "readsTopLevelContext">;

/** The source document's rules, which the llama profile follows. */
const DOCUMENT_RULES: OutputRules = { readsTopLevelContext: true };

export function combineOutcomes(
  event: FiredEventName,
  outcomes: readonly HookOutcome[],
  rules: OutputRules = DOCUMENT_RULES,
): HookDecision {
  const c = new DecisionCollector(event, rules);
  const inChainOrder = outcomes.toSorted((a, b) => a.registration.order - b.registration.order);
  for (const outcome of inChainOrder) c.read(outcome);
  return c.decision();
}

/** All `additionalContext` strings joined with "\n" in chain order, or null when none. */
export function joinedContext(decision: HookDecision): string | null {
  return decision.contexts.length === 0 ? null : decision.contexts.map((c) => c.text).join("\n");
}
