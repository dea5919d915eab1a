/**
 * Claude Code's Bash, as hooks and the model see it (claude-compat.md §5): stdout and stderr
 * merged into `stdout`, a non-zero exit a failed call whose text (`Exit code N\n<output>`,
 * shell_failure_text.ts) is both the model's result and PostToolUseFailure's `error`, a timeout
 * reported as exit code 143.
 */
import { runShellCall, shellCallResult, type ShellResultStyle } from "./shell_call_result.ts";
import { joinLines, trimTrailingNewlines } from "./shell_failure_text.ts";
import type { ShellRunResult } from "./shell_runner.ts";
import type { ToolExecution, ToolExecutorDeps } from "./tool_kit.ts";
import type { ShellOperation } from "./tool_operation.ts";

export const NO_OUTPUT_TEXT = "(Bash completed with no output)";

const CLAUDE_BASH: ShellResultStyle = {
  notStarted: () => bashResponse("", false),
  started(result) {
    const output = withTruncationNote(trimTrailingNewlines(result.output), result);
    return {
      completedText: output === "" ? NO_OUTPUT_TEXT : output,
      failureOutput: output,
      rawOutput: bashResponse(output, result.kind === "cancelled"),
    };
  },
};

export function runBash(operation: ShellOperation, deps: ToolExecutorDeps): Promise<ToolExecution> {
  return runShellCall(operation, deps, CLAUDE_BASH);
}

/** What came of a run, told Claude Code's way. */
export function bashExecution(result: ShellRunResult, timeoutMs: number): ToolExecution {
  return shellCallResult(result, timeoutMs, CLAUDE_BASH);
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
