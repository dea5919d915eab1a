/**
 * The inputs of Claude Code's Bash, Read, Write, Edit, Glob and Grep as Claude Code 2.1.332 parses
 * them (claude-compat.md §0.3): its schemas, the `tool_input` hooks then see (defaults added,
 * schema key order, unknown keys dropped, Read / Write / Edit paths absolute), and its words for
 * input that does not fit (`InputValidationError: Read failed due to the following issue: ...`).
 */
import { resolve } from "node:path";
import { z } from "zod";
import type { ToolCapability } from "../../profile/tool_identity.ts";
import { decodeArguments, type DecodedArguments } from "./json_arguments.ts";
import { DEFAULT_SHELL_TIMEOUT_MS, MAX_SHELL_TIMEOUT_MS } from "./tool_input.ts";
import type { ParsedCall } from "./tool_kit.ts";
import type { GrepOutputMode, ToolOperation } from "./tool_operation.ts";

/** What Claude Code puts before a schema problem in the model's `<tool_use_error>`. */
export const INPUT_VALIDATION_PREFIX = "InputValidationError: ";

/** A number, also when the model sent one as a string of digits. */
function semanticNumber<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    (value) =>
      typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value,
    schema,
  );
}

/** A boolean, also when the model sent `"true"` or `"false"`. */
function semanticBoolean() {
  return z.preprocess(
    (value) => value === "true" ? true : value === "false" ? false : value,
    z.boolean(),
  );
}

const wholeNumber = () => z.number().int({ error: "must be a whole number" });

// Field order is the schema order hooks see the keys in.

const BashInput = z.object({
  command: z.string(),
  timeout: semanticNumber(z.number()).optional(),
  description: z.string().optional(),
  run_in_background: semanticBoolean().optional(),
  dangerouslyDisableSandbox: semanticBoolean().optional(),
});

const ReadInput = z.object({
  file_path: z.string(),
  offset: semanticNumber(wholeNumber().nonnegative({ error: "must be 0 or more" })).optional(),
  limit: semanticNumber(wholeNumber().positive({ error: "must be 1 or more" })).optional(),
});

const WriteInput = z.object({ file_path: z.string(), content: z.string() });

const EditInput = z.object({
  file_path: z.string(),
  old_string: z.string(),
  new_string: z.string(),
  replace_all: semanticBoolean().default(false),
});

const GlobInput = z.object({ pattern: z.string(), path: z.string().optional() });

const GREP_MODES = ["content", "files_with_matches", "count"] as const satisfies GrepOutputMode[];
const count = () => semanticNumber(wholeNumber().nonnegative({ error: "must be 0 or more" }));

