/**
 * What Claude Code 2.1.332 writes in its transcript for one firing of hooks, event by event
 * (claude-compat.md §8, hooks.md §12), as data: `HOOK_RECORDS` says which records each event's
 * firing leaves, `firingRecords` builds them from the firing, in the order Claude Code writes
 * them. Pure: ids come from the caller.
 *
 * Every hook that runs ends in one record of its own (claude_hook_run.ts: `hook_success`,
 * `hook_non_blocking_error`, `hook_cancelled`, or `hook_blocking_error` for a JSON block; nothing
 * for exit 2, whose block is the event's to word), followed by a `hook_system_message` when it
 * said one. Each event's caller
 * keeps, drops or words these differently: PermissionRequest, Notification, SessionEnd and the
 * compaction hooks leave nothing; UserPromptSubmit drops a `hook_success` without content;
 * PostToolUse words every block itself and stops writing at a `continue:false`; Stop adds its
 * `stop_hook_summary`; a deferred call leaves a `hook_deferred_tool`.
 */
import type { FiredEventName } from "../../hooks/event_table.ts";
import type { HookPayload } from "../../hooks/handler_runner.ts";
import type { HookFiring, HookRun } from "../../hooks/hook_engine.ts";
import { hookLabel } from "../../hooks/hook_messages.ts";
import {
  hookAdditionalContext,
  type HookAttachment,
  hookBlockingError,
  hookCancelled,
  hookDeferredTool,
  type HookIdentity,
  hookStoppedContinuation,
  hookSystemMessage,
} from "./claude_hook_attachments.ts";
import { attachmentCommand, blockOf, outputOf, runRecord } from "./claude_hook_run.ts";
import type { StopHookSummary } from "./claude_transcript_records.ts";

/** Where an event's `additionalContext` is written, and under which name and id. */
interface ContextRecords {
  /** One record per hook that gave context, or one for the firing after all its records. */
  readonly per: "hook" | "firing";
  /** `hookName`: the hooks' own (`PreToolUse:Bash`), or the bare event (SessionStart's). */
  readonly hookName: "hooks" | "event";
  /** `toolUseID`: the firing's (the call's on tool events), a new `hook-<uuid>`, or the event. */
  readonly id: "firing" | "new" | "event";
}

/** The `hook_stopped_continuation` of a `continue:false`. */
interface StoppedRecords {
  /** `message` when the hook gave no `stopReason`. */
  readonly defaultMessage: string;
  /**
   * `hook`: before the stopping hook's own records; `halt`: in their place, and nothing after it
   * is written; `end`: after the firing's records.
   */
  readonly at: "hook" | "halt" | "end";
}

export interface EventHookRecords {
  /** Each hook's own record and system message: all, all but a contentless success, none. */
  readonly runs: "all" | "with_content" | "none";
  /** The event words every block (exit 2 too) as its `hook_blocking_error`, in the hook's place. */
  readonly wordsBlocks: boolean;
  /** A cancelled hook's record is written again without its command and timing. */
  readonly bareCancelled: boolean;
  readonly contexts: ContextRecords | null;
  readonly stopped: StoppedRecords | null;
  /** A `stop_hook_summary` after the hooks' records (Stop). */
  readonly summary: boolean;
  /** A deferred call's `hook_deferred_tool` (PreToolUse). */
  readonly deferredTool: boolean;
}

const NOTHING: EventHookRecords = {
  runs: "none",
  wordsBlocks: false,
  bareCancelled: false,
  contexts: null,
  stopped: null,
  summary: false,
  deferredTool: false,
};

const PER_HOOK_CONTEXT: ContextRecords = { per: "hook", hookName: "hooks", id: "firing" };

