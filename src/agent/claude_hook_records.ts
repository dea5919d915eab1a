/**
 * What Claude Code 2.1.332 writes in its transcript for one firing of hooks, event by event
 * (claude-compat.md §8, hooks.md §12), as data: `HOOK_RECORDS` says which records each event's
 * firing leaves, `firingRecords` builds them from the firing, in the order Claude Code writes
 * them. Pure: ids come from the caller.
 *
 * Every hook that runs ends in one record of its own (`hook_success`, `hook_non_blocking_error`,
 * `hook_cancelled`, or `hook_blocking_error` for a JSON block; nothing for exit 2, whose block is
 * the event's to word), followed by a `hook_system_message` when it said one. Each event's caller
 * keeps, drops or words these differently: PermissionRequest, Notification, SessionEnd and the
 * compaction hooks leave nothing; UserPromptSubmit drops a `hook_success` without content;
 * PostToolUse words every block itself and stops writing at a `continue:false`; Stop adds its
 * `stop_hook_summary`; a deferred call leaves a `hook_deferred_tool`.
 */
import type { FiredEventName } from "../hooks/event_table.ts";
import { HOOK_EVENTS } from "../hooks/event_table.ts";
import type { HandlerConfig } from "../hooks/handler_config.ts";
import type { HookPayload } from "../hooks/handler_runner.ts";
import type { HookFiring, HookRun } from "../hooks/hook_engine.ts";
import {
  commandReason,
  DEFAULT_BLOCK_REASON,
  hookLabel,
  NO_STDERR_OUTPUT,
} from "../hooks/hook_messages.ts";
import type { HookOutput } from "../hooks/hook_output.ts";
import {
  hookAdditionalContext,
  type HookAttachment,
  hookBlockingError,
  hookCancelled,
  hookDeferredTool,
  type HookIdentity,
  hookNonBlockingError,
  hookStoppedContinuation,
  hookSuccess,
  hookSystemMessage,
} from "./claude_hook_attachments.ts";
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

/** How one hook ended, as Claude Code records it; null for a block by exit 2 or `ok:false`. */
export function runRecord(event: FiredEventName, run: HookRun, id: HookIdentity) {
  const { result, outcome, registration } = run;
  const handler = registration.handler;
  const command = attachmentCommand(handler);
  if (result === null) {
    const detail = outcome.kind === "success" ? "" : outcome.detail;
    return hookNonBlockingError(id, {
      stderr: `Failed to run: ${detail}`,
      stdout: "",
      exitCode: 1,
      command,
      durationMs: 0,
    });
  }
  const { durationMs } = result;
  const invalid = invalidOutput(run);
  switch (result.kind) {
    case "exited": {
      const streams = { stdout: result.stdout.text, stderr: result.stderr.text };
      if (result.signal === null && result.exitCode === 2) return null;
      if (invalid !== null) {
        return hookNonBlockingError(id, {
          stderr: `JSON validation failed: ${invalid}`,
          stdout: streams.stdout,
          exitCode: 1,
          command,
          durationMs,
        });
      }
      if (result.signal !== null || result.exitCode !== 0) {
        return hookNonBlockingError(id, {
          stderr: `Failed with non-blocking status code: ${
            streams.stderr.trim() || NO_STDERR_OUTPUT
          }`,
          stdout: streams.stdout,
          // Killed by a signal, a process has no exit code: Claude Code counts it as 1.
          exitCode: result.signal === null ? result.exitCode : 1,
          command,
          durationMs,
        });
      }
      const block = jsonBlock(event, outputOf(run));
      if (block !== null) return hookBlockingError(id, { blockingError: block, command });
      const content = outcome.kind === "success" ? outcome.text ?? "" : "";
      return hookSuccess(id, content, { ...streams, exitCode: 0, command, durationMs });
    }
    case "http": {
      // Claude Code keeps no timing of an http hook, and names it by its url.
      if (result.status < 200 || result.status > 299) {
        return hookNonBlockingError(id, {
          stderr: `HTTP ${result.status} from ${command}`,
          stdout: "",
          exitCode: result.status,
        });
      }
      if (invalid !== null) {
        return hookNonBlockingError(id, {
          stderr: `JSON validation failed: ${invalid}`,
          stdout: result.body,
          exitCode: result.status,
        });
      }
      const block = jsonBlock(event, outputOf(run));
      if (block !== null) return hookBlockingError(id, { blockingError: block, command });
      return hookSuccess(id, "", {
        stdout: result.body,
        stderr: "",
        exitCode: result.status,
        command,
      });
    }
    case "evaluated":
      return result.ok ? hookSuccess(id, "", { command, durationMs }) : null;
    case "failed": {
      const evaluated = handler.type === "prompt" || handler.type === "agent";
      if (result.failure === "timeout" || result.failure === "cancelled") {
        // A prompt or agent hook's cancel carries none of the facts.
        if (evaluated) return hookCancelled(id);
        const timeoutSec = handler.timeout ?? HOOK_EVENTS[event].commandTimeoutSec;
        return hookCancelled(id, {
          command,
          durationMs,
          timeout: { timedOut: result.failure === "timeout", timeoutMs: timeoutSec * 1000 },
        });
      }
      if (handler.type === "http") {
        return hookNonBlockingError(id, { stderr: result.message, stdout: "", exitCode: 0 });
      }
      return hookNonBlockingError(id, {
        stderr: evaluated ? result.message : `Failed to run: ${result.message}`,
        stdout: "",
        exitCode: 1,
        command,
        durationMs,
      });
    }
    default:
      return result satisfies never;
  }
}

