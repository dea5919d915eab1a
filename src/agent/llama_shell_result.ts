/**
 * The llama profile's `shell`, as hooks and the model see it. A command that exits 0 completed:
 * the model reads what it printed, as printed. Anything else is a failed call, as in Claude Code
 * (hooks.md §12.1): a non-zero exit, a signal, a timeout or a cancel reads as Claude Code words it
 * (shell_failure_text.ts), and that text is both the model's error result and
 * PostToolUseFailure's `error`. The `tool_response` is the llama profile's own shape: the merged
 * output in `stdout`, the exit code and signal, whether it was cut or stopped, how long it took.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { joinLines, shellFailureText, trimTrailingNewlines } from "./shell_failure_text.ts";
import type { ShellRunResult } from "./shell_runner.ts";
import {
  failedExecution,
  textContent as text,
  type ToolExecution,
  type ToolExecutorDeps,
} from "./tool_kit.ts";
import type { ShellOperation } from "./tool_operation.ts";

export const NO_OUTPUT_TEXT = "(no output)";

export async function runShell(
  operation: ShellOperation,
  deps: ToolExecutorDeps,
): Promise<ToolExecution> {
  const result = await deps.shell.run({
    command: operation.command,
    cwd: deps.cwd,
    timeoutMs: operation.timeoutMs,
    signal: deps.signal,
    onTerminal: deps.onTerminal,
  });
  return shellExecution(result, operation.timeoutMs);
}

/** What came of a run, told the llama profile's way. */
export function shellExecution(result: ShellRunResult, timeoutMs: number): ToolExecution {
  const terminal: ToolCallContent[] = result.terminalId === undefined
    ? []
    : [{ type: "terminal", terminalId: result.terminalId }];
  if (result.kind === "failed") {
    return { ...failedExecution(result.message), content: [...terminal, text(result.message)] };
  }
  const notes = result.truncated ? [truncationNote(result.omittedBytes)] : [];
  const stopped = result.kind !== "exited";
  const rawOutput = {
    stdout: result.output,
    stderr: "",
    interrupted: stopped,
    truncated: result.truncated,
    durationMs: result.durationMs,
    exitCode: stopped ? null : result.exitCode,
    signal: stopped ? null : result.signal,
  };
  const failure = shellFailureText(
    result,
    joinLines(trimTrailingNewlines(result.output), ...notes),
    timeoutMs,
  );
  if (failure === null) {
    const modelText = withNotes(result.output || NO_OUTPUT_TEXT, notes);
    return {
      status: "completed",
      modelText,
      // A client terminal already shows the output; locally, the text is all there is.
      content: terminal.length > 0 ? terminal : [text(modelText)],
      rawOutput,
      interrupted: false,
    };
  }
  return {
    status: "failed",
    modelText: failure,
    // A terminal shows what was printed, not why the command stopped (a timeout, a cancel).
    content: terminal.length > 0 && !stopped ? terminal : [...terminal, text(failure)],
    rawOutput,
    interrupted: result.kind === "cancelled",
  };
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
