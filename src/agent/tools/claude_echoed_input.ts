/**
 * A Claude Code tool call's input as the next request to the model echoes it back: what
 * PostToolBatch's `tool_calls[].tool_input` shows (claude-compat.md §0.3), not the parsed input
 * Pre- and PostToolUse see. Claude Code rebuilds two tools' input before it stores the call:
 *
 * - Bash: `command`, `description`, `timeout`, `run_in_background`, `dangerouslyDisableSandbox`,
 *   in that order, each only when given; a leading `cd <cwd> && ` is dropped and `\\;` reads
 *   `\;`;
 * - Edit: `replace_all` first (its default `false` filled in), then `file_path`, `old_string`,
 *   `new_string`.
 *
 * Every other tool's input is echoed as the model sent it (a relative Read path stays relative).
 * Observed on 2.1.332: Edit's `{"replace_all":false,"file_path",…}`, Bash's
 * `{command,description,timeout}` for a call sent as `{command,timeout,description}`, Read's
 * relative path. The `cd` prefix, the `\\;` and the place of the last two Bash keys are from
 * Claude Code's published source (`normalizeToolInput`), not observed.
 *
 * Only for an input that passed the tool's check: a refused call is echoed as sent.
 */
import { isRecord } from "../../hooks/json_value_at.ts";
import type { ToolCapability } from "../../profile/tool_identity.ts";

const BASH_KEYS = [
  "description",
  "timeout",
  "run_in_background",
  "dangerouslyDisableSandbox",
] as const;

export function claudeEchoedInput(
  capability: ToolCapability,
  input: unknown,
  cwd: string,
): unknown {
  if (!isRecord(input)) return input;
  switch (capability) {
    case "shell":
      return echoedBash(input, cwd);
    case "fs_edit":
      return {
        replace_all: input["replace_all"] ?? false,
        file_path: input["file_path"],
        old_string: input["old_string"],
        new_string: input["new_string"],
      };
    case "fs_read":
    case "fs_write":
    case "fs_glob":
    case "fs_grep":
      return input;
    default:
      return capability satisfies never;
  }
}

function echoedBash(input: Readonly<Record<string, unknown>>, cwd: string): unknown {
  const command = input["command"];
  if (typeof command !== "string") return input;
  const lead = `cd ${cwd} && `;
  // Only a leading cd is the one Claude Code adds: the same text later in a command is the model's.
  const unled = command.startsWith(lead) ? command.slice(lead.length) : command;
  const echoed: Record<string, unknown> = { command: unled.replaceAll("\\\\;", "\\;") };
  for (const key of BASH_KEYS) {
    if (input[key] !== undefined) echoed[key] = input[key];
  }
  return echoed;
}
