/**
 * The one door the shell tool goes through: `<shell> -c` on the agent's machine (own process
 * group, timeout, output cap) or a client terminal (`terminal/*`), which the client shows live.
 * Both answer with values, never throw. The session's shell (shell_session.ts) chooses the
 * program and follows the directory a command ends in.
 */
import type { EnvAssignment } from "./session_env_file.ts";

/** Output kept per command, local or in a client terminal (`outputByteLimit`). */
export const DEFAULT_SHELL_OUTPUT_CAP_BYTES = 64 * 1024;

export interface ShellRunRequest {
  readonly command: string;
  /** Where the command starts: the session's current directory, absolute. */
  readonly cwd: string;
  /** The shell: `/bin/sh` when absent. */
  readonly program?: string;
  /**
   * A file the shell writes its real directory to (`pwd -P`) once the command has succeeded
   * (shell_script.ts `reportingScript`): how the session follows a `cd`. Absent: none is written.
   */
  readonly directoryReport?: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /**
   * Called once a client terminal exists, before waiting on it: the caller embeds
   * `{type: "terminal", terminalId}` in the tool call now, since a client may show a terminal
   * only while it is not yet released. Local runs never call it.
   */
  readonly onTerminal?: (terminalId: string) => void | Promise<void>;
  /**
   * What the session's SessionStart hooks wrote to their `CLAUDE_ENV_FILE`s, set over the
   * command's own environment (session_env_file.ts).
   */
  readonly sessionEnv?: readonly EnvAssignment[];
}

/** What a command printed: stdout and stderr together, in the order written where possible. */
export interface ShellOutput {
  readonly output: string;
  /** Whether output was cut to the cap (local: the start is kept; client: the end is kept). */
  readonly truncated: boolean;
  /** Bytes cut, when known (local runs only). */
  readonly omittedBytes?: number;
}

export type ShellRunResult =
  /** The command ended by itself: any exit code, or a signal we did not send. */
  | ShellOutput & {
    readonly kind: "exited";
    readonly exitCode: number | null;
    readonly signal: string | null;
    readonly durationMs: number;
    readonly terminalId?: string;
    /**
     * The directory the shell was put back in: the command ended outside the session's
     * directories (shell_session.ts). Claude Code's Bash then says `Shell cwd was reset to <it>`.
     */
    readonly cwdReset?: string;
  }
  /** We stopped it: its timeout passed, or the signal aborted. */
  | ShellOutput & {
    readonly kind: "timed_out" | "cancelled";
    readonly durationMs: number;
    readonly terminalId?: string;
  }
  /** It could not run at all (cannot spawn, the client refused the terminal, ...). */
  | {
    readonly kind: "failed";
    readonly message: string;
    readonly durationMs: number;
    readonly terminalId?: string;
  };

export interface ShellRunner {
  run(request: ShellRunRequest): Promise<ShellRunResult>;
}

/** The runner, giving every command the session's env-file variables (`sessionEnv`). */
export function withSessionEnv(
  runner: ShellRunner,
  sessionEnv: readonly EnvAssignment[],
): ShellRunner {
  if (sessionEnv.length === 0) return runner;
  return { run: (request) => runner.run({ ...request, sessionEnv }) };
}
