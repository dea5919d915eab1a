/**
 * The `attachment` payloads Claude Code 2.1.332 writes in its transcript for hooks, as pure
 * builders with the keys in the order it writes them (a hook may print or diff a record, so the
 * order is part of the shape), and what the model is shown for each (`rendered`).
 *
 * A hook's own record says how it ended: `hook_success`, `hook_non_blocking_error`,
 * `hook_cancelled`, or `hook_blocking_error` for a JSON block. Around them the caller of each
 * event writes `hook_blocking_error`, `hook_additional_context`, `hook_stopped_continuation` and
 * `hook_deferred_tool`; `hook_system_message` follows the record of the hook that said it.
 * Which of them an event's firing writes is claude_hook_records.ts.
 */
import { systemReminder } from "../../hooks/hook_messages.ts";

/** Who a hook record is about: `PreToolUse:Bash`, its call's id (or the firing's), the event. */
export interface HookIdentity {
  readonly hookName: string;
  readonly toolUseID: string;
  readonly hookEvent: string;
}

/**
 * The facts of one hook's end. `command` and `durationMs` are left out where Claude Code has
 * none (an http hook's timing, a prompt hook's stdout).
 */
export interface HookRunFacts {
  readonly stdout?: string;
  readonly stderr?: string;
  readonly exitCode?: number;
  readonly command?: string;
  readonly durationMs?: number;
}

/** Exit 0: `content` is the trimmed plain stdout, "" when the hook printed JSON or nothing. */
export function hookSuccess(id: HookIdentity, content: string, run: HookRunFacts) {
  return {
    type: "hook_success",
    ...identity(id),
    content,
    ...optional("stdout", run.stdout),
    ...optional("stderr", run.stderr),
    ...optional("exitCode", run.exitCode),
    ...optional("command", run.command),
    ...optional("durationMs", run.durationMs),
  } as const;
}

/** A hook that gave no usable answer: the action went ahead unchecked. */
export function hookNonBlockingError(
  id: HookIdentity,
  run: HookRunFacts & {
    readonly stderr: string;
    readonly stdout: string;
    readonly exitCode: number;
  },
) {
  return {
    type: "hook_non_blocking_error",
    ...identity(id),
    stderr: run.stderr,
    stdout: run.stdout,
    exitCode: run.exitCode,
    ...optional("command", run.command),
    ...optional("durationMs", run.durationMs),
  } as const;
}

/**
 * A hook killed at its timeout (`timedOut: true`) or by a cancel; the caller that writes it again
 * without the hook's facts (PostToolUse) passes none.
 */
export function hookCancelled(
  id: HookIdentity,
  run?: {
    readonly command?: string;
    readonly durationMs?: number;
    readonly timeout?: { readonly timedOut: boolean; readonly timeoutMs: number };
  },
) {
  return {
    type: "hook_cancelled",
    ...identity(id),
    ...optional("command", run?.command),
    ...optional("durationMs", run?.durationMs),
    ...(run?.timeout === undefined
      ? {}
      : { timedOut: run.timeout.timedOut, timeoutMs: run.timeout.timeoutMs }),
  } as const;
}

/** A block: `blockingError` is `[<cmd>]: <stderr>` for exit 2, the hook's reason for JSON. */
export function hookBlockingError(
  id: HookIdentity,
  block: { readonly blockingError: string; readonly command: string },
) {
  return {
    type: "hook_blocking_error",
    ...identity(id),
    blockingError: { blockingError: block.blockingError, command: block.command },
  } as const;
}

/** `continue:false`: `message` is the hook's `stopReason`, or the event's own words. */
export function hookStoppedContinuation(id: HookIdentity, message: string) {
  return { type: "hook_stopped_continuation", message, ...identity(id) } as const;
}

/** A hook's `systemMessage` (shown to the user, never to the model). */
export function hookSystemMessage(id: HookIdentity, content: string) {
  return { type: "hook_system_message", content, ...identity(id) } as const;
}

/** The `additionalContext` the hooks gave, as one list. */
export function hookAdditionalContext(id: HookIdentity, content: readonly string[]) {
  return { type: "hook_additional_context", content: [...content], ...identity(id) } as const;
}

/**
 * A call a PreToolUse hook deferred: not run, the turn ended. `toolInput` is the input the hooks
 * left (a hook's `updatedInput` applied).
 */
export function hookDeferredTool(call: {
  readonly toolUseID: string;
  readonly toolName: string;
  readonly toolInput: unknown;
  readonly hookName: string;
  readonly permissionMode: string;
}) {
  return {
    type: "hook_deferred_tool",
    toolUseID: call.toolUseID,
    toolName: call.toolName,
    toolInput: call.toolInput,
    hookName: call.hookName,
    hookEvent: "PreToolUse",
    permissionMode: call.permissionMode,
  } as const;
}

export type HookAttachment =
  | ReturnType<typeof hookSuccess>
  | ReturnType<typeof hookNonBlockingError>
  | ReturnType<typeof hookCancelled>
  | ReturnType<typeof hookBlockingError>
  | ReturnType<typeof hookStoppedContinuation>
  | ReturnType<typeof hookSystemMessage>
  | ReturnType<typeof hookAdditionalContext>
  | ReturnType<typeof hookDeferredTool>;

/**
 * What the model is shown for an attachment, as Claude Code renders it (a system reminder), or
 * null for the records that are for the transcript and the user only.
 */
export function renderedFor(attachment: HookAttachment): string | null {
  switch (attachment.type) {
    case "hook_success":
      // Plain stdout reaches the model on these two events only.
      return (attachment.hookEvent === "SessionStart" ||
          attachment.hookEvent === "UserPromptSubmit") && attachment.content !== ""
        ? systemReminder(`${attachment.hookName} hook success: ${attachment.content}`)
        : null;
    case "hook_additional_context":
      return attachment.content.length === 0 ? null : systemReminder(
        `${attachment.hookName} hook additional context: ${attachment.content.join("\n")}`,
      );
    case "hook_blocking_error":
      return systemReminder(
        `${attachment.hookName} hook blocking error from command: ` +
          `"${attachment.blockingError.command}": ${attachment.blockingError.blockingError}`,
      );
    case "hook_stopped_continuation":
      return systemReminder(
        `${attachment.hookName} hook stopped continuation: ${attachment.message}`,
      );
    case "hook_non_blocking_error":
    case "hook_cancelled":
    case "hook_system_message":
    case "hook_deferred_tool":
      return null;
    default:
      return attachment satisfies never;
  }
}

function identity(id: HookIdentity) {
  return { hookName: id.hookName, toolUseID: id.toolUseID, hookEvent: id.hookEvent } as const;
}

/** `{key: value}`, or nothing when the value is absent: Claude Code leaves such keys out. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : { [key]: value } as { [P in K]?: V };
}
