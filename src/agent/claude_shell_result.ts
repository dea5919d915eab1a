/**
 * Claude Code's Bash, as hooks and the model see it (claude-compat.md §5): stdout and stderr
 * merged into `stdout`, a non-zero exit a failed call whose text (`Exit code N\n<output>`) is both
 * the model's result and PostToolUseFailure's `error`, a timeout reported as exit code 143.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { ShellRunResult } from "./shell_runner.ts";
import { textContent as text, type ToolExecution, type ToolExecutorDeps } from "./tool_kit.ts";
import type { ShellOperation } from "./tool_operation.ts";

export const NO_OUTPUT_TEXT = "(Bash completed with no output)";

/** The exit status a shell reports for a process killed by a signal (128 + its number). */
const SIGNAL_NUMBERS: Readonly<Record<string, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

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
  // A client terminal already shows the output; locally, the text is all there is.
  const content = (modelText: string) => terminal.length > 0 ? terminal : [text(modelText)];
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
  switch (result.kind) {
    case "exited": {
      const code = exitCode(result.exitCode, result.signal);
      if (code === 0) {
        const modelText = output === "" ? NO_OUTPUT_TEXT : output;
        return {
          status: "completed",
          modelText,
          content: content(modelText),
          rawOutput: bashResponse(output, false),
          interrupted: false,
        };
      }
      const modelText = joinLines(`Exit code ${code}`, output);
      return {
        status: "failed",
        modelText,
        content: content(modelText),
        rawOutput: bashResponse(output, false),
        interrupted: false,
      };
    }
    case "timed_out": {
      const modelText = joinLines(
        "Exit code 143",
        output,
        `Command timed out after ${seconds(timeoutMs)}`,
      );
      return {
        status: "failed",
        modelText,
        content: [...terminal, text(modelText)],
        rawOutput: bashResponse(output, false),
        interrupted: false,
      };
    }
    case "cancelled": {
      const modelText = joinLines(output, "Command was cancelled by the user");
      return {
        status: "failed",
        modelText,
        content: [...terminal, text(modelText)],
        rawOutput: bashResponse(output, true),
        interrupted: true,
      };
    }
    default:
      return result satisfies never;
  }
}

/** Bash's `tool_response`, key for key. */
function bashResponse(stdout: string, interrupted: boolean): Record<string, unknown> {
  return { stdout, stderr: "", interrupted, isImage: false, noOutputExpected: false };
}

function exitCode(code: number | null, signal: string | null): number {
  if (signal !== null) return 128 + (SIGNAL_NUMBERS[signal] ?? 0);
  return code ?? 1;
}

function trimTrailingNewlines(output: string): string {
  return output.replace(/[\r\n]+$/, "");
}

function withTruncationNote(output: string, result: { truncated: boolean; omittedBytes?: number }) {
  if (!result.truncated) return output;
  const note = result.omittedBytes === undefined
    ? "[output truncated: only its end is kept]"
    : `[output truncated: ${result.omittedBytes} more bytes not shown]`;
  return joinLines(output, note);
}

function joinLines(...parts: string[]): string {
  return parts.filter((part) => part !== "").join("\n");
}

/** `1s`, `1.5s`: how Claude Code words a timeout. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
