/**
 * What hooks say to the user and never to the model: `systemMessage`s, `continue:false` stops,
 * non-blocking failures (§10 wording) and answers the event does not read. They reach the client as agent messages marked
 * `_meta["llama-agent/notice"]`, which the transcript replays and the conversation skips.
 */
import type { HookDecision } from "../../hooks/decision.ts";
import type { HookFiring } from "../../hooks/hook_engine.ts";
import { commandOf } from "../../hooks/hook_outcome.ts";
import {
  compactionHookFailedLine,
  compactionHookSuccessLine,
  ignoredOutputNotice,
  nonBlockingErrorNotice,
  stoppedContinuationNotice,
  systemMessageNotice,
} from "../../hooks/hook_messages.ts";

export { NOTICE_META_KEY } from "../../agent/transcript/transcript_reader.ts";

/** The notices one firing's decision asks for, in chain order. */
export function hookNotices(decision: HookDecision, qualifier: string | null): string[] {
  const notices = decision.systemMessages.map((said) =>
    systemMessageNotice(decision.event, qualifier, said.text)
  );
  if (decision.verdict.kind === "stop") {
    notices.push(stoppedContinuationNotice(decision.event, qualifier, decision.verdict.stopReason));
  }
  for (const error of decision.errors) {
    // A hook killed because the user cancelled is no news to the user.
    if (error.cause !== "cancelled") notices.push(nonBlockingErrorNotice(error));
  }
  for (const unread of decision.unread) notices.push(ignoredOutputNotice(unread));
  return notices;
}

/**
 * The notices of a PreCompact or PostCompact firing, hook by hook in chain order, as Claude Code
 * words them: `<Event> [<cmd>] completed successfully: <stdout>` for a hook that printed plain
 * text (PreCompact: what it added to the summary's instructions), `<Event> [<cmd>] failed:
 * <detail>` for one that failed (and for a PostCompact exit 2: its stderr, which reaches no one
 * else), then the hook's `systemMessage`. A PreCompact block or `continue:false` is not among
 * them: it is the compaction's answer (compact_hooks.ts).
 */
export function compactionNotices(firing: HookFiring): string[] {
  const event = firing.event;
  if (event !== "PreCompact" && event !== "PostCompact") return hookNotices(firing.decision, null);
  const notices: string[] = [];
  for (const { registration, outcome } of firing.runs) {
    const command = commandOf(registration);
    switch (outcome.kind) {
      case "success":
        if (outcome.text !== null) {
          notices.push(compactionHookSuccessLine(event, command, outcome.text));
        }
        break;
      case "block":
        // PostCompact cannot block: exit 2 shows its stderr to the user, and that is all.
        if (event === "PostCompact") {
          notices.push(compactionHookFailedLine(event, command, outcome.detail));
        }
        break;
      case "error":
        // A hook killed because the user cancelled is no news to the user.
        if (outcome.cause !== "cancelled") {
          notices.push(compactionHookFailedLine(event, command, outcome.detail));
        }
        break;
      default:
        outcome satisfies never;
    }
    for (const said of firing.decision.systemMessages) {
      if (said.by === registration.id) notices.push(systemMessageNotice(event, null, said.text));
    }
  }
  return notices;
}
