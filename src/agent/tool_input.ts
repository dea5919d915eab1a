/**
 * The llama profile's tool inputs turned into operations (tool_operation.ts), with a message
 * naming the problem and the shape expected when they do not fit, and the tool definitions
 * offered to the model. The schemas are in llama_input_schemas.ts.
 */
import type { z } from "zod";
import type { ToolDefinition } from "../model/model.ts";
import type { ToolCapability } from "../profile/tool_identity.ts";
import {
  DEFAULT_SHELL_TIMEOUT_MS,
  FsEditInput,
  FsGlobInput,
  FsGrepInput,
  FsReadInput,
  FsWriteInput,
  GREP_OUTPUT_MODES,
  MAX_SHELL_TIMEOUT_MS,
  ShellInput,
} from "./llama_input_schemas.ts";
import type { ToolOperation } from "./tool_operation.ts";

export { DEFAULT_SHELL_TIMEOUT_MS, MAX_SHELL_TIMEOUT_MS };

export type ParsedToolInput =
  | { readonly ok: true; readonly operation: ToolOperation }
  /** For the model: what is wrong and the shape expected. */
  | { readonly ok: false; readonly message: string };

const EXPECTED_SHAPE: Readonly<Record<ToolCapability, string>> = {
  shell: '{"command": string, "timeout"?: number (milliseconds)}',
  fs_read: '{"file_path": string, "offset"?: number (first line, 1-based), "limit"?: number}',
  fs_write: '{"file_path": string, "content": string}',
  fs_edit: '{"file_path": string, "old_string": string, "new_string": string, ' +
    '"replace_all"?: boolean}',
  fs_glob: '{"pattern": string, "path"?: string}',
  fs_grep: '{"pattern": string, "path"?: string, "glob"?: string, "type"?: string, ' +
    `"output_mode"?: ${
      GREP_OUTPUT_MODES.map((mode) => `"${mode}"`).join(" | ")
    }, "-i"?: boolean, ` +
    '"-n"?: boolean, "-A"?: number, "-B"?: number, "-C"?: number, "multiline"?: boolean, ' +
    '"head_limit"?: number, "offset"?: number}',
};

/**
 * Validates a built-in tool's input. `toolName` is the name the model emitted, for the message
 * (the capability's canonical name when absent).
 */
export function parseToolInput(
  capability: ToolCapability,
  raw: unknown,
  toolName: string = capability,
): ParsedToolInput {
  const value = decodeJsonString(raw);
  const fail = (problem: string): ParsedToolInput => ({
    ok: false,
    message: `Invalid input for ${toolName}: ${problem}. Expected ${EXPECTED_SHAPE[capability]}`,
  });
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return fail(`the input must be a JSON object, not ${describe(value)}`);
  }
  const problems = (error: z.ZodError) => error.issues.map((issue) => issue.message).join("; ");
  switch (capability) {
    case "shell": {
      const parsed = ShellInput.safeParse(value);
      if (!parsed.success) return fail(problems(parsed.error));
      const { command, timeout, description } = parsed.data;
      return {
        ok: true,
        operation: {
          capability,
          command,
          timeoutMs: timeout,
          ...(description === undefined ? {} : { description }),
        },
      };
    }
    case "fs_read": {
      const parsed = FsReadInput.safeParse(value);
      if (!parsed.success) return fail(problems(parsed.error));
      const { file_path, ...range } = parsed.data;
      return { ok: true, operation: { capability, path: file_path, ...range } };
    }
    case "fs_write": {
      const parsed = FsWriteInput.safeParse(value);
      if (!parsed.success) return fail(problems(parsed.error));
      const { file_path, content } = parsed.data;
      return { ok: true, operation: { capability, path: file_path, content } };
    }
    case "fs_edit": {
      const parsed = FsEditInput.safeParse(value);
      if (!parsed.success) return fail(problems(parsed.error));
      const { file_path, old_string, new_string, replace_all } = parsed.data;
      return {
        ok: true,
        operation: {
          capability,
          path: file_path,
          oldString: old_string,
          newString: new_string,
          replaceAll: replace_all,
        },
      };
    }
    case "fs_glob": {
      const parsed = FsGlobInput.safeParse(value);
      if (!parsed.success) return fail(problems(parsed.error));
      return { ok: true, operation: { capability, ...parsed.data } };
    }
    case "fs_grep": {
      const parsed = FsGrepInput.safeParse(value);
      if (!parsed.success) return fail(problems(parsed.error));
      const input = parsed.data;
      return {
        ok: true,
        operation: {
          capability,
          pattern: input.pattern,
          ...(input.path === undefined ? {} : { path: input.path }),
          ...(input.glob === undefined ? {} : { glob: input.glob }),
          ...(input.type === undefined ? {} : { fileType: input.type }),
          outputMode: input.output_mode,
          ignoreCase: input.ignore_case,
          lineNumbers: input.line_numbers,
          before: input.before,
          after: input.after,
          multiline: input.multiline,
          ...(input.head_limit === undefined ? {} : { headLimit: input.head_limit }),
          offset: input.offset,
        },
      };
    }
    default:
      return capability satisfies never;
  }
}

