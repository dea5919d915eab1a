/**
 * The llama profile's `shell`, as hooks and the model see it. A command that exits 0 completed:
 * the model reads what it printed, as printed. Anything else is a failed call, as in Claude Code
 * (hooks.md §12.1): a non-zero exit, a signal, a timeout or a cancel reads as Claude Code words it
 * (shell_failure_text.ts), and that text is both the model's error result and
 * PostToolUseFailure's `error`. The `tool_response` is the llama profile's own shape: the merged
 * output in `stdout`, the exit code and signal, whether it was cut or stopped, how long it took.
 */
import {
  runShellCall,
  shellCallResult,
  type ShellResultStyle,
} from "../shell/shell_call_result.ts";
import { joinLines, trimTrailingNewlines } from "../shell/shell_failure_text.ts";
import type { ShellRunResult } from "../shell/shell_runner.ts";
import { failedExecution, type ToolExecution, type ToolExecutorDeps } from "./tool_kit.ts";
import type { ShellOperation } from "./tool_operation.ts";
import { isRecord } from "../../hooks/json_value_at.ts";

export const NO_OUTPUT_TEXT = "(no output)";

const LLAMA_SHELL: ShellResultStyle = {
  notStarted: (message) => failedExecution(message).rawOutput,
  started(result) {
    const notes = result.truncated ? [truncationNote(result.omittedBytes)] : [];
    const stopped = result.kind !== "exited";
    return {
      completedText: withNotes(result.output || NO_OUTPUT_TEXT, notes),
      failureOutput: joinLines(trimTrailingNewlines(result.output), ...notes),
      rawOutput: {
        stdout: result.output,
        stderr: "",
        interrupted: stopped,
        truncated: result.truncated,
        durationMs: result.durationMs,
        exitCode: stopped ? null : result.exitCode,
        signal: stopped ? null : result.signal,
      },
    };
  },
};

export function runShell(
  operation: ShellOperation,
  deps: ToolExecutorDeps,
): Promise<ToolExecution> {
  return runShellCall(operation, deps, LLAMA_SHELL);
}

/** What came of a run, told the llama profile's way. */
export function shellExecution(result: ShellRunResult, timeoutMs: number): ToolExecution {
  return shellCallResult(result, timeoutMs, LLAMA_SHELL);
}

/**
 * What the model reads for a `shell` `tool_response` that a PostToolUse hook wrote
 * (`updatedToolOutput`), told as the shell tells its own: `stdout` as printed, a `stderr` the
 * hook gave after it on a line of its own, `(no output)` when both are empty. Null when `value`
 * is not of the shell's shape (a string `stdout`, a string `stderr` if any).
 */
export function shellOutputText(value: unknown): string | null {
  if (!isRecord(value) || typeof value["stdout"] !== "string") return null;
  const stderr = value["stderr"] ?? "";
  if (typeof stderr !== "string") return null;
  const stdout = value["stdout"];
  const text = stderr === "" ? stdout : joinLines(trimTrailingNewlines(stdout), stderr);
  return text === "" ? NO_OUTPUT_TEXT : text;
}

function truncationNote(omittedBytes: number | undefined): string {
  return omittedBytes === undefined
    ? "[output truncated: only its end is shown]"
    : `[output truncated: ${omittedBytes} more bytes not shown]`;
}

function withNotes(body: string, notes: readonly string[]): string {
  if (notes.length === 0) return body;
  const separator = body.endsWith("\n") ? "" : "\n";
  return body + separator + notes.join("\n");
}
