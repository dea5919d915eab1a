/**
 * The shell tool on the agent's machine, for clients without the terminal capability. It reuses
 * the hooks' bounded runner (`runCommand`), so a command gets what a hook gets: `<shell> -c` (the
 * request's program, `/bin/sh` by default), its own process group, a timeout and a cancel that end the whole group, capped output, and no
 * stdin (a command waiting for input sees EOF instead of hanging the turn).
 *
 * Choices:
 * - stdout and stderr are merged by the shell itself (`exec 2>&1` before the command), so the
 *   model reads them interleaved as a terminal would show them; anything the shell prints before
 *   that runs (a syntax error in the command) comes from stderr and is appended.
 * - The environment is the agent's own, unchanged by default: the command runs as the user's
 *   terminal would run it (PATH, HOME, proxies, toolchains), plus what SessionStart hooks wrote
 *   to their `CLAUDE_ENV_FILE`s.
 * - Output past the cap (64 KiB by default) is read and discarded; the start is kept.
 * - Background processes (`server &`) do not outlive the call: once the shell exits, the group is
 *   ended after a short drain, as for hooks.
 * - The SIGTERM-to-SIGKILL grace is short (250 ms): a cancel must end the turn promptly.
 */
import { type CommandRunner, runCommand } from "../../os/process/command_runner.ts";
import { applyEnvAssignments } from "./session_env_file.ts";
import { reportingScript } from "./shell_script.ts";
import {
  DEFAULT_SHELL_OUTPUT_CAP_BYTES,
  type ShellRunner,
  type ShellRunRequest,
  type ShellRunResult,
} from "./shell_runner.ts";

export const DEFAULT_SHELL_KILL_GRACE_MS = 250;
/** Only the shell's own messages can reach stderr after the merge; keep a little of them. */
const STDERR_CAP_BYTES = 8 * 1024;
/** On the command's own line, so the shell's line numbers in error messages stay right. */
const MERGE_STDERR = "exec 2>&1; ";

export interface LocalShellRunnerOptions {
  /** The command's whole environment; the agent's own when absent. */
  readonly env?: Readonly<Record<string, string>>;
  readonly outputCapBytes?: number;
  readonly killGraceMs?: number;
  /** The process runner; `runCommand` unless a test swaps it. */
  readonly runner?: CommandRunner;
}

export class LocalShellRunner implements ShellRunner {
  constructor(private readonly options: LocalShellRunnerOptions = {}) {}

  async run(request: ShellRunRequest): Promise<ShellRunResult> {
    const runner = this.options.runner ?? runCommand;
    const script = request.directoryReport === undefined
      ? request.command
      : reportingScript(request.command, request.directoryReport);
    const result = await runner({
      commandLine: {
        kind: "shell",
        command: MERGE_STDERR + script,
        ...(request.program === undefined ? {} : { program: request.program }),
      },
      cwd: request.cwd,
      env: applyEnvAssignments(this.options.env ?? Deno.env.toObject(), request.sessionEnv ?? []),
      timeoutMs: request.timeoutMs,
      signal: request.signal,
      stdoutCapBytes: this.options.outputCapBytes ?? DEFAULT_SHELL_OUTPUT_CAP_BYTES,
      stderrCapBytes: STDERR_CAP_BYTES,
      killGraceMs: this.options.killGraceMs ?? DEFAULT_SHELL_KILL_GRACE_MS,
    });
    switch (result.kind) {
      case "spawn_failed":
        // The message quotes the command line; the model should see its own command.
        return {
          kind: "failed",
          message: result.message.replace(MERGE_STDERR + script, request.command),
          durationMs: result.durationMs,
        };
      case "exited":
        return {
          kind: "exited",
          exitCode: result.exitCode,
          signal: result.signal,
          ...combine(result.stdout, result.stderr),
          durationMs: result.durationMs,
        };
      case "timed_out":
      case "cancelled":
        return {
          kind: result.kind,
          ...combine(result.stdout, result.stderr),
          durationMs: result.durationMs,
        };
      default:
        return result satisfies never;
    }
  }
}

function combine(
  stdout: { readonly text: string; readonly discardedBytes: number },
  stderr: { readonly text: string; readonly discardedBytes: number },
) {
  const separator = stdout.text !== "" && stderr.text !== "" && !stdout.text.endsWith("\n")
    ? "\n"
    : "";
  const omittedBytes = stdout.discardedBytes + stderr.discardedBytes;
  return {
    output: stdout.text + separator + stderr.text,
    truncated: omittedBytes > 0,
    ...(omittedBytes > 0 ? { omittedBytes } : {}),
  };
}
