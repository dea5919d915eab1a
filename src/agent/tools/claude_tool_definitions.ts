/**
 * The `claude` profile's tools as offered to the model: Claude Code's names and input schemas
 * (claude-compat.md §0.1, §0.3), so a model's calls look to hooks as Claude Code's do. The
 * descriptions are our own words for what our implementation does.
 */
import type { ToolDefinition } from "../../model/model.ts";
import { objectTool } from "./object_tool.ts";
import type { ToolForm } from "./tool_kit.ts";
import { DEFAULT_SHELL_TIMEOUT_MS, MAX_SHELL_TIMEOUT_MS } from "./tool_input.ts";

/** Lines a Read returns when the model gives no `limit`. */
export const DEFAULT_READ_LIMIT = 2000;
/** Paths a Glob lists at most. */
export const GLOB_RESULT_LIMIT = 100;

/** Without a description where the name says it all: each costs tokens on every prompt. */
const string = (description?: string) =>
  description === undefined ? { type: "string" } : { type: "string", description };
const number = (description: string) => ({ type: "number", description });
const boolean = (description: string) => ({ type: "boolean", description });

/** The claude profile's tools in `form` (tool_kit.ts `ToolForm`). */
export function claudeToolDefinitions(form: ToolForm = "full"): ToolDefinition[] {
  return form === "lean" ? leanDefinitions() : fullDefinitions();
}

function fullDefinitions(): ToolDefinition[] {
  return [
    objectTool(
      "Bash",
      "Runs a command with bash in the working directory, which a cd changes for later " +
        "commands (nothing else carries over). Returns its output (stdout and stderr); a non-zero " +
        "exit status is an error with its code.",
      {
        command: string(),
        timeout: number(
          `Milliseconds (default ${DEFAULT_SHELL_TIMEOUT_MS}, at most ${MAX_SHELL_TIMEOUT_MS}).`,
        ),
        description: string("A few words for the user."),
        run_in_background: boolean("No effect here: the command runs to completion."),
        dangerouslyDisableSandbox: boolean("No effect here."),
      },
      ["command"],
    ),
    objectTool(
      "Read",
      "Returns a text file's lines, each after its number and a tab: the first " +
        `${DEFAULT_READ_LIMIT} unless offset and limit pick others. Read a file before you ` +
        "Write or Edit it.",
      {
        file_path: string(),
        offset: number("First line (1-based)."),
        limit: number("Number of lines."),
      },
      ["file_path"],
    ),
    objectTool(
      "Write",
      "Creates or overwrites a file (and missing directories) with the complete content; " +
        "Edit is better for a small change.",
      {
        file_path: string(),
        content: string(),
      },
      ["file_path", "content"],
    ),
    objectTool(
      "Edit",
      "Replaces old_string with new_string in a file. old_string must match the file " +
        "exactly, indentation included, and occur once unless replace_all is true. An empty " +
        "old_string creates a new file.",
      {
        file_path: string(),
        old_string: string("The exact text to replace."),
        new_string: string("The text to put there."),
        replace_all: boolean("Replace every occurrence."),
      },
      ["file_path", "old_string", "new_string"],
    ),
    objectTool(
      "Glob",
      `Lists up to ${GLOB_RESULT_LIMIT} files matching a glob pattern such as **/*.ts.`,
      {
        pattern: string("The glob pattern."),
        path: string("Directory to search (default: the working directory)."),
      },
      ["pattern"],
    ),
    objectTool(
      "Grep",
      "Searches file contents for a regular expression. Lists the matching files, or with " +
        'output_mode "content" the matching lines, with "count" the matches per file.',
      {
        pattern: string("The regular expression."),
        path: string("File or directory (default: the working directory)."),
        glob: string("Only files matching this glob, e.g. *.ts."),
        output_mode: {
          type: "string",
          enum: ["content", "files_with_matches", "count"],
          description: "files_with_matches (default), content or count.",
        },
        "-B": number("Context lines before a match."),
        "-A": number("Context lines after a match."),
        "-C": number("Context lines around a match."),
        "-n": boolean("Line numbers (default true)."),
        "-i": boolean("Ignore case."),
        type: string("Only files of this type, e.g. ts, py."),
        head_limit: number("At most this many results."),
        offset: number("Skip this many results first."),
        multiline: boolean("Let the pattern span lines."),
      },
      ["pattern"],
    ),
  ];
}

/**
 * For a small context: Claude Code's tools exactly (names, every parameter, the required ones),
 * with a sentence each and no parameter descriptions, but the two a model cannot guess: the
 * shell timeout's unit and that a file is read before it is written.
 */
function leanDefinitions(): ToolDefinition[] {
  return [
    objectTool(
      "Bash",
      "Runs a command with bash; a cd carries over. Returns its output.",
      {
        command: string(),
        timeout: number("Milliseconds."),
        description: string(),
        run_in_background: { type: "boolean" },
        dangerouslyDisableSandbox: { type: "boolean" },
      },
      ["command"],
    ),
    objectTool(
      "Read",
      "Returns a text file's lines, numbered; offset and limit pick lines. Read a file before " +
        "you Write or Edit it.",
      { file_path: string(), offset: { type: "number" }, limit: { type: "number" } },
      ["file_path"],
    ),
    objectTool(
      "Write",
      "Creates or overwrites a file with the complete content.",
      { file_path: string(), content: string() },
      ["file_path", "content"],
    ),
    objectTool(
      "Edit",
      "Replaces old_string with new_string in a file. old_string must match exactly and occur " +
        "once unless replace_all is true.",
      {
        file_path: string(),
        old_string: string(),
        new_string: string(),
        replace_all: { type: "boolean" },
      },
      ["file_path", "old_string", "new_string"],
    ),
    objectTool(
      "Glob",
      "Lists files matching a glob pattern such as **/*.ts.",
      { pattern: string(), path: string() },
      ["pattern"],
    ),
    objectTool(
      "Grep",
      "Searches file contents for a regular expression. Lists the matching files, or with " +
        'output_mode "content" the matching lines.',
      {
        pattern: string(),
        path: string(),
        glob: string(),
        output_mode: { type: "string", enum: ["content", "files_with_matches", "count"] },
        "-B": { type: "number" },
        "-A": { type: "number" },
        "-C": { type: "number" },
        "-n": { type: "boolean" },
        "-i": { type: "boolean" },
        type: string(),
        head_limit: { type: "number" },
        offset: { type: "number" },
        multiline: { type: "boolean" },
      },
      ["pattern"],
    ),
  ];
}
