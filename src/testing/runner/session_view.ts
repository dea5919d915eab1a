/**
 * What a session makes of one firing, for event cases to assert it the way a session case
 * would see it: the context the model is given and the notices the user is shown. Pure; the
 * wording is the session's own (`hookNotices`, `userPromptBlockedMessage`), never a copy.
 */
import { compactionNotices, hookNotices } from "../../acp/session/hook_notices.ts";
import type { HookDecision } from "../../hooks/decision.ts";
import { HOOK_EVENTS } from "../../hooks/event_table.ts";
import type { HookFiring } from "../../hooks/hook_engine.ts";
import { userPromptBlockedMessage } from "../../hooks/hook_messages.ts";
import { compactionRefusal } from "../../acp/compaction/compact_hooks.ts";

/**
 * The hooks' words for the model, in the order a session adds them: the plain stdout of each
 * hook that exited 0 (SessionStart and UserPromptSubmit read it, and PreCompact adds it to the
 * summary's instructions; PostCompact's is the user's), then every `additionalContext`, joined
 * with "\n"; null when there is none.
 */
export function contextOf(decision: HookDecision): string | null {
  const texts = decision.event === "PostCompact" ? [] : decision.texts;
  const said = [...texts, ...decision.contexts];
  return said.length === 0 ? null : said.map((s) => s.text).join("\n");
}

/**
 * The notices the user is shown for this firing, in order: what the decision asks for
 * (`systemMessage`s, a `continue:false`, non-blocking failures), then, for a UserPromptSubmit
 * block, the refusal that quotes the prompt. Tool events name the tool, as in a session.
 * Compaction hooks speak hook by hook (`compactionNotices`), then a PreCompact block or stop
 * says why the conversation was kept as it is.
 */
export function noticesOf(
  firing: HookFiring,
  payload: Readonly<Record<string, unknown>>,
): string[] {
  const { decision } = firing;
  if (firing.event === "PreCompact" || firing.event === "PostCompact") {
    const refusal = compactionRefusal(decision);
    return [...compactionNotices(firing), ...(refusal === null ? [] : [refusal])];
  }
  const qualifier = HOOK_EVENTS[firing.event].matcherField === "tool_name"
    ? firing.matcherValue
    : null;
  const notices = hookNotices(decision, qualifier);
  const verdict = decision.verdict;
  if (firing.event === "UserPromptSubmit" && verdict.kind === "block") {
    const prompt = payload["prompt"];
    notices.push(
      userPromptBlockedMessage(verdict.reason, typeof prompt === "string" ? prompt : ""),
    );
  }
  return notices;
}
