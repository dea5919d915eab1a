/**
 * The exact words the model and the user see when hooks act, copied from what Claude Code
 * 2.1.332 prints, so one hook script reads the same in both agents. Pure string builders: the
 * seams decide when to show them.
 */
import type { FiredEventName } from "./event_table.ts";

/** The reason of an exit-2 hook that wrote nothing to stderr. */
export const NO_STDERR_OUTPUT = "No stderr output";

/** The reason of a JSON block or a prompt `ok:false` that gave none. */
export const DEFAULT_BLOCK_REASON = "Blocked by hook";

/** `<Event>` or `<Event>:<qualifier>`: the qualifier is the tool name on tool events. */
export function hookLabel(event: FiredEventName, qualifier?: string | null): string {
  return qualifier ? `${event}:${qualifier}` : event;
}

/** The reason an exit-2 hook gives, as every message quotes it: `[<cmd>]: <stderr>`. */
export function commandReason(command: string, stderr: string): string {
  return `[${command}]: ${stderr}`;
}

// For the model.

/** The tool result of a call a PreToolUse hook denied. */
export function preToolUseDeniedMessage(toolName: string, reason: string): string {
  return `PreToolUse:${toolName} hook error: ${reason}`;
}

/**
 * Context a hook added: `<Event>:T hook additional context: <ctx>` on tool events (pass the tool
 * name), `<Event> hook additional context: <ctx>` on SessionStart and UserPromptSubmit.
 */
export function additionalContextMessage(
  event: FiredEventName,
  toolName: string | null,
  context: string,
): string {
  return `${hookLabel(event, toolName)} hook additional context: ${context}`;
}

/** A PostToolUse / PostToolUseFailure block or exit 2, appended to what the model sees. */
export function blockingErrorMessage(
  event: FiredEventName,
  toolName: string,
  command: string,
  reason: string,
): string {
  return `${hookLabel(event, toolName)} hook blocking error from command: "${command}": ${reason}`;
}

/** Plain stdout of a SessionStart hook. */
export function sessionStartSuccessMessage(source: string, stdout: string): string {
  return `SessionStart:${source} hook success: ${stdout}`;
}

/** Plain stdout of a UserPromptSubmit hook. */
export function userPromptSubmitSuccessMessage(stdout: string): string {
  return `UserPromptSubmit hook success: ${stdout}`;
}

/** A Stop block fed back to the model when "stop hooks continue the turn" is on. */
export function stopFeedbackMessage(reason: string): string {
  return `Stop hook feedback:\n${reason}`;
}

/** Hook text for the model where the chat template allows no system message mid-conversation. */
export function systemReminder(text: string): string {
  return `<system-reminder>\n${text}\n</system-reminder>`;
}

// For the user only.

/** What the client is shown when a UserPromptSubmit hook blocks the prompt. */
export function userPromptBlockedMessage(reason: string, prompt: string): string {
  return `UserPromptSubmit operation blocked by hook:\n${reason}\n\nOriginal prompt: ${prompt}`;
}

/** A hook's `systemMessage`. */
export function systemMessageNotice(
  event: FiredEventName,
  qualifier: string | null,
  message: string,
): string {
  return `${hookLabel(event, qualifier)} says: ${message}`;
}

/** A hook's `continue:false`, with its `stopReason` when it gave one. */
export function stoppedContinuationNotice(
  event: FiredEventName,
  qualifier: string | null,
  stopReason: string | null,
): string {
  const head = `${hookLabel(event, qualifier)} hook stopped continuation`;
  return stopReason ? `${head}: ${stopReason}` : head;
}

export const NO_USABLE_ANSWER = "A hook gave no usable answer, so it didn't check this action.";
export const NO_ANSWER_IN_TIME = "A hook didn't answer in time, so it didn't check this action.";

/**
 * A non-blocking failure (crash, bad exit code, invalid output, timeout): the action went ahead
 * unchecked, and the user should know which hook and why.
 */
export function nonBlockingErrorNotice(
  failure: { readonly timedOut: boolean; readonly command: string; readonly detail: string },
): string {
  const sentence = failure.timedOut ? NO_ANSWER_IN_TIME : NO_USABLE_ANSWER;
  return `${sentence}\n${commandReason(failure.command, failure.detail)}`;
}
