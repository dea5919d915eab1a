/**
 * What a shell command that did not succeed reads as, in every profile (hooks.md §12.1,
 * claude-compat.md §5): Claude Code's words, the same text being the model's error result and
 * PostToolUseFailure's `error`. A non-zero exit is `Exit code N` and what the command printed; a
 * signal is the exit status a shell reports for it; a timeout is exit code 143 and how long it
 * was given; a cancel says the user cancelled it. Only the `tool_response` shape differs per
 * profile, so it is not here.
 */
import type { ShellRunResult } from "./shell_runner.ts";

/** A run that started: it exited, timed out or was cancelled. */
export type StartedShellRun = Exclude<ShellRunResult, { kind: "failed" }>;

/**
 * The numbers of signals that have the same one on Linux and macOS; for another, the platform's
 * own code is used (Deno reports 128 + its number).
 */
const SIGNAL_NUMBERS: Readonly<Record<string, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGILL: 4,
  SIGTRAP: 5,
  SIGABRT: 6,
  SIGFPE: 8,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

/**
 * The failure text of a run, or null when it succeeded (it exited 0). `output` is what it
 * printed as the profile shows it: trailing newlines trimmed (`trimTrailingNewlines`), any
 * truncation note after it.
 */
export function shellFailureText(
  result: StartedShellRun,
  output: string,
  timeoutMs: number,
): string | null {
  switch (result.kind) {
    case "exited": {
      const code = exitStatus(result.exitCode, result.signal);
      return code === 0 ? null : joinLines(`Exit code ${code}`, output);
    }
    case "timed_out":
      return joinLines("Exit code 143", output, `Command timed out after ${seconds(timeoutMs)}`);
    case "cancelled":
      return joinLines(output, "Command was cancelled by the user");
    default:
      return result satisfies never;
  }
}

/** The status a shell would report: the exit code, or 128 + the signal's number. */
export function exitStatus(code: number | null, signal: string | null): number {
  if (signal !== null) {
    const number = SIGNAL_NUMBERS[signal];
    if (number !== undefined) return 128 + number;
    return code !== null && code > 128 ? code : 128;
  }
  // Neither known (a client terminal that did not say): not a success.
  return code ?? 1;
}

export function trimTrailingNewlines(output: string): string {
  return output.replace(/[\r\n]+$/, "");
}

/** The non-empty parts, one per line. */
export function joinLines(...parts: string[]): string {
  return parts.filter((part) => part !== "").join("\n");
}

/** `1s`, `1.5s`: how Claude Code words a timeout. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
