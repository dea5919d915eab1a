/**
 * Claude Code's Bash, as hooks and the model see it (claude-compat.md §5): stdout and stderr
 * merged into `stdout`, a non-zero exit a failed call whose text (`Exit code N\n<output>`,
 * shell_failure_text.ts) is both the model's result and PostToolUseFailure's `error`, a timeout
 * reported as exit code 143. `noOutputExpected` says whether the command prints nothing by design
 * (silent_command.ts). A command that succeeded but left the session's directories puts the shell
 * back in the session's directory (working_directory.ts); Claude Code's notice of it is `stderr`
 * (`\nShell cwd was reset to <dir>`) and follows the output in the model's text.
 */
import {
  runShellCall,
  shellCallResult,
  type ShellResultStyle,
} from "../shell/shell_call_result.ts";
import { joinLines, trimTrailingNewlines } from "../shell/shell_failure_text.ts";
import { isSilentCommand } from "../shell/silent_command.ts";
import { isRecord } from "../../hooks/json_value_at.ts";
import type { ShellRunResult } from "../shell/shell_runner.ts";
import type { ToolExecution, ToolExecutorDeps } from "./tool_kit.ts";
import type { ShellOperation } from "./tool_operation.ts";

export const NO_OUTPUT_TEXT = "(Bash completed with no output)";

/** How Bash tells a run of `command`. */
function claudeBash(command: string): ShellResultStyle {
  const noOutputExpected = isSilentCommand(command);
  return {
    notStarted: () => bashResponse("", false, noOutputExpected),
    started(result) {
      const output = withTruncationNote(trimTrailingNewlines(result.output), result);
      // Claude Code's stderr after the directory was put back: `${stderr.trim()}\n<notice>`.
      const stderr = result.kind === "exited" && result.cwdReset !== undefined
        ? `\n${cwdResetNotice(result.cwdReset)}`
        : "";
      const completedText = joinLines(output, stderr.trim());
      return {
        completedText: completedText === "" ? NO_OUTPUT_TEXT : completedText,
        failureOutput: output,
        rawOutput: bashResponse(output, result.kind === "cancelled", noOutputExpected, stderr),
      };
    },
  };
}

export function runBash(operation: ShellOperation, deps: ToolExecutorDeps): Promise<ToolExecution> {
  return runShellCall(operation, deps, claudeBash(operation.command));
}

/** What came of a run of `command`, told Claude Code's way. */
export function bashExecution(
  result: ShellRunResult,
  timeoutMs: number,
  command: string,
): ToolExecution {
  return shellCallResult(result, timeoutMs, claudeBash(command));
}

/** What Claude Code says when a command left the directories the session may work in. */
export function cwdResetNotice(directory: string): string {
  return `Shell cwd was reset to ${directory}`;
}

/** Bash's `tool_response`, key for key. */
function bashResponse(
  stdout: string,
  interrupted: boolean,
  noOutputExpected: boolean,
  stderr = "",
): Record<string, unknown> {
  return { stdout, stderr, interrupted, isImage: false, noOutputExpected };
}

/**
 * What the model reads for a Bash `tool_response` that a PostToolUse hook wrote
 * (`updatedToolOutput`), told as Claude Code tells Bash's own (claude-compat.md §5): `stdout`
 * without its leading blank lines and trailing blanks, then `stderr` trimmed, then for
 * `interrupted` the abort note; `(Bash completed with no output)` when nothing is left. Null when
 * `value` is not of Bash's shape (a string `stdout`, a string `stderr` if any).
 */
export function bashOutputText(value: unknown): string | null {
  if (!isRecord(value) || typeof value["stdout"] !== "string") return null;
  const stderr = value["stderr"] ?? "";
  if (typeof stderr !== "string") return null;
  const stdout = value["stdout"].replace(/^(\s*\n)+/, "").trimEnd();
  let error = stderr.trim();
  if (value["interrupted"] === true) {
    error += `${stderr === "" ? "" : "\n"}<error>Command was aborted before completion</error>`;
  }
  const text = [stdout, error].filter((part) => part !== "").join("\n");
  return text === "" ? NO_OUTPUT_TEXT : text;
}

function withTruncationNote(output: string, result: { truncated: boolean; omittedBytes?: number }) {
  if (!result.truncated) return output;
  const note = result.omittedBytes === undefined
    ? "[output truncated: only its end is kept]"
    : `[output truncated: ${result.omittedBytes} more bytes not shown]`;
  return joinLines(output, note);
}
