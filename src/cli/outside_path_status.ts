/**
 * Whether a file the user named outside what llama-agent may read is there at all. Deno refuses
 * such a path before the operating system is asked, so a missing `--model` file would get the
 * advice to move it; `/bin/sh` is asked instead (`test -e`), which learns only whether the path
 * exists: nothing of the file is read.
 *
 * `missing` needs proof: the nearest existing directory above the path can be searched (or what
 * is there is no directory). A symlink counts as what it leads to, as opening it would: a
 * dangling one is missing. A directory that cannot be searched, a shell that cannot be run, or
 * an answer that is not one of the two, is `unknown`, and the caller says what it would without.
 */
import { type CommandRunner, runCommand } from "../os/process/command_runner.ts";

export type OutsidePathStatus = "present" | "missing" | "unknown";

const SCRIPT = [
  'if [ -e "$1" ]; then exit 0; fi',
  "p=$1",
  "while :; do",
  '  p=${p%/*}; [ -n "$p" ] || p=/',
  '  if [ -e "$p" ]; then',
  '    if [ ! -d "$p" ] || [ -x "$p" ]; then exit 1; fi',
  "    exit 2",
  "  fi",
  '  [ "$p" != / ] || exit 2',
  "done",
].join("\n");

/** `path` is absolute. */
export async function outsidePathStatus(
  path: string,
  run: CommandRunner = runCommand,
): Promise<OutsidePathStatus> {
  const result = await run({
    commandLine: { kind: "exec", command: "/bin/sh", args: ["-c", SCRIPT, "sh", path] },
    cwd: "/",
    env: {},
    timeoutMs: 5_000,
  });
  if (result.kind !== "exited") return "unknown";
  return result.exitCode === 0 ? "present" : result.exitCode === 1 ? "missing" : "unknown";
}
