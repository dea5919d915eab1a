/**
 * What hooks say to the user and never to the model: `systemMessage`s, `continue:false` stops
 * and non-blocking failures (§10 wording). They reach the client as agent messages marked
 * `_meta["llama-agent/notice"]`, which the transcript replays and the conversation skips.
 */
import type { HookDecision } from "../hooks/decision.ts";
import {
  nonBlockingErrorNotice,
  stoppedContinuationNotice,
  systemMessageNotice,
} from "../hooks/hook_messages.ts";

export { NOTICE_META_KEY } from "../agent/transcript_reader.ts";

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
  return notices;
}
