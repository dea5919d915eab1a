/**
 * The llama profile's tool inputs turned into operations (tool_operation.ts), with a message
 * naming the problem and the shape expected when they do not fit, and the tool definitions
 * offered to the model. The schemas are in llama_input_schemas.ts.
 */
import type { z } from "zod";
import type { ToolCapability } from "../../profile/tool_identity.ts";
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
import { decodeArguments, isJsonObject } from "./json_arguments.ts";

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
  const fail = (problem: string): ParsedToolInput => ({
    ok: false,
    message: `Invalid input for ${toolName}: ${problem}. Expected ${EXPECTED_SHAPE[capability]}`,
  });
  const decoded = decodeArguments(raw);
  if (!decoded.ok) return fail(`the arguments are not valid JSON: ${decoded.problem}`);
  const value = decoded.value;
  if (!isJsonObject(value)) {
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

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