/** Why a hook's JSON answer was rejected, or null. */
function invalidOutput(run: HookRun): string | null {
  const { outcome } = run;
  if (outcome.kind === "error" && outcome.cause === "output_invalid") return outcome.detail;
  if (outcome.kind === "block" && outcome.failure === "output_invalid") return outcome.detail;
  return null;
}

function outputOf(run: HookRun): HookOutput | null {
  return run.outcome.kind === "success" ? run.outcome.output : null;
}

/**
 * The reason of a JSON answer that blocks, as Claude Code reads it on any event: `decision:
 * "block"`, or a PreToolUse `permissionDecision: "deny"`; null when it does not block.
 */
function jsonBlock(event: FiredEventName, output: HookOutput | null): string | null {
  if (output === null) return null;
  const specific = output.hookSpecificOutput;
  if (event === "PreToolUse" && specific?.hookEventName === "PreToolUse") {
    if (specific.permissionDecision === "deny") {
      return specific.permissionDecisionReason?.trim() || output.reason?.trim() ||
        DEFAULT_BLOCK_REASON;
    }
  }
  return output.decision === "block" ? output.reason?.trim() || DEFAULT_BLOCK_REASON : null;
}

/**
 * A hook's block, as an event words it: exit 2 quotes the command and stderr as written, a JSON
 * block names the hook as its records do; null when it did not block.
 */
function blockOf(
  event: FiredEventName,
  run: HookRun,
): { readonly blockingError: string; readonly command: string } | null {
  const { result, outcome, registration } = run;
  if (outcome.kind === "block") {
    const command = handlerText(registration.handler);
    const stderr = result?.kind === "exited" && outcome.cause === "exit_2"
      ? result.stderr.text || NO_STDERR_OUTPUT
      : null;
    const blockingError = stderr === null ? outcome.reason : commandReason(command, stderr);
    return { blockingError, command };
  }
  const reason = jsonBlock(event, outputOf(run));
  const command = attachmentCommand(registration.handler);
  return reason === null ? null : { blockingError: reason, command };
}

/**
 * The hook as Claude Code names it in its records: its `statusMessage` when it has one, else the
 * command, the url, the prompt.
 */
export function attachmentCommand(handler: HandlerConfig): string {
  const status = handler.statusMessage;
  return typeof status === "string" && status !== "" ? status : handlerText(handler);
}

/** The command (with its `args`), the url or the prompt: what an exit 2's block quotes. */
function handlerText(handler: HandlerConfig): string {
  switch (handler.type) {
    case "command":
      return handler.args ? [handler.command, ...handler.args].join(" ") : handler.command;
    case "http":
      return handler.url;
    case "prompt":
    case "agent":
      return handler.prompt;
    default:
      return handler satisfies never;
  }
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
