/**
 * The `claude` profile's tools as offered to the model: Claude Code's names and input schemas
 * (claude-compat.md §0.1, §0.3), so a model's calls look to hooks as Claude Code's do. The
 * descriptions are our own words for what our implementation does.
 */
import type { ToolDefinition } from "../model/model.ts";
import { DEFAULT_SHELL_TIMEOUT_MS, MAX_SHELL_TIMEOUT_MS } from "./tool_input.ts";

/** Lines a Read returns when the model gives no `limit`. */
export const DEFAULT_READ_LIMIT = 2000;
/** Paths a Glob lists at most. */
export const GLOB_RESULT_LIMIT = 100;

const string = (description: string) => ({ type: "string", description });
const number = (description: string) => ({ type: "number", description });
const boolean = (description: string) => ({ type: "boolean", description });

function tool(
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[],
): ToolDefinition {
  return {
    name,
    description,
    inputSchema: { type: "object", properties, required, additionalProperties: false },
  };
}

export function claudeToolDefinitions(): ToolDefinition[] {
  return [
    tool(
      "Bash",
      "Runs a command with /bin/sh in the session's working directory and returns what it " +
        "printed (stdout and stderr together). A non-zero exit status is reported as an error " +
        "with its code. Use it for builds, tests, git and other programs; prefer Read, Glob " +
        "and Grep to look at files.",
      {
        command: string("The command line to run."),
        timeout: number(
          `Milliseconds before the command is stopped (default ${DEFAULT_SHELL_TIMEOUT_MS}, ` +
            `at most ${MAX_SHELL_TIMEOUT_MS}).`,
        ),
        description: string("A few words on what the command does, shown to the user."),
        run_in_background: boolean(
          "Asks for the command to run in the background. Here it runs to completion first.",
        ),
        dangerouslyDisableSandbox: boolean("Accepted for compatibility; has no effect here."),
      },
      ["command"],
    ),
    tool(
      "Read",
      "Returns a text file's lines, each prefixed with its line number and a tab. Reads the " +
        `first ${DEFAULT_READ_LIMIT} lines unless offset and limit pick others. Read a file ` +
        "before changing it with Write or Edit.",
      {
        file_path: string("The file, preferably as an absolute path."),
        offset: number("The line number to start at (1 is the first line)."),
        limit: number("How many lines to return."),
      },
      ["file_path"],
    ),
    tool(
      "Write",
      "Replaces a file's whole content, or creates the file and any missing directories. " +
        "For a small change to an existing file, Edit is better.",
      {
        file_path: string("The file, preferably as an absolute path."),
        content: string("The file's complete new content."),
      },
      ["file_path", "content"],
    ),
    tool(
      "Edit",
      "Replaces an exact piece of a file's text with new text. The piece must occur exactly " +
        "once (include enough surrounding lines) unless replace_all is true. An empty " +
        "old_string creates a file that does not exist yet.",
      {
        file_path: string("The file, preferably as an absolute path."),
        old_string: string("The exact text to replace, whitespace and indentation included."),
        new_string: string("The text to put in its place; must differ from old_string."),
        replace_all: boolean("Replace every occurrence instead of exactly one (default false)."),
      },
      ["file_path", "old_string", "new_string"],
    ),
    tool(
      "Glob",
      "Lists the files whose paths match a glob pattern such as **/*.ts or src/**/test_*.py, " +
        `at most ${GLOB_RESULT_LIMIT} of them.`,
      {
        pattern: string("The glob pattern to match paths against."),
        path: string("The directory to search in (default: the working directory)."),
      },
      ["pattern"],
    ),
    tool(
      "Grep",
      "Searches file contents for a regular expression. By default it lists the files that " +
        'match; output_mode "content" shows the matching lines and "count" counts matches ' +
        "per file.",
      {
        pattern: string("The regular expression to search for."),
        path: string("A file or directory to search (default: the working directory)."),
        glob: string("Only search files whose paths match this glob, e.g. *.ts."),
        output_mode: {
          type: "string",
          enum: ["content", "files_with_matches", "count"],
          description: "What to return (default files_with_matches).",
        },
        "-B": number("Lines of context before each match (content mode)."),
        "-A": number("Lines of context after each match (content mode)."),
        "-C": number("Lines of context before and after each match (content mode)."),
        "-n": boolean("Prefix lines with their numbers (content mode; default true)."),
        "-i": boolean("Ignore case."),
        type: string("Only search files of this type, e.g. ts, py, rust."),
        head_limit: number("Return at most this many lines, files or counts."),
        offset: number("Skip this many lines, files or counts first."),
        multiline: boolean("Let the pattern span lines, with . matching newlines."),
      },
      ["pattern"],
    ),
  ];
}