/** What Claude Code writes for each event it fires (inferred where noted). */
export const HOOK_RECORDS: Readonly<Record<FiredEventName, EventHookRecords>> = {
  // Every record; the contexts of all hooks in one record named after the event alone.
  SessionStart: {
    ...NOTHING,
    runs: "all",
    contexts: { per: "firing", hookName: "event", id: "event" },
  },
  // Written after the prompt (claude_transcript.ts holds them); a refused prompt drops them.
  UserPromptSubmit: {
    ...NOTHING,
    runs: "with_content",
    contexts: { per: "hook", hookName: "hooks", id: "new" },
  },
  // Exit 2 leaves no record: the model reads the denial as the call's result.
  PreToolUse: {
    ...NOTHING,
    runs: "all",
    contexts: PER_HOOK_CONTEXT,
    stopped: { defaultMessage: "Execution stopped by hook", at: "end" },
    deferredTool: true,
  },
  PostToolUse: {
    ...NOTHING,
    runs: "all",
    wordsBlocks: true,
    bareCancelled: true,
    contexts: PER_HOOK_CONTEXT,
    stopped: { defaultMessage: "Execution stopped by PostToolUse hook", at: "halt" },
  },
  PostToolUseFailure: {
    ...NOTHING,
    runs: "all",
    wordsBlocks: true,
    bareCancelled: true,
    contexts: PER_HOOK_CONTEXT,
  },
  Notification: NOTHING,
  // An exit 2's feedback is the user message the model reads (claude_transcript.ts hookFeedback).
  Stop: {
    ...NOTHING,
    runs: "all",
    contexts: { per: "firing", hookName: "hooks", id: "new" },
    stopped: { defaultMessage: "Stop hook prevented continuation", at: "hook" },
    summary: true,
  },
  PermissionRequest: NOTHING,
  SessionEnd: NOTHING,
  // Inferred: worded as PostToolUse's, its stop after the firing (no scenario observed them).
  PostToolBatch: {
    ...NOTHING,
    runs: "all",
    wordsBlocks: true,
    contexts: PER_HOOK_CONTEXT,
    stopped: { defaultMessage: "Execution stopped by PostToolBatch hook", at: "end" },
  },
  // Claude Code runs compaction hooks outside the conversation.
  PreCompact: NOTHING,
  PostCompact: NOTHING,
};

/** One record of a firing: an attachment, or Stop's summary. */
export type FiringRecord =
  | { readonly kind: "attachment"; readonly attachment: HookAttachment }
  | { readonly kind: "stop_summary"; readonly summary: StopHookSummary };

/**
 * The records of one firing, in the order Claude Code writes them. `sent`: the payload its hooks
 * were sent (a tool call's id, input and permission mode); `newId`: a fresh uuid.
 */
export function firingRecords(
  firing: HookFiring,
  sent: HookPayload | undefined,
  newId: () => string,
): FiringRecord[] {
  const rule = HOOK_RECORDS[firing.event];
  if (firing.runs.length === 0 || rule === NOTHING) return [];
  const toolUseId = typeof sent?.tool_use_id === "string" ? sent.tool_use_id : undefined;
  // Claude Code gives the hooks of a firing without a tool call one id of their own.
  const id: HookIdentity = {
    hookName: hookLabel(firing.event, firing.matcherValue),
    toolUseID: toolUseId ?? newId(),
    hookEvent: firing.event,
  };
  const records: HookAttachment[] = [];
  for (const run of firing.runs) {
    const output = outputOf(run);
    if (output?.continue === false && rule.stopped !== null && rule.stopped.at !== "end") {
      records.push(hookStoppedContinuation(id, output.stopReason || rule.stopped.defaultMessage));
      if (rule.stopped.at === "halt") return attachments(records);
    }
    const block = blockOf(firing.event, run);
    if (block !== null && rule.wordsBlocks) records.push(hookBlockingError(id, block));
    if (rule.runs !== "none") records.push(...ownRecords(firing.event, run, id, rule));
    const said = firing.decision.contexts.filter((c) => c.by === run.registration.id);
    if (rule.contexts?.per === "hook" && said.length > 0) {
      const context = contextIdentity(rule.contexts, id, firing.event, newId);
      records.push(hookAdditionalContext(context, said.map((c) => c.text)));
    }
  }
  const { verdict, contexts } = firing.decision;
  if (rule.stopped?.at === "end" && verdict.kind === "stop") {
    records.push(hookStoppedContinuation(id, verdict.stopReason || rule.stopped.defaultMessage));
  }
  const all: FiringRecord[] = attachments(records);
  if (rule.summary) all.push({ kind: "stop_summary", summary: stopSummary(firing, id, rule) });
  if (rule.contexts?.per === "firing" && contexts.length > 0) {
    const context = contextIdentity(rule.contexts, id, firing.event, newId);
    const attachment = hookAdditionalContext(context, contexts.map((c) => c.text));
    all.push({ kind: "attachment", attachment });
  }
  if (rule.deferredTool && verdict.kind === "defer" && sent !== undefined) {
    const attachment = hookDeferredTool({
      toolUseID: id.toolUseID,
      toolName: firing.matcherValue ?? "",
      toolInput: firing.decision.updatedInput?.input ?? sent.tool_input,
      hookName: id.hookName,
      permissionMode: typeof sent.permission_mode === "string" ? sent.permission_mode : "default",
    });
    all.push({ kind: "attachment", attachment });
  }
  return all;
}

