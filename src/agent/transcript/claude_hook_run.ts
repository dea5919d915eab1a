/**
 * How one hook of a firing ended, as Claude Code 2.1.332 records it in its transcript: its own
 * record (`hook_success`, `hook_non_blocking_error`, `hook_cancelled`, or `hook_blocking_error`
 * for a JSON block; none for a block by exit 2, which the event words), the block an event words
 * for it, and the name its records give it. Pure functions of the hook's run.
 */
import type { FiredEventName } from "../../hooks/event_table.ts";
import { HOOK_EVENTS } from "../../hooks/event_table.ts";
import { type HandlerConfig, handlerText } from "../../hooks/handler_config.ts";
import type { HookRun } from "../../hooks/hook_engine.ts";
import {
  commandReason,
  DEFAULT_BLOCK_REASON,
  NO_STDERR_OUTPUT,
} from "../../hooks/hook_messages.ts";
import type { HookOutput } from "../../hooks/hook_output.ts";
import {
  hookBlockingError,
  hookCancelled,
  type HookIdentity,
  hookNonBlockingError,
  hookSuccess,
} from "./claude_hook_attachments.ts";

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

export function outputOf(run: HookRun): HookOutput | null {
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
export function blockOf(
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
