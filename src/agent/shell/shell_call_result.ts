/**
 * A shell tool's call in every profile: the command run through the session's shell runner, and
 * what came of it as the call's result. A command that exits 0 completed; anything else is a
 * failed call whose text is Claude Code's (shell_failure_text.ts), both the model's result and
 * PostToolUseFailure's `error`. What a profile tells its own way (the text of a success, how the
 * failure text quotes the output, the `tool_response`) is its `ShellResultStyle`.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { shellFailureText, type StartedShellRun } from "./shell_failure_text.ts";
import type { ShellRunResult } from "./shell_runner.ts";
import {
  textContent as text,
  type ToolExecution,
  type ToolExecutorDeps,
} from "../tools/tool_kit.ts";
import type { ShellOperation } from "../tools/tool_operation.ts";

/** How one profile tells a shell run. */
export interface ShellResultStyle {
  /** The `tool_response` of a command that could not start (`message` says why). */
  readonly notStarted: (message: string) => ToolExecution["rawOutput"];
  /** What the profile shows of a run that started. */
  readonly started: (result: StartedShellRun) => StartedRunText;
}

export interface StartedRunText {
  /** What the model reads when the command exited 0. */
  readonly completedText: string;
  /** The output as a failure's text quotes it: trailing newlines trimmed, any truncation note after. */
  readonly failureOutput: string;
  readonly rawOutput: ToolExecution["rawOutput"];
}

export async function runShellCall(
  operation: ShellOperation,
  deps: ToolExecutorDeps,
  style: ShellResultStyle,
): Promise<ToolExecution> {
  const result = await deps.shell.run({
    command: operation.command,
    cwd: deps.cwd,
    timeoutMs: operation.timeoutMs,
    signal: deps.signal,
    onTerminal: deps.onTerminal,
  });
  return shellCallResult(result, operation.timeoutMs, style);
}

/** What came of a run, told in `style`. */
export function shellCallResult(
  result: ShellRunResult,
  timeoutMs: number,
  style: ShellResultStyle,
): ToolExecution {
  const terminal: ToolCallContent[] = result.terminalId === undefined
    ? []
    : [{ type: "terminal", terminalId: result.terminalId }];
  if (result.kind === "failed") {
    return {
      status: "failed",
      modelText: result.message,
      content: [...terminal, text(result.message)],
      rawOutput: style.notStarted(result.message),
      interrupted: false,
    };
  }
  const shown = style.started(result);
  const failure = shellFailureText(result, shown.failureOutput, timeoutMs);
  if (failure === null) {
    return {
      status: "completed",
      modelText: shown.completedText,
      // A client terminal already shows the output; locally, the text is all there is.
      content: terminal.length > 0 ? terminal : [text(shown.completedText)],
      rawOutput: shown.rawOutput,
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
    rawOutput: shown.rawOutput,
    interrupted: result.kind === "cancelled",
  };
}