function attachments(records: readonly HookAttachment[]): FiringRecord[] {
  return records.map((attachment) => ({ kind: "attachment", attachment }));
}

function contextIdentity(
  rule: ContextRecords,
  firingId: HookIdentity,
  event: FiredEventName,
  newId: () => string,
): HookIdentity {
  const hookName = rule.hookName === "event" ? event : firingId.hookName;
  const toolUseID = rule.id === "firing"
    ? firingId.toolUseID
    : rule.id === "event"
    ? event
    : `hook-${newId()}`;
  return { hookName, toolUseID, hookEvent: event };
}

/** A hook's own record (none for a block by exit 2 or `ok:false`) and its system message. */
function ownRecords(
  event: FiredEventName,
  run: HookRun,
  id: HookIdentity,
  rule: EventHookRecords,
): HookAttachment[] {
  const own = runRecord(event, run, id);
  const records: HookAttachment[] = [];
  if (own === null) {
    // Worded by the event, or not at all.
  } else if (own.type === "hook_blocking_error") {
    if (!rule.wordsBlocks) records.push(own);
  } else if (own.type === "hook_cancelled" && rule.bareCancelled) {
    records.push(hookCancelled(id));
  } else if (own.type === "hook_success" && own.content === "" && rule.runs === "with_content") {
    // Nothing for the model to read: not written.
  } else {
    records.push(own);
  }
  const message = outputOf(run)?.systemMessage;
  if (message) records.push(hookSystemMessage(id, message));
  return records;
}

/**
 * Stop's summary: every hook with its time; the blocks' reasons and the errors' stderr in chain
 * order (`failedHookErrorIndexes` naming the errors); `hasOutput` when any hook said anything.
 */
function stopSummary(
  firing: HookFiring,
  id: HookIdentity,
  rule: EventHookRecords,
): StopHookSummary {
  const hookErrors: string[] = [];
  const failedHookErrorIndexes: number[] = [];
  let hasOutput = false;
  for (const run of firing.runs) {
    const block = blockOf(firing.event, run);
    if (block !== null) hookErrors.push(block.blockingError);
    const own = runRecord(firing.event, run, id);
    if (own?.type === "hook_non_blocking_error") {
      failedHookErrorIndexes.push(hookErrors.length);
      hookErrors.push(own.stderr || `Exit code ${own.exitCode}`);
    } else if (own?.type === "hook_success") {
      hasOutput ||= Boolean(own.stdout?.trim() || own.stderr?.trim());
    }
  }
  const { verdict } = firing.decision;
  const stopped = verdict.kind === "stop";
  return {
    hookInfos: firing.runs.map((run) => ({
      command: attachmentCommand(run.registration.handler),
      durationMs: run.result?.durationMs ?? 0,
    })),
    hookErrors,
    failedHookErrorIndexes,
    preventedContinuation: stopped,
    stopReason: stopped ? verdict.stopReason || (rule.stopped?.defaultMessage ?? "") : "",
    hasOutput: hasOutput || hookErrors.length > 0,
    toolUseID: id.toolUseID,
  };
}
