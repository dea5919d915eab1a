/**
 * The script a shell runs for a command whose directory the session follows (shell_session.ts),
 * as Claude Code builds it: `eval '<command>' && pwd -P >| '<report>'`. `eval` runs the command in
 * the shell itself, so a `cd` in it moves the shell; the command is one quoted word, so nothing in
 * it (a trailing comment, an unbalanced quote, a syntax error) reaches the part after it. The
 * directory is written only when the command succeeded, so a failed, timed-out or cancelled
 * command leaves the session where it was, as in Claude Code; it goes to a file and not to the
 * output, so the output is exactly the command's, in a local run and in a client's terminal.
 */

/** `text` as one shell word: single-quoted, each `'` as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The script that runs `command`, then writes the shell's real directory to `report`. */
export function reportingScript(command: string, report: string): string {
  return `eval ${shellQuote(command)} && pwd -P >| ${shellQuote(report)}`;
}

const REPORTING_SCRIPT = /^eval '((?:[^']|'\\'')*)' && pwd -P >\| '(?:[^']|'\\'')*'$/;

/** The command inside a script `reportingScript` built; the script itself otherwise. */
export function commandOfScript(script: string): string {
  const match = REPORTING_SCRIPT.exec(script);
  return match === null ? script : match[1]!.replaceAll(`'\\''`, "'");
}

/**
 * The directory a report holds: `pwd -P`'s line, an absolute path; undefined for anything else
 * (a file the command wrote over).
 */
export function reportedDirectory(text: string): string | undefined {
  const path = text.endsWith("\n") ? text.slice(0, -1) : text;
  return path.startsWith("/") && !path.includes("\n") && !path.includes("\0") ? path : undefined;
}
