/**
 * Configuration problems as data: every problem found in a settings file names the file, the
 * JSON pointer of the entry, and its line, so a user can go straight to it.
 */

export type DiagnosticSeverity = "error" | "warning";

/** Stable codes: tests, `hooks lint --format json` and `hooks test` match on these. */
export type DiagnosticCode =
  | "SETTINGS_UNREADABLE"
  | "SETTINGS_PARSE"
  | "SETTINGS_INVALID"
  | "EVENT_UNKNOWN"
  | "MATCHER_INVALID"
  | "HANDLER_INVALID"
  | "HOOK_OUTPUT_INVALID"
  // An enabled plugin that cannot be found where Claude Code keeps installed plugins.
  | "PLUGIN_ID_INVALID"
  | "PLUGIN_NOT_INSTALLED"
  | "PLUGIN_REGISTRY_UNREADABLE"
  | "PLUGIN_REGISTRY_INVALID"
  | "PLUGIN_MARKETPLACE_UNKNOWN"
  | "PLUGIN_SOURCE_MISSING"
  | "PLUGIN_SOURCE_OUTSIDE_MARKETPLACE"
  /** A plugin's file (`hooks.json`, `plugin.json`, its marketplace's listing) links elsewhere. */
  | "PLUGIN_LINK_OUTSIDE"
  // Warnings raised by `hooks lint` only.
  | "LINT_TOOL_NEVER_MATCHES"
  | "LINT_TIMEOUT_LOOKS_LIKE_MS"
  | "LINT_JSONC_REJECTED_BY_CLAUDE"
  | "LINT_FIELD_NO_EFFECT"
  | "LINT_EVENT_NEVER_FIRES"
  | "LINT_DISABLE_ALL_HOOKS"
  | "LINT_CLAUDE_DROPS_FILE"
  | "LINT_SCRIPT_MISSING"
  | "LINT_SCRIPT_NOT_EXECUTABLE"
  | "LINT_MATCHER_IGNORED"
  /** Some names of a list matcher never match (the hook still runs for the others). */
  | "LINT_TOOL_PARTLY_MATCHES"
  /** An `if` names the other profile's tool: the hook never runs under this one. */
  | "LINT_IF_FOREIGN_TOOL"
  /** An `if` that can never hold (invalid, no such tool, on an event without a tool call). */
  | "LINT_IF_NEVER_MATCHES"
  /** A command or its script compares `tool_name` with the other profile's tool names. */
  | "LINT_TOOL_NAME_CHECK_FOREIGN"
  | "LINT_COMMAND_NOT_FOUND"
  | "LINT_BASH_ONLY_SYNTAX"
  /** A key repeats in one object: only its last value is read, the earlier ones are ignored. */
  | "LINT_DUPLICATE_KEY"
  /** `${CLAUDE_PLUGIN_ROOT}` or `CLAUDE_PLUGIN_DATA` in a settings hook, where it is empty. */
  | "LINT_PLUGIN_ROOT_OUTSIDE_PLUGIN"
  /**
   * A command prints a literal answer the event cannot use (JSON that does not parse, invalid
   * output) or partly ignores (a field the event does not read).
   */
  | "LINT_OUTPUT_IGNORED";

export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly severity: DiagnosticSeverity;
  /** Path of the settings file, as it was opened. */
  readonly file: string;
  /** JSON pointer of the offending entry ("" for the whole file). */
  readonly pointer: string;
  /** 1-based line and column of the entry, when known. */
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
}

/** `file:line:column: message (at pointer)`, the one-line form every command prints. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line === undefined
    ? d.file
    : `${d.file}:${d.line}${d.column ? `:${d.column}` : ""}`;
  const at = d.pointer === "" ? "" : ` at ${d.pointer}`;
  return `${where}: ${d.severity}: ${d.message}${at} [${d.code}]`;
}

/** Builds a JSON pointer from path segments, escaping `~` and `/` (RFC 6901). */
export function jsonPointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => "/" + String(s).replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}