/** Some models send the arguments as a JSON-encoded string rather than an object. */
export function decodeJsonString(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

const FILE_PATH_PROPERTY = {
  type: "string",
  description: "Path of the file, absolute or relative to the working directory.",
} as const;

/** The built-in tools as offered to the model: canonical names only (hooks.md §6). */
export function toolDefinitions(): ToolDefinition[] {
  return [
    {
      name: "shell",
      description: "Run a shell command with /bin/sh -c in the session's working directory. " +
        "Returns its combined stdout and stderr (long output is cut) and its exit code. " +
        "Use it to build, test and run programs (fs_glob and fs_grep find files and text). " +
        "The command cannot read input.",
      inputSchema: {
        type: "object",
        properties: {
          command: { type: "string", description: "The command line to run." },
          timeout: {
            type: "integer",
            minimum: 1,
            description: `Timeout in milliseconds (default ${DEFAULT_SHELL_TIMEOUT_MS}, at most ` +
              `${MAX_SHELL_TIMEOUT_MS}). The command is stopped when it passes.`,
          },
          description: {
            type: "string",
            description: "What the command does, in a few words, for the user.",
          },
        },
        required: ["command"],
        additionalProperties: false,
      },
    },
    {
      name: "fs_read",
      description: "Read a UTF-8 text file. Returns its text as it is. Long files are returned " +
        "in parts: use offset and limit to read the lines you need.",
      inputSchema: {
        type: "object",
        properties: {
          file_path: FILE_PATH_PROPERTY,
          offset: {
            type: "integer",
            minimum: 1,
            description: "Line number to start reading at (1 is the first line).",
          },
          limit: { type: "integer", minimum: 1, description: "Number of lines to read." },
        },
        required: ["file_path"],
        additionalProperties: false,
      },
    },
    {
      name: "fs_write",
      description: "Write a text file, replacing all of its content, or create it (with any " +
        "missing parent directories). Give the complete new content.",
      inputSchema: {
        type: "object",
        properties: {
          file_path: FILE_PATH_PROPERTY,
          content: { type: "string", description: "The complete new content of the file." },
        },
        required: ["file_path", "content"],
        additionalProperties: false,
      },
    },
    {
      name: "fs_edit",
      description: "Change part of a text file: replace old_string, which must occur exactly " +
        "once (give enough surrounding lines to make it unique), with new_string. Set " +
        "replace_all to change every occurrence. Copy old_string exactly from the file, " +
        "indentation included. An empty old_string creates a new file.",
      inputSchema: {
        type: "object",
        properties: {
          file_path: FILE_PATH_PROPERTY,
          old_string: { type: "string", description: "The exact text to replace." },
          new_string: { type: "string", description: "The text to put in its place." },
          replace_all: {
            type: "boolean",
            description: "Replace every occurrence of old_string (default false).",
          },
        },
        required: ["file_path", "old_string", "new_string"],
        additionalProperties: false,
      },
    },
    {
      name: "fs_glob",
      description: "Find files by name with a glob pattern such as **/*.ts or src/*.json " +
        "(* stays in one directory, ** spans directories). Returns matching file paths, " +
        "oldest first by modification time; files ignored by .gitignore are left out.",
      inputSchema: {
        type: "object",
        properties: {
          pattern: { type: "string", description: "The glob pattern, relative to path." },
          path: {
            type: "string",
            description: "Directory to search in (default: the working directory).",
          },
        },
        required: ["pattern"],
        additionalProperties: false,
      },
    },
    {
      name: "fs_grep",
      description: "Search the text of files with a regular expression. By default returns " +
        'the files that match; output_mode "content" returns the matching lines ' +
        '(path:line:text), "count" the number of matching lines per file. Files ignored by ' +
        ".gitignore and binary files are skipped.",
      inputSchema: {
        type: "object",
        properties: {
          pattern: { type: "string", description: "The regular expression to search for." },
          path: {
            type: "string",
            description: "File or directory to search (default: the working directory).",
          },
          glob: { type: "string", description: "Only files matching this glob, e.g. *.ts." },
          type: { type: "string", description: "Only files of this type: js, ts, py, rust..." },
          output_mode: {
            type: "string",
            enum: [...GREP_OUTPUT_MODES],
            description: 'What to return (default "files_with_matches").',
          },
          "-i": { type: "boolean", description: "Ignore case." },
          "-n": { type: "boolean", description: "Line numbers in content mode (default true)." },
          "-A": { type: "integer", minimum: 0, description: "Lines of context after a match." },
          "-B": { type: "integer", minimum: 0, description: "Lines of context before a match." },
          "-C": { type: "integer", minimum: 0, description: "Lines of context around a match." },
          multiline: {
            type: "boolean",
            description: "Let the pattern span lines (. also matches a newline).",
          },
          head_limit: {
            type: "integer",
            minimum: 0,
            description: "Return at most this many lines or files (0: all).",
          },
          offset: {
            type: "integer",
            minimum: 0,
            description: "Skip this many lines or files first, to page through results.",
          },
        },
        required: ["pattern"],
        additionalProperties: false,
      },
    },
  ];
}
