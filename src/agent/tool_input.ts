/**
 * The inputs of the built-in tools, Claude-Code-shaped so hook scripts written for Claude Code's
 * Bash, Read and Write read them unchanged (hooks.md §6), and the tool definitions offered to the
 * model. Parsing is lenient where small models are sloppy (a number sent as a string, `null` for
 * an absent field, `path` for `file_path`) and strict where guessing could do harm.
 */
import { z } from "zod";
import type { ToolDefinition } from "../model/model.ts";
import type { ToolCapability } from "./tool_names.ts";

/** Claude Code's Bash defaults: 2 minutes, at most 10. */
export const DEFAULT_SHELL_TIMEOUT_MS = 120_000;
export const MAX_SHELL_TIMEOUT_MS = 600_000;

/** A whole number, also when a model sends it as a string of digits. */
function wholeNumber(name: string, min: number) {
  const message = min === 0
    ? `"${name}" must be a whole number, 0 or more`
    : `"${name}" must be a whole number, ${min} or more`;
  return z.preprocess(
    (value) => typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value,
    z.number({ error: message }).int({ error: message }).min(min, { error: message }),
  );
}

/** Absent, or `null` read as absent. */
function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined);
}

const filePathFields = {
  file_path: optional(z.string({ error: '"file_path" must be a string' })),
  path: optional(z.string({ error: '"path" must be a string' })),
};

/** `file_path`, or `path` as its alias; both may be given only when they agree. */
function pickFilePath(
  value: { file_path?: string | undefined; path?: string | undefined },
  ctx: z.RefinementCtx,
): string {
  const { file_path, path } = value;
  if (file_path !== undefined && path !== undefined && file_path !== path) {
    ctx.addIssue({ code: "custom", message: 'give "file_path" or "path", not both' });
    return "";
  }
  const chosen = file_path ?? path;
  if (chosen === undefined) {
    ctx.addIssue({ code: "custom", message: '"file_path" is required' });
    return "";
  }
  if (chosen.trim() === "") {
    ctx.addIssue({ code: "custom", message: '"file_path" must not be empty' });
    return "";
  }
  return chosen;
}

export const ShellInput = z.looseObject({
  command: z.string({ error: '"command" is required and must be a string' })
    .refine((command) => command.trim() !== "", { error: '"command" must not be empty' }),
  timeout: optional(wholeNumber("timeout", 1)),
  description: optional(z.string({ error: '"description" must be a string' })),
}).transform(({ command, timeout, description }) => ({
  command,
  /** Milliseconds, the default applied and clamped to the maximum (as Claude Code does). */
  timeout: Math.min(timeout ?? DEFAULT_SHELL_TIMEOUT_MS, MAX_SHELL_TIMEOUT_MS),
  ...(description === undefined ? {} : { description }),
}));
export type ShellInput = z.output<typeof ShellInput>;

export const FsReadInput = z.looseObject({
  ...filePathFields,
  offset: optional(wholeNumber("offset", 0)),
  limit: optional(wholeNumber("limit", 1)),
}).transform((value, ctx) => ({
  file_path: pickFilePath(value, ctx),
  /** 1-based line to start at; 0 is read as 1, as Claude Code's Read does. */
  ...(value.offset === undefined ? {} : { offset: Math.max(1, value.offset) }),
  ...(value.limit === undefined ? {} : { limit: value.limit }),
}));
export type FsReadInput = z.output<typeof FsReadInput>;

export const FsWriteInput = z.looseObject({
  ...filePathFields,
  content: z.string({ error: '"content" is required and must be a string' }),
}).transform((value, ctx) => ({ file_path: pickFilePath(value, ctx), content: value.content }));
export type FsWriteInput = z.output<typeof FsWriteInput>;

export type ToolInput =
  | { readonly capability: "shell"; readonly input: ShellInput }
  | { readonly capability: "fs_read"; readonly input: FsReadInput }
  | { readonly capability: "fs_write"; readonly input: FsWriteInput };

export type ParsedToolInput =
  | { readonly ok: true; readonly value: ToolInput }
  /** For the model: what is wrong and the shape expected. */
  | { readonly ok: false; readonly message: string };

const EXPECTED_SHAPE: Readonly<Record<ToolCapability, string>> = {
  shell: '{"command": string, "timeout"?: number (milliseconds)}',
  fs_read: '{"file_path": string, "offset"?: number (first line, 1-based), "limit"?: number}',
  fs_write: '{"file_path": string, "content": string}',
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
      return parsed.success
        ? { ok: true, value: { capability, input: parsed.data } }
        : fail(problems(parsed.error));
    }
    case "fs_read": {
      const parsed = FsReadInput.safeParse(value);
      return parsed.success
        ? { ok: true, value: { capability, input: parsed.data } }
        : fail(problems(parsed.error));
    }
    case "fs_write": {
      const parsed = FsWriteInput.safeParse(value);
      return parsed.success
        ? { ok: true, value: { capability, input: parsed.data } }
        : fail(problems(parsed.error));
    }
    default:
      return capability satisfies never;
  }
}

/** Some models send the arguments as a JSON-encoded string rather than an object. */
function decodeJsonString(raw: unknown): unknown {
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

/** The built-in tools as offered to the model: canonical names only (hooks.md §6). */
export function toolDefinitions(): ToolDefinition[] {
  return [
    {
      name: "shell",
      description: "Run a shell command with /bin/sh -c in the session's working directory. " +
        "Returns its combined stdout and stderr (long output is cut) and its exit code. " +
        "Use it to list, search, build, test and run programs. The command cannot read input.",
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
          file_path: {
            type: "string",
            description: "Path of the file, absolute or relative to the working directory.",
          },
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
          file_path: {
            type: "string",
            description: "Path of the file, absolute or relative to the working directory.",
          },
          content: { type: "string", description: "The complete new content of the file." },
        },
        required: ["file_path", "content"],
        additionalProperties: false,
      },
    },
  ];
}
