/**
 * Tool names models learned from other agents (`bash`, `run_terminal_cmd`, `str_replace_editor`,
 * `read_file`, Claude Code's `Bash` in the llama profile, the llama profile's `shell` in the
 * claude profile), and how a call under one becomes a call to a profile's own tool. Such a call
 * is renamed before anything sees it: hooks (`tool_name`), matchers, `if` rules, permission rules
 * and both transcripts see the profile's tool (`Bash`, `shell`), so another agent's name never
 * walks around a guard. Names are matched without regard to case.
 *
 * A profile's own aliases (`terminal` for `shell` in the llama profile) are not these: they are
 * dispatched under the name emitted, as the source document has it (compat_profile.ts), and are
 * looked up first.
 */
import type { ToolCapability } from "./tool_identity.ts";

/** How one of another agent's tools maps onto one of ours. */
export interface ForeignCall {
  readonly capability: ToolCapability;
  /**
   * Its input fields under their names → ours (Claude Code's names, which both profiles read); a
   * field is renamed only when ours is not given too.
   */
  readonly renames: Readonly<Record<string, string>>;
  /** Inputs of ours it has no field for, with the value that means what it does. */
  readonly defaults?: Readonly<Record<string, unknown>>;
  /** Boolean fields of its that, when true, stand for these inputs of ours. */
  readonly whenTrue?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** A field holding `[first, last]` lines (1-based; last -1 for the end): offset and limit. */
  readonly lineRange?: string;
}

export type ForeignTool =
  | { readonly kind: "call"; readonly call: ForeignCall }
  /**
   * One tool for several operations, picked by a string field of its input (str_replace_editor's
   * `command`); an operation not listed has no counterpart here.
   */
  | {
    readonly kind: "by_field";
    readonly field: string;
    readonly operations: Readonly<Record<string, ForeignCall>>;
  };

const PATH_NAMES = { path: "file_path", target_file: "file_path", absolute_path: "file_path" };

const SHELL: ForeignCall = { capability: "shell", renames: { cmd: "command" } };
const READ: ForeignCall = { capability: "fs_read", renames: PATH_NAMES };
const WRITE: ForeignCall = {
  capability: "fs_write",
  renames: { ...PATH_NAMES, file_text: "content", contents: "content", text: "content" },
};
const EDIT: ForeignCall = {
  capability: "fs_edit",
  renames: {
    ...PATH_NAMES,
    old_str: "old_string",
    new_str: "new_string",
    old_text: "old_string",
    new_text: "new_string",
  },
};
const GLOB: ForeignCall = {
  capability: "fs_glob",
  renames: { glob_pattern: "pattern", directory: "path", target_directory: "path" },
};
/** A directory listing is a glob of what is in it. */
const LIST: ForeignCall = {
  capability: "fs_glob",
  renames: { directory: "path", dir_path: "path", relative_workspace_path: "path" },
  defaults: { pattern: "*" },
  whenTrue: { recursive: { pattern: "**/*" } },
};
const GREP: ForeignCall = {
  capability: "fs_grep",
  renames: {
    query: "pattern",
    regex: "pattern",
    include_pattern: "glob",
    file_pattern: "glob",
    include: "glob",
    directory: "path",
    dir_path: "path",
  },
};

/** Anthropic's text editor tool: `command` picks the operation, `path` is the file. */
const TEXT_EDITOR: ForeignTool = {
  kind: "by_field",
  field: "command",
  operations: {
    view: { ...READ, lineRange: "view_range" },
    create: WRITE,
    str_replace: EDIT,
  },
};

const call = (foreign: ForeignCall): ForeignTool => ({ kind: "call", call: foreign });

/** Every other agent's name we know, lower case. */
export const FOREIGN_TOOLS: Readonly<Record<string, ForeignTool>> = {
  bash: call(SHELL),
  shell: call(SHELL),
  terminal: call(SHELL),
  run_terminal_cmd: call(SHELL),
  run_terminal_command: call(SHELL),
  execute_command: call(SHELL),
  execute_bash: call(SHELL),
  run_command: call(SHELL),
  run_shell_command: call(SHELL),
  shell_exec: call(SHELL),
  read: call(READ),
  fs_read: call(READ),
  "fs/read": call(READ),
  read_file: call(READ),
  read_text_file: call(READ),
  view_file: call(READ),
  write: call(WRITE),
  fs_write: call(WRITE),
  "fs/write": call(WRITE),
  write_file: call(WRITE),
  write_text_file: call(WRITE),
  create_file: call(WRITE),
  edit: call(EDIT),
  fs_edit: call(EDIT),
  "fs/edit": call(EDIT),
  edit_file: call(EDIT),
  edit_text_file: call(EDIT),
  str_replace: call(EDIT),
  replace: call(EDIT),
  str_replace_editor: TEXT_EDITOR,
  str_replace_based_edit_tool: TEXT_EDITOR,
  glob: call(GLOB),
  fs_glob: call(GLOB),
  "fs/glob": call(GLOB),
  find_files: call(GLOB),
  list_files: call(LIST),
  list_dir: call(LIST),
  list_directory: call(LIST),
  grep: call(GREP),
  fs_grep: call(GREP),
  "fs/grep": call(GREP),
  search_files: call(GREP),
  grep_search: call(GREP),
  search_file_content: call(GREP),
  search: call(GREP),
};

