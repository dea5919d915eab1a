/**
 * PreCompact and PostCompact (the `claude` profile; the source document drops the first and never
 * emits the second): around each compaction of the conversation, `/compact` (`trigger:
 * "manual"`) or the context filling up (`"auto"`), with Claude Code's payloads and answers.
 *
 * - PreCompact gets `trigger` and `custom_instructions` (the `/compact` text, empty for auto).
 *   Exit 2, `decision:"block"` or `continue:false` keeps the conversation as it is; the caller
 *   is given the words why. Plain stdout on exit 0 is added to the summary's instructions, after
 *   the user's, as Claude Code merges them: every hook's joined by a blank line.
 * - PostCompact gets `trigger` and `compact_summary` (the summary as the model wrote it). It
 *   cannot block: exit 2's stderr and plain stdout are shown to the user, nothing else.
 *
 * What hooks say to the user (one line per hook that printed or failed, `systemMessage`s) is sent
 * as notices here; a block's words are the caller's to show (compaction.ts decides when). The
 * matchers are tested against `trigger`. Outside the `claude` profile no hook runs (the session's
 * firer fires only the events its profile fires) and compaction always goes on.
 */
import type { HookDecision } from "../../hooks/decision.ts";
import type { CompactTrigger } from "../../hooks/payload.ts";
import { compactionBlockedMessage, stoppedContinuationNotice } from "../../hooks/hook_messages.ts";
import type { AgentSession } from "../session/agent_session.ts";
import { compactionNotices } from "../session/hook_notices.ts";

/** What firing compaction hooks needs of a session: its hooks, and a way to tell the user. */
export type CompactHookSession = Pick<AgentSession, "hooks" | "notice">;

export type PreCompactGate =
  /** Compact. `instructions`: what the hooks add to the summary's instructions, if anything. */
  | { readonly kind: "go"; readonly instructions?: string }
  /**
   * Keep the conversation as it is. `message` says which hook and why, for the user: Claude Code
   * shows it for `/compact`, and only logs it for an automatic compaction.
   */
  | { readonly kind: "blocked"; readonly message: string };

export interface PreCompactContext {
  readonly trigger: CompactTrigger;
  /** What followed `/compact`; "" for none and for an automatic compaction. */
  readonly customInstructions: string;
  /** Aborting it kills the running hooks (the turn's cancel). */
  readonly signal: AbortSignal;
  /** The `session/prompt` the compaction happens in, for `prompt_id`. */
  readonly promptId?: string;
}

const GO: PreCompactGate = { kind: "go" };

export async function runPreCompactHooks(
  session: CompactHookSession,
  context: PreCompactContext,
): Promise<PreCompactGate> {
  if (!session.hooks.has("PreCompact")) return GO;
  const firing = await session.hooks.fire("PreCompact", context.trigger, {
    trigger: context.trigger,
    custom_instructions: context.customInstructions,
  }, { signal: context.signal, promptId: context.promptId });
  for (const notice of compactionNotices(firing)) session.notice(notice);
  const refusal = compactionRefusal(firing.decision);
  if (refusal !== null) return { kind: "blocked", message: refusal };
  const { texts } = firing.decision;
  if (texts.length === 0) return GO;
  return { kind: "go", instructions: texts.map((said) => said.text).join("\n\n") };
}

/**
 * Why PreCompact hooks keep the conversation as it is: their block's reasons (`[<cmd>]: <stderr>`
 * for exit 2), or their `continue:false`; null when they let the compaction go on.
 */
export function compactionRefusal(decision: HookDecision): string | null {
  const verdict = decision.verdict;
  switch (verdict.kind) {
    case "block":
      return compactionBlockedMessage(verdict.reason);
    case "stop":
      return stoppedContinuationNotice(decision.event, null, verdict.stopReason);
    case "none":
    case "allow":
    case "ask":
    case "defer":
      return null;
    default:
      return verdict satisfies never;
  }
}

export interface PostCompactContext {
  readonly trigger: CompactTrigger;
  /** The summary as the model wrote it. */
  readonly summary: string;
  readonly signal: AbortSignal;
  readonly promptId?: string;
}

/** Fires PostCompact once the compacted conversation is in place; what it says is for the user. */
export async function runPostCompactHooks(
  session: CompactHookSession,
  context: PostCompactContext,
): Promise<void> {
  if (!session.hooks.has("PostCompact")) return;
  const firing = await session.hooks.fire("PostCompact", context.trigger, {
    trigger: context.trigger,
    compact_summary: context.summary,
  }, { signal: context.signal, promptId: context.promptId });
  for (const notice of compactionNotices(firing)) session.notice(notice);
}

/**
 * The summary's instructions: the user's (`/compact <text>`), then what PreCompact hooks added,
 * separated by a blank line, as Claude Code merges them; undefined when there are none.
 */
export function mergeCompactInstructions(
  user: string,
  hooks: string | undefined,
): string | undefined {
  const own = user.trim();
  if (hooks === undefined || hooks === "") return own === "" ? undefined : own;
  return own === "" ? hooks : `${own}\n\n${hooks}`;
}
