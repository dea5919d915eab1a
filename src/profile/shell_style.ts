/**
 * How a profile's shell tool runs a command, as data the session's shell reads
 * (src/agent/shell/shell_session.ts).
 *
 * - `claude`: Claude Code's Bash. Each command runs in a shell of its own, bash where there is
 *   one (`/bin/sh` otherwise), and a `cd` carries over: the directory a command that succeeded
 *   ended in is where the next one starts, and the `cwd` hooks see, as long as it lies in the
 *   session's directories (its `cwd` and `additionalDirectories`). Out of them, the shell is put
 *   back in the session's directory and the model reads `Shell cwd was reset to <dir>`.
 * - `llama`: the source document's shell tool, `/bin/sh -c` in the session's directory, every
 *   call alike: what its tool description and hooks' `cwd` promise.
 */

/** `bash`: bash where there is one, `/bin/sh` otherwise; `sh`: `/bin/sh`. */
export type ShellChoice = "bash" | "sh";

export interface ShellStyle {
  readonly shell: ShellChoice;
  /** Whether a command's `cd` carries over to the next command and to hooks' `cwd`. */
  readonly keepsDirectory: boolean;
}

export const LLAMA_SHELL_STYLE: ShellStyle = { shell: "sh", keepsDirectory: false };
export const CLAUDE_SHELL_STYLE: ShellStyle = { shell: "bash", keepsDirectory: true };
