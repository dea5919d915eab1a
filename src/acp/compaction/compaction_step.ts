/**
 * A compaction as the client sees it: ACP's compaction updates for a client that advertises
 * `session.compaction`, a notice otherwise; then the context meter. Both `/compact` and the
 * automatic compaction of a turn go through here.
 */
import type { ModelSession } from "../../model/model.ts";
import type { AgentSession } from "../session/agent_session.ts";
import { runPostCompactHooks, runPreCompactHooks } from "./compact_hooks.ts";
import {
  compactConversation,
  type CompactionHooks,
  compactionNotice,
  type CompactionOutcome,
  type CompactionRequest,
} from "./compaction.ts";
import { tokenCounterOf, usageUpdate } from "./context_meter.ts";

export interface CompactionReporting {
  /** The client takes `compaction_update` (its `session.compaction` capability). */
  readonly compactionUpdates: boolean;
}

export async function runCompaction(
  session: AgentSession,
  model: ModelSession,
  request: CompactionRequest,
  reporting: CompactionReporting,
): Promise<CompactionOutcome> {
  const compactionId = crypto.randomUUID();
  if (reporting.compactionUpdates) {
    session.send({ sessionUpdate: "compaction_update", compactionId, status: "in_progress" });
  }
  const outcome = await compactConversation(session, model, {
    ...request,
    hooks: request.hooks ?? sessionCompactionHooks(session, request.promptId),
  });
  if (reporting.compactionUpdates) {
    session.send({
      sessionUpdate: "compaction_update",
      compactionId,
      ...compactionStatus(outcome),
    });
  }
  switch (outcome.kind) {
    case "compacted": {
      const text = compactionNotice(outcome, request.trigger, model.contextSize);
      session.log(`Session "${session.id}": ${text}`);
      if (!reporting.compactionUpdates || outcome.summary === undefined) session.notice(text);
      if (model.contextSize !== undefined) {
        session.sendState(usageUpdate(outcome.after, model.contextSize));
      }
      break;
    }
    case "shortened":
      session.log(
        `Session "${session.id}": ${outcome.results} older tool results were shortened to make ` +
          `room (${outcome.before} → ${outcome.after} tokens)`,
      );
      if (model.contextSize !== undefined) {
        session.sendState(usageUpdate(outcome.after, model.contextSize));
      }
      break;
    case "blocked":
      // Claude Code shows it for /compact and only logs it for an automatic compaction (a
      // turn that cannot go on for want of room says so itself).
      session.log(`Session "${session.id}": ${outcome.message}`);
      if (request.trigger === "manual") session.notice(outcome.message);
      break;
    case "empty":
      if (request.trigger === "manual") session.notice("There is nothing to compact yet");
      break;
    case "cancelled":
    case "too_large":
      break;
    default:
      outcome satisfies never;
  }
  return outcome;
}

function compactionStatus(outcome: CompactionOutcome) {
  switch (outcome.kind) {
    case "compacted":
      return outcome.summary === undefined ? { status: "completed" as const } : {
        status: "completed" as const,
        summary: [{ type: "text" as const, text: outcome.summary }],
      };
    case "cancelled":
      return { status: "cancelled" as const };
    case "empty":
    case "shortened":
      return { status: "completed" as const };
    case "blocked":
      return {
        status: "failed" as const,
        error: `Blocked by a PreCompact hook: ${outcome.message}`,
      };
    case "too_large":
      return { status: "failed" as const, error: "The running turn alone does not fit" };
    default:
      return outcome satisfies never;
  }
}

/** PreCompact and PostCompact of the session's hooks, where its profile fires them. */
export function sessionCompactionHooks(
  session: AgentSession,
  promptId: string | undefined,
): CompactionHooks {
  return {
    before: (trigger, instructions, signal) =>
      runPreCompactHooks(session, { trigger, customInstructions: instructions, signal, promptId }),
    after: (trigger, summary, signal) =>
      runPostCompactHooks(session, { trigger, summary, signal, promptId }),
  };
}

/** Sends the context meter for the conversation as the next request would take it. */
export async function sendContextUsage(
  session: AgentSession,
  model: ModelSession,
  prompt: Parameters<ReturnType<typeof tokenCounterOf>["prompt"]>,
): Promise<void> {
  if (model.contextSize === undefined) return;
  const used = await tokenCounterOf(model).prompt(...prompt);
  session.sendState(usageUpdate(used, model.contextSize));
}
