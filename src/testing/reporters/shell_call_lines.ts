/**
 * How every reporter shows a session case's shell commands: each one answered by the scripted
 * terminal (nothing ran) or run for real in the case's copy of the project (`execute`), so a
 * report never leaves a reader guessing whether a command that got through really ran.
 */
import type { ShellCall } from "../scenarios/case_result.ts";

/** Characters of a command shown before it is cut. */
const MAX_COMMAND_CHARS = 200;

export function shellCallLines(calls: readonly ShellCall[] | undefined): string[] {
  return (calls ?? []).map((call) => {
    const how = call.executed ? "ran in the case's copy" : "answered, not run";
    const ended = call.exitCode === null ? "stopped" : `exit ${call.exitCode}`;
    return `shell ${how}: ${oneLine(call.command)} → ${ended}`;
  });
}

/** A command on one line: a report line must not break, whatever the command holds. */
function oneLine(command: string): string {
  const flat = command.replaceAll("\r", "\\r").replaceAll("\n", "\\n");
  return flat.length > MAX_COMMAND_CHARS ? `${flat.slice(0, MAX_COMMAND_CHARS)}…` : flat;
}