const GrepInput = z.object({
  pattern: z.string(),
  path: z.string().optional(),
  glob: z.string().optional(),
  output_mode: z.enum(GREP_MODES, {
    error: `must be one of ${GREP_MODES.map((mode) => `\`${mode}\``).join(", ")}`,
  }).optional(),
  "-B": count().optional(),
  "-A": count().optional(),
  "-C": count().optional(),
  "-n": semanticBoolean().optional(),
  "-i": semanticBoolean().optional(),
  type: z.string().optional(),
  head_limit: count().optional(),
  offset: count().optional(),
  multiline: semanticBoolean().optional(),
});

/**
 * Parses a call's input; `name` is the name the model emitted (for the message), `cwd` the
 * session cwd that relative paths start at.
 */
export function parseClaudeToolInput(
  capability: ToolCapability,
  raw: unknown,
  name: string,
  cwd: string,
): ParsedCall {
  const decoded = decodeInput(raw);
  if (!decoded.ok) {
    return {
      ok: false,
      message: `${INPUT_VALIDATION_PREFIX}${name} failed due to the following issue:\n` +
        `The input is not valid JSON: ${decoded.problem}`,
    };
  }
  const input = decoded.value;
  const at = (path: string) => resolve(cwd, path);
  const fail = (error: z.ZodError): ParsedCall => ({
    ok: false,
    message: INPUT_VALIDATION_PREFIX + schemaFailure(name, error, input),
  });
  switch (capability) {
    case "shell": {
      const parsed = BashInput.safeParse(input);
      if (!parsed.success) return fail(parsed.error);
      const { command, timeout, description } = parsed.data;
      return {
        ok: true,
        operation: {
          capability,
          command,
          timeoutMs: shellTimeout(timeout),
          ...(description === undefined ? {} : { description }),
        },
        // Only what was given: Claude Code adds no timeout of its own to `tool_input`.
        hookInput: parsed.data,
      };
    }
    case "fs_read": {
      const parsed = ReadInput.safeParse(input);
      if (!parsed.success) return fail(parsed.error);
      const { file_path, offset, limit } = parsed.data;
      return {
        ok: true,
        operation: {
          capability,
          // As given: Read's `tool_response` names the file as the model did.
          path: file_path,
          // Offset 0 reads from the start, as offset 1 does.
          ...(offset === undefined || offset === 0 ? {} : { offset }),
          ...(limit === undefined ? {} : { limit }),
        },
        hookInput: { ...parsed.data, file_path: at(file_path) },
      };
    }
    case "fs_write": {
      const parsed = WriteInput.safeParse(input);
      if (!parsed.success) return fail(parsed.error);
      const { file_path, content } = parsed.data;
      return {
        ok: true,
        operation: { capability, path: at(file_path), content },
        hookInput: { ...parsed.data, file_path: at(file_path) },
      };
    }
    case "fs_edit": {
      const parsed = EditInput.safeParse(input);
      if (!parsed.success) return fail(parsed.error);
      const { file_path, old_string, new_string, replace_all } = parsed.data;
      return {
        ok: true,
        operation: {
          capability,
          path: at(file_path),
          oldString: old_string,
          newString: new_string,
          replaceAll: replace_all,
        },
        hookInput: { ...parsed.data, file_path: at(file_path) },
      };
    }
    case "fs_glob": {
      const parsed = GlobInput.safeParse(input);
      if (!parsed.success) return fail(parsed.error);
      const { pattern, path } = parsed.data;
      return {
        ok: true,
        operation: { capability, pattern, ...(path === undefined ? {} : { path }) },
        hookInput: parsed.data,
      };
    }
    case "fs_grep": {
      const parsed = GrepInput.safeParse(input);
      if (!parsed.success) return fail(parsed.error);
      return { ok: true, operation: grepOperation(parsed.data), hookInput: parsed.data };
    }
    default:
      return capability satisfies never;
  }
}

function grepOperation(input: z.output<typeof GrepInput>): ToolOperation {
  const context = input["-C"];
  return {
    capability: "fs_grep",
    pattern: input.pattern,
    ...(input.path === undefined ? {} : { path: input.path }),
    ...(input.glob === undefined ? {} : { glob: input.glob }),
    ...(input.type === undefined ? {} : { fileType: input.type }),
    outputMode: input.output_mode ?? "files_with_matches",
    ignoreCase: input["-i"] ?? false,
    // Claude Code numbers content lines unless told not to.
    lineNumbers: input["-n"] ?? true,
    before: input["-B"] ?? context ?? 0,
    after: input["-A"] ?? context ?? 0,
    multiline: input.multiline ?? false,
    // 0 is Claude Code's "no limit".
    ...(input.head_limit === undefined || input.head_limit === 0
      ? {}
      : { headLimit: input.head_limit }),
    offset: input.offset ?? 0,
  };
}

/** Milliseconds: Bash's default when absent (or not positive), at most its maximum. */
function shellTimeout(timeout: number | undefined): number {
  if (timeout === undefined || !(timeout > 0)) return DEFAULT_SHELL_TIMEOUT_MS;
  return Math.min(Math.ceil(timeout), MAX_SHELL_TIMEOUT_MS);
}

/**
 * `<Tool> failed due to the following issue:\n<issue>` (`issues:` and one line each when there
 * are several): the words after `InputValidationError: `, and inside the message of a hook's
 * invalid `updatedInput` (hooks.md §12.9).
 */
export function schemaFailure(toolName: string, error: z.ZodError, input: unknown): string {
  const issues = error.issues.map((issue) => issueText(issue, input));
  const noun = issues.length === 1 ? "issue" : "issues";
  return `${toolName} failed due to the following ${noun}:\n${issues.join("\n")}`;
}

function issueText(issue: z.core.$ZodIssue, input: unknown): string {
  const name = issue.path.map(String).join(".");
  if (issue.code === "invalid_type") {
    const value = valueAt(input, issue.path);
    if (name === "") {
      return `The input type is expected as \`${issue.expected}\` but provided as \`${
        typeName(value)
      }\``;
    }
    if (value === undefined) return `The required parameter \`${name}\` is missing`;
    // A whole number is checked as a type `int`; a fraction is still a number.
    const expected = issue.expected === "int" ? "number" : issue.expected;
    const received = typeName(value);
    if (received !== expected) {
      return `The parameter \`${name}\` type is expected as \`${expected}\` but provided as \`${received}\``;
    }
  }
  return `The parameter \`${name}\` ${issue.message}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = Reflect.get(value, key);
  }
  return value;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Some models send the arguments as a JSON-encoded string, or none at all: read as the object
 * they stand for, so the message names the missing parameters; text that is not JSON is said to
 * be so.
 */
function decodeInput(raw: unknown): DecodedArguments {
  return raw === undefined ? { ok: true, value: {} } : decodeArguments(raw);
}
