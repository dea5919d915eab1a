/**
 * What is wrong with a llama tool input, in Claude Code's words where Claude Code has words for
 * it (hooks.md §12.9): `shell failed due to the following issue:\nThe required parameter
 * \`command\` is missing`. The message inside a hook's invalid `updatedInput`; the model's own
 * bad input keeps the llama profile's message (tool_input.ts), which also shows the shape.
 *
 * A missing parameter and a wrong type read as Claude Code's; any other problem (an empty
 * command, a number below its minimum) as the llama schema words it, naming the parameter.
 */
import type { z } from "zod";
import type { ToolCapability } from "../../profile/tool_identity.ts";
import {
  FsEditInput,
  FsGlobInput,
  FsGrepInput,
  FsReadInput,
  FsWriteInput,
  ShellInput,
} from "./llama_input_schemas.ts";
import { decodeArguments } from "./json_arguments.ts";

const SCHEMAS: Readonly<Record<ToolCapability, z.ZodType>> = {
  shell: ShellInput,
  fs_read: FsReadInput,
  fs_write: FsWriteInput,
  fs_edit: FsEditInput,
  fs_glob: FsGlobInput,
  fs_grep: FsGrepInput,
};

/** How the llama schemas word a parameter given neither by its name nor by an alias. */
const REQUIRED_WORDS = /^"([^"]+)" is required$/;

/**
 * `<T> failed due to the following issue:\n<issue>` (`issues:`, one per line, when there are
 * several); null when the input fits. `toolName` is the name the call was emitted with.
 */
export function inputSchemaFailure(
  capability: ToolCapability,
  raw: unknown,
  toolName: string,
): string | null {
  // A hook's input given as JSON text is read as what it holds; other text is a string, in
  // Claude Code's words for a value of the wrong type.
  const decoded = decodeArguments(raw);
  const input = decoded.ok ? decoded.value : raw;
  const issues = typeof input === "object" && input !== null && !Array.isArray(input)
    ? SCHEMAS[capability].safeParse(input).error?.issues.map((issue) => issueText(issue, input))
    : [`The input type is expected as \`object\` but provided as \`${typeName(input)}\``];
  if (issues === undefined || issues.length === 0) return null;
  const noun = issues.length === 1 ? "issue" : "issues";
  return `${toolName} failed due to the following ${noun}:\n${issues.join("\n")}`;
}

function issueText(issue: z.core.$ZodIssue, input: object): string {
  const [key, ...deeper] = issue.path;
  if (issue.code === "invalid_type" && typeof key === "string" && deeper.length === 0) {
    const value = Reflect.get(input, key);
    if (value === undefined) return missing(key);
    // A whole number is checked as type `int`: a fraction is still a number, and its problem
    // is not its type.
    const expected = issue.expected === "int" ? "number" : issue.expected;
    const received = typeName(value);
    if (received !== expected) {
      return `The parameter \`${key}\` type is expected as \`${expected}\` but provided as ` +
        `\`${received}\``;
    }
  }
  const required = REQUIRED_WORDS.exec(issue.message);
  if (required?.[1] !== undefined && Reflect.get(input, required[1]) === undefined) {
    return missing(required[1]);
  }
  return issue.message;
}

function missing(name: string): string {
  return `The required parameter \`${name}\` is missing`;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
