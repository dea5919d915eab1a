/**
 * Claude Code's Bash, as hooks and the model see it (claude-compat.md §5): stdout and stderr
 * merged into `stdout`, a non-zero exit a failed call whose text (`Exit code N\n<output>`,
 * shell_failure_text.ts) is both the model's result and PostToolUseFailure's `error`, a timeout
 * reported as exit code 143.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { joinLines, shellFailureText, trimTrailingNewlines } from "./shell_failure_text.ts";
import type { ShellRunResult } from "./shell_runner.ts";
import { textContent as text, type ToolExecution, type ToolExecutorDeps } from "./tool_kit.ts";
import type { ShellOperation } from "./tool_operation.ts";

export const NO_OUTPUT_TEXT = "(Bash completed with no output)";

export async function runBash(
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
  return bashExecution(result, operation.timeoutMs);
}

/** What came of a run, told Claude Code's way. */
export function bashExecution(result: ShellRunResult, timeoutMs: number): ToolExecution {
  const terminal: ToolCallContent[] = result.terminalId === undefined
    ? []
    : [{ type: "terminal", terminalId: result.terminalId }];
  if (result.kind === "failed") {
    return {
      status: "failed",
      modelText: result.message,
      content: [...terminal, text(result.message)],
      rawOutput: bashResponse("", false),
      interrupted: false,
    };
  }
  const output = withTruncationNote(trimTrailingNewlines(result.output), result);
  const interrupted = result.kind === "cancelled";
  const failure = shellFailureText(result, output, timeoutMs);
  if (failure === null) {
    const modelText = output === "" ? NO_OUTPUT_TEXT : output;
    return {
      status: "completed",
      modelText,
      // A client terminal already shows the output; locally, the text is all there is.
      content: terminal.length > 0 ? terminal : [text(modelText)],
      rawOutput: bashResponse(output, false),
      interrupted: false,
    };
  }
  return {
    status: "failed",
    modelText: failure,
    // A terminal shows what was printed, not why the command stopped (a timeout, a cancel).
    content: terminal.length > 0 && result.kind === "exited"
      ? terminal
      : [...terminal, text(failure)],
    rawOutput: bashResponse(output, interrupted),
    interrupted,
  };
}

/** Bash's `tool_response`, key for key. */
function bashResponse(stdout: string, interrupted: boolean): Record<string, unknown> {
  return { stdout, stderr: "", interrupted, isImage: false, noOutputExpected: false };
}

function withTruncationNote(output: string, result: { truncated: boolean; omittedBytes?: number }) {
  if (!result.truncated) return output;
  const note = result.omittedBytes === undefined
    ? "[output truncated: only its end is kept]"
    : `[output truncated: ${result.omittedBytes} more bytes not shown]`;
  return joinLines(output, note);
}
