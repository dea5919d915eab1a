/**
 * The zod schemas of the llama profile's tool inputs, Claude-Code-shaped so hook scripts written
 * for Claude Code's Bash, Read, Write, Edit, Glob and Grep read them unchanged (hooks.md §6).
 * Lenient where small models are sloppy (a number or a boolean sent as a string, `null` for an
 * absent field, `path` for `file_path`), strict where guessing could do harm.
 */
import { z } from "zod";
import type { GrepOutputMode } from "./tool_operation.ts";

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

/** A boolean, also when a model sends `"true"` or `"false"`. */
function flag(name: string) {
  const message = `"${name}" must be true or false`;
  return z.preprocess(
    (value) => value === "true" ? true : value === "false" ? false : value,
    z.boolean({ error: message }),
  );
}

function requiredText(name: string) {
  return z.string({ error: `"${name}" is required and must be a string` });
}

function pattern() {
  return requiredText("pattern").refine((value) => value !== "", {
    error: '"pattern" must not be empty',
  });
}

export const FsEditInput = z.looseObject({
  ...filePathFields,
  old_string: requiredText("old_string"),
  new_string: requiredText("new_string"),
  replace_all: optional(flag("replace_all")),
}).transform((value, ctx) => ({
  file_path: pickFilePath(value, ctx),
  old_string: value.old_string,
  new_string: value.new_string,
  replace_all: value.replace_all ?? false,
}));
export type FsEditInput = z.output<typeof FsEditInput>;

export const FsGlobInput = z.looseObject({
  pattern: pattern(),
  path: optional(z.string({ error: '"path" must be a string' })),
}).transform(({ pattern, path }) => ({
  pattern,
  // An empty path is read as none: the cwd.
  ...(path === undefined || path.trim() === "" ? {} : { path }),
}));
export type FsGlobInput = z.output<typeof FsGlobInput>;

export const GREP_OUTPUT_MODES = [
  "content",
  "files_with_matches",
  "count",
] as const satisfies readonly GrepOutputMode[];

const optionalText = (name: string) => optional(z.string({ error: `"${name}" must be a string` }));

export const FsGrepInput = z.looseObject({
  pattern: pattern(),
  path: optionalText("path"),
  glob: optionalText("glob"),
  type: optionalText("type"),
  output_mode: optional(z.enum(GREP_OUTPUT_MODES, {
    error: `"output_mode" must be one of ${GREP_OUTPUT_MODES.map((m) => `"${m}"`).join(", ")}`,
  })),
  "-i": optional(flag("-i")),
  "-n": optional(flag("-n")),
  "-A": optional(wholeNumber("-A", 0)),
  "-B": optional(wholeNumber("-B", 0)),
  "-C": optional(wholeNumber("-C", 0)),
  multiline: optional(flag("multiline")),
  head_limit: optional(wholeNumber("head_limit", 0)),
  offset: optional(wholeNumber("offset", 0)),
}).transform((value) => {
  const present = (text: string | undefined) =>
    text === undefined || text.trim() === "" ? undefined : text;
  return {
    pattern: value.pattern,
    path: present(value.path),
    glob: present(value.glob),
    type: present(value.type),
    output_mode: value.output_mode ?? "files_with_matches",
    ignore_case: value["-i"] ?? false,
    // Line numbers help the model edit what it found, so they are on unless turned off.
    line_numbers: value["-n"] ?? true,
    // `-A` and `-B` say more than `-C`, as in ripgrep.
    before: value["-B"] ?? value["-C"] ?? 0,
    after: value["-A"] ?? value["-C"] ?? 0,
    multiline: value.multiline ?? false,
    // 0 is "no limit", as in Claude Code's Grep.
    head_limit: value.head_limit === 0 ? undefined : value.head_limit,
    offset: value.offset ?? 0,
  };
});
export type FsGrepInput = z.output<typeof FsGrepInput>;
