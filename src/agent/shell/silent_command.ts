/**
 * Whether a shell command prints nothing by design when it succeeds (`touch`, `mkdir`, `mv`):
 * Bash's `tool_response.noOutputExpected` in the `claude` profile. Claude Code 2.1.332 sends
 * `true` for `touch x` and `false` for `echo changed > ext.txt` (observed); the rule between is
 * its published source's `isSilentBashCommand`, followed here:
 *
 * - the line is split at `&&`, `||`, `|` and `;` (newlines too), outside quotes;
 * - each part's command is its first word (quotes removed, leading redirections skipped);
 * - a neutral command (`echo`, `printf`, `true`, `false`, `:`) after `||` is a fallback and
 *   does not count (`mkdir x || true`);
 * - every other part must run one of the silent commands, and at least one must: `true`.
 *
 * Anything else (a background `&`, a subshell, an assignment before the command) is not silent,
 * as there.
 */

import { commandName, commandParts } from "./command_parts.ts";

const SILENT_COMMANDS: ReadonlySet<string> = new Set([
  "mv",
  "cp",
  "rm",
  "mkdir",
  "rmdir",
  "chmod",
  "chown",
  "chgrp",
  "touch",
  "ln",
  "cd",
  "export",
  "unset",
  "wait",
]);

/** Commands that only say something: after `||` they are a fallback, not the work. */
const FALLBACK_COMMANDS: ReadonlySet<string> = new Set(["echo", "printf", "true", "false", ":"]);

export function isSilentCommand(command: string): boolean {
  let sawCommand = false;
  for (const part of commandParts(command)) {
    const name = commandName(part.words);
    if (name === undefined) continue;
    if (part.after === "||" && FALLBACK_COMMANDS.has(name)) continue;
    sawCommand = true;
    if (!SILENT_COMMANDS.has(name)) return false;
  }
  return sawCommand;
}
