/**
 * The llama profile's built-in tools as offered to the model: canonical names only (hooks.md §6).
 *
 * Every word here is read before every first token, so the descriptions say only what the model
 * needs to call a tool well (bench/prompt_tokens.ts counts them); what the system prompt says
 * once (relative paths, which tool to prefer) is not repeated per tool. `-n`, `-A`, `-B` and
 * `multiline` of fs_grep are not offered (`-C` covers context, line numbers are on), yet are
 * still accepted (llama_input_schemas.ts). The required properties and their order are the call
 * grammar's, which generated test models follow: change them only with those scripts.
 */
import type { ToolDefinition } from "../../model/model.ts";
import type { ToolForm } from "./tool_kit.ts";
import { objectTool } from "./object_tool.ts";
import {
  DEFAULT_SHELL_TIMEOUT_MS,
  GREP_OUTPUT_MODES,
  MAX_SHELL_TIMEOUT_MS,
} from "./llama_input_schemas.ts";

/** Self-explanatory: a description would cost tokens on every tool that takes it. */
const FILE_PATH = { type: "string" } as const;

/** The llama profile's tools in `form` (tool_kit.ts `ToolForm`). */
export function llamaToolDefinitions(form: ToolForm = "full"): ToolDefinition[] {
  return form === "lean" ? leanDefinitions() : fullDefinitions();
}

function fullDefinitions(): ToolDefinition[] {
  return [
    objectTool(
      "shell",
      "Run a command with /bin/sh -c in the working directory, without input. Returns its " +
        "output (stdout and stderr, long output cut) and exit code.",
      {
        command: { type: "string" },
        timeout: {
          type: "integer",
          minimum: 1,
          description: `Milliseconds (default ${DEFAULT_SHELL_TIMEOUT_MS}, at most ` +
            `${MAX_SHELL_TIMEOUT_MS}).`,
        },
        description: { type: "string", description: "A few words for the user." },
      },
      ["command"],
    ),
    objectTool(
      "fs_read",
      "Read a text file. Long files come in parts: offset and limit pick lines.",
      {
        file_path: FILE_PATH,
        offset: { type: "integer", minimum: 1, description: "First line (1-based)." },
        limit: { type: "integer", minimum: 1, description: "Number of lines." },
      },
      ["file_path"],
    ),
    objectTool(
      "fs_write",
      "Create or overwrite a text file (and missing directories) with the complete content.",
      { file_path: FILE_PATH, content: { type: "string" } },
      ["file_path", "content"],
    ),
    objectTool(
      "fs_edit",
      "Replace old_string with new_string in a text file. old_string must match the file " +
        "exactly, indentation included, and occur once unless replace_all is true. An empty " +
        "old_string creates a new file.",
      {
        file_path: FILE_PATH,
        old_string: { type: "string", description: "The exact text to replace." },
        new_string: { type: "string", description: "The text to put there." },
        replace_all: { type: "boolean", description: "Replace every occurrence." },
      },
      ["file_path", "old_string", "new_string"],
    ),
    objectTool(
      "fs_glob",
      "Find files by a glob pattern such as **/*.ts (** spans directories), skipping " +
        ".gitignored files.",
      {
        pattern: { type: "string", description: "The glob pattern." },
        path: {
          type: "string",
          description: "Directory to search (default: the working directory).",
        },
      },
      ["pattern"],
    ),
    objectTool(
      "fs_grep",
      "Search file contents for a regular expression, skipping .gitignored and binary files. " +
        'Lists the matching files, or with output_mode "content" the matching lines, with ' +
        '"count" the matches per file.',
      {
        pattern: { type: "string", description: "The regular expression." },
        path: {
          type: "string",
          description: "File or directory (default: the working directory).",
        },
        glob: { type: "string", description: "Only files matching this glob, e.g. *.ts." },
        type: { type: "string", description: "Only files of this type, e.g. ts, py." },
        output_mode: {
          type: "string",
          enum: [...GREP_OUTPUT_MODES],
          description: "files_with_matches (default), content or count.",
        },
        "-i": { type: "boolean", description: "Ignore case." },
        "-C": { type: "integer", minimum: 0, description: "Lines of context around a match." },
        head_limit: { type: "integer", minimum: 0, description: "At most this many results." },
        offset: { type: "integer", minimum: 0, description: "Skip this many results first." },
      },
      ["pattern"],
    ),
  ];
}

/**
 * For a small context: the same tools and required properties, the optional properties a model
 * needs most (`offset` and `limit` to read a long file in parts, where and what kind of files to
 * search), and a sentence each. What is left out (a shell timeout, `replace_all`, grep's `-i`,
 * `-C`, `type`, `head_limit`, `offset`) is still accepted.
 */
function leanDefinitions(): ToolDefinition[] {
  return [
    objectTool(
      "shell",
      "Run a command with /bin/sh -c. Returns its output and exit code.",
      { command: { type: "string" } },
      ["command"],
    ),
    objectTool(
      "fs_read",
      "Read a text file. Long files come in parts: offset and limit pick lines.",
      {
        file_path: FILE_PATH,
        offset: { type: "integer", minimum: 1 },
        limit: { type: "integer", minimum: 1 },
      },
      ["file_path"],
    ),
    objectTool(
      "fs_write",
      "Create or overwrite a text file with the complete content.",
      { file_path: FILE_PATH, content: { type: "string" } },
      ["file_path", "content"],
    ),
    objectTool(
      "fs_edit",
      "Replace old_string with new_string in a text file. old_string must match the file " +
        "exactly and occur once.",
      { file_path: FILE_PATH, old_string: { type: "string" }, new_string: { type: "string" } },
      ["file_path", "old_string", "new_string"],
    ),
    objectTool(
      "fs_glob",
      "Find files by a glob pattern such as **/*.ts.",
      { pattern: { type: "string" } },
      ["pattern"],
    ),
    objectTool(
      "fs_grep",
      "Search file contents for a regular expression. Lists the matching files, or with " +
        'output_mode "content" the matching lines.',
      {
        pattern: { type: "string" },
        path: { type: "string" },
        glob: { type: "string" },
        output_mode: { type: "string", enum: [...GREP_OUTPUT_MODES] },
      },
      ["pattern"],
    ),
  ];
}
