/**
 * Which program runs a shell command (the profile's `ShellChoice`, shell_style.ts): `/bin/sh`, or
 * bash where there is one. Claude Code runs its Bash tool with the `$SHELL` it is started with
 * when that is bash (or zsh), else the first bash or zsh it finds on the usual paths and `PATH`;
 * the `claude` profile takes bash the same way (never zsh: its commands are written for bash),
 * and `/bin/sh` where there is none.
 *
 * The agent's runtime may not read `/bin` or `/usr` (Deno's grant covers the launch directory and
 * `$HOME`), so `/bin/sh` is asked, once per `$SHELL` and `PATH`: `[ -x ]` on each candidate, then
 * `command -v bash`.
 */
import { basename } from "node:path";
import { type CommandRunner, runCommand } from "../../os/process/command_runner.ts";
import type { ShellChoice } from "../../profile/shell_style.ts";

export const SH = "/bin/sh";

/** Where bash lives on Linux and macOS (Homebrew's last), after `$SHELL` when that is bash. */
const BASH_PATHS = ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"];

/** Prints the first executable candidate, else bash on `PATH`; exits 1 when there is none. */
const PROBE = 'for p do [ -f "$p" ] && [ -x "$p" ] && { printf "%s\\n" "$p"; exit 0; }; done; ' +
  'p=$(command -v bash) && case $p in /*) printf "%s\\n" "$p"; exit 0;; esac; exit 1';

const PROBE_TIMEOUT_MS = 5_000;

const found = new Map<string, Promise<string>>();

/**
 * The program for `choice` in an environment (`SHELL` and `PATH` are read from it); `/bin/sh`
 * when bash is nowhere, or the question could not be asked.
 */
export function shellProgram(
  choice: ShellChoice,
  env: Readonly<Record<string, string | undefined>>,
  runner: CommandRunner = runCommand,
): Promise<string> {
  switch (choice) {
    case "sh":
      return Promise.resolve(SH);
    case "bash": {
      const candidates = bashCandidates(env.SHELL);
      const path = env.PATH ?? "/usr/bin:/bin";
      const key = JSON.stringify([candidates, path]);
      let program = found.get(key);
      if (program === undefined) {
        program = findBash(candidates, path, runner);
        found.set(key, program);
      }
      return program;
    }
    default:
      return choice satisfies never;
  }
}

/** `$SHELL` first when it is a bash, then the usual paths, each once. */
function bashCandidates(shell: string | undefined): string[] {
  const preferred = shell !== undefined && shell.startsWith("/") && basename(shell) === "bash"
    ? [shell]
    : [];
  return [...new Set([...preferred, ...BASH_PATHS])];
}

async function findBash(
  candidates: readonly string[],
  path: string,
  runner: CommandRunner,
): Promise<string> {
  const result = await runner({
    commandLine: { kind: "exec", command: SH, args: ["-c", PROBE, "sh", ...candidates] },
    cwd: "/",
    env: { PATH: path },
    timeoutMs: PROBE_TIMEOUT_MS,
    stdoutCapBytes: 4096,
    stderrCapBytes: 4096,
  });
  if (result.kind !== "exited" || result.exitCode !== 0) return SH;
  const program = result.stdout.text.replace(/\n$/, "");
  return program.startsWith("/") && !program.includes("\n") ? program : SH;
}