/** Another agent's tool of this name, matched without regard to case. */
export function foreignTool(
  table: Readonly<Record<string, ForeignTool>>,
  name: string,
): ForeignTool | undefined {
  const key = name.toLowerCase();
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

export type ForeignTranslation =
  | { readonly ok: true; readonly capability: ToolCapability; readonly input: unknown }
  /** No counterpart here: what the model is told, in the profile's tool names. */
  | { readonly ok: false; readonly message: string };

/**
 * A call to another agent's tool `name` as a call to ours: the capability and the input in our
 * field names. Input that is not an object is passed on as it is (the tool's check says what is
 * wrong with it), except where it must pick the operation. `toolName` gives a capability's name
 * in the profile, for the message.
 */
export function translateForeignCall(
  tool: ForeignTool,
  name: string,
  input: unknown,
  toolName: (capability: ToolCapability) => string,
): ForeignTranslation {
  switch (tool.kind) {
    case "call":
      return { ok: true, capability: tool.call.capability, input: translated(tool.call, input) };
    case "by_field": {
      const chosen = isObject(input) ? input[tool.field] : undefined;
      const operation = typeof chosen === "string" && Object.hasOwn(tool.operations, chosen)
        ? tool.operations[chosen]
        : undefined;
      if (operation === undefined || !isObject(input)) {
        return { ok: false, message: noCounterpart(tool, name, chosen, toolName) };
      }
      const { [tool.field]: _picked, ...rest } = input;
      return { ok: true, capability: operation.capability, input: translated(operation, rest) };
    }
    default:
      return tool satisfies never;
  }
}

function noCounterpart(
  tool: Extract<ForeignTool, { kind: "by_field" }>,
  name: string,
  chosen: unknown,
  toolName: (capability: ToolCapability) => string,
): string {
  const listed = Object.entries(tool.operations);
  const known = listed.map(([operation]) => `"${operation}"`).join(", ");
  const runs = listed.map(([, operation]) => toolName(operation.capability)).join(", ");
  const what = typeof chosen === "string"
    ? `${name}'s ${tool.field} "${chosen}" has no counterpart here`
    : `${name} needs a "${tool.field}" naming what to do`;
  return `${what}: its ${tool.field}s ${known} run as ${runs}; for anything else call one of ` +
    "those tools directly";
}

function translated(foreign: ForeignCall, input: unknown): unknown {
  if (!isObject(input)) return input;
  const has = (key: string) => Object.hasOwn(input, key);
  // In the order given, each renamed field where it stood (entries, so that no key of the
  // model's, `__proto__` included, is anything but a field).
  const entries: [string, unknown][] = [];
  for (const [key, value] of Object.entries(input)) {
    const ours = Object.hasOwn(foreign.renames, key) ? foreign.renames[key] : undefined;
    if (key === foreign.lineRange && isLineRange(value)) continue;
    if (ours !== undefined && !has(ours)) entries.push([ours, value]);
    else if (!Object.hasOwn(foreign.whenTrue ?? {}, key) || value !== true) {
      entries.push([key, value]);
    }
  }
  const given = new Set(entries.map(([key]) => key));
  const add = (more: Readonly<Record<string, unknown>>) => {
    for (const [key, value] of Object.entries(more)) {
      if (given.has(key)) continue;
      entries.push([key, value]);
      given.add(key);
    }
  };
  for (const [flag, meaning] of Object.entries(foreign.whenTrue ?? {})) {
    if (input[flag] === true) add(meaning);
  }
  add(foreign.defaults ?? {});
  const range = foreign.lineRange === undefined ? undefined : input[foreign.lineRange];
  if (isLineRange(range)) add(linesOf(range));
  return Object.fromEntries(entries);
}

function isLineRange(value: unknown): value is [number, number] {
  return Array.isArray(value) && value.length === 2 &&
    value.every((n) => typeof n === "number" && Number.isInteger(n)) && value[0] >= 1;
}

/** `[first, last]` as offset and limit (last -1: to the end). */
function linesOf([first, last]: [number, number]): Record<string, number> {
  return last >= first ? { offset: first, limit: last - first + 1 } : { offset: first };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
