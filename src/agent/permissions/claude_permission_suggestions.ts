/**
 * What Claude Code offers to remember when it asks about a call: PermissionRequest's
 * `permission_suggestions`. For `touch` in the project Claude Code 2.1.332 offers to add the
 * file's directory to the session's directories and to switch the session to acceptEdits, where
 * those commands run without asking (observed; Claude Code 2.1.283 offered the same for
 * `mkdir -p m7dir`, after an allow rule for the command it writes to the local settings):
 *
 *     [{"type": "addDirectories", "directories": ["<dir>"], "destination": "session"},
 *      {"type": "setMode", "mode": "acceptEdits", "destination": "session"}]
 *
 * That is offered here for a Bash command whose every part is one of the commands Claude Code's
 * acceptEdits mode lets run (`mkdir`, `touch`, `rm`, `rmdir`, `mv`, `cp`, `sed`); `<dir>` is the
 * directory of the first path the command names (the last word for `sed`, whose first is its
 * script), or the session's directory when it names none. Any other call is offered an allow
 * rule for its tool, for the session: llama-agent writes no settings file (not observed).
 */
import { dirname, resolve } from "node:path";
import type { PermissionSuggestion } from "../../hooks/payload.ts";
import { commandName, commandParts } from "../shell/command_parts.ts";

const ACCEPT_EDITS_COMMANDS: ReadonlySet<string> = new Set([
  "mkdir",
  "touch",
  "rm",
  "rmdir",
  "mv",
  "cp",
  "sed",
]);

/** `command`: a shell call's command line; undefined for any other call. */
export function claudePermissionSuggestions(
  toolName: string,
  command: string | undefined,
  cwd: string,
): PermissionSuggestion[] {
  const directory = command === undefined ? undefined : acceptEditsDirectory(command, cwd);
  if (directory === undefined) {
    return [{ type: "addRules", rules: [{ toolName }], behavior: "allow", destination: "session" }];
  }
  return [
    { type: "addDirectories", directories: [directory], destination: "session" },
    { type: "setMode", mode: "acceptEdits", destination: "session" },
  ];
}

/** The directory to offer for a command acceptEdits would run; undefined for any other. */
function acceptEditsDirectory(command: string, cwd: string): string | undefined {
  const parts = commandParts(command).filter((part) => part.words.length > 0);
  if (parts.length === 0) return undefined;
  let first: string | undefined;
  for (const part of parts) {
    const name = commandName(part.words);
    if (name === undefined || !ACCEPT_EDITS_COMMANDS.has(name)) return undefined;
    first ??= firstPath(name, part.words);
  }
  return first === undefined ? cwd : dirname(resolve(cwd, first));
}

/** The first path a command names: its first word after the name that is not an option. */
function firstPath(name: string, words: readonly string[]): string | undefined {
  const args = words.slice(words.indexOf(name) + 1).filter((word) =>
    !word.startsWith("-") && !/^[0-9]*[<>]/.test(word)
  );
  return name === "sed" ? args.at(-1) : args[0];
}
