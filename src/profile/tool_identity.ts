/**
 * What a built-in tool is, whatever it is called: a capability of the agent (run a command,
 * read, write or edit a file, find files, search their text), how the client shows it, and which
 * part of its input an `if` rule's pattern is tested against. The names the model is offered are
 * a profile's (compat_profile.ts); this file holds what every profile shares.
 */
import type { ToolKind } from "@agentclientprotocol/sdk";

export const TOOL_CAPABILITIES = [
  "shell",
  "fs_read",
  "fs_write",
  "fs_edit",
  "fs_glob",
  "fs_grep",
] as const;
export type ToolCapability = (typeof TOOL_CAPABILITIES)[number];

/**
 * Which input field an `if` rule's pattern (`Tool(pattern)`) is tested against: a command line
 * (prefix rules, compound commands split) or a path (glob patterns from the project root).
 */
export type RuleSubject =
  | { readonly kind: "command"; readonly field: "command" }
  | { readonly kind: "path"; readonly field: "file_path" | "path" };

export interface CapabilitySpec {
  /** The kind the client picks an icon by (ACP `tool_call.kind`). */
  readonly kind: ToolKind;
  /** Only looks: the `auto-approve-reads` policy lets it run without asking. */
  readonly readOnly: boolean;
  readonly ruleSubject: RuleSubject;
}

export const CAPABILITIES: Readonly<Record<ToolCapability, CapabilitySpec>> = {
  shell: { kind: "execute", readOnly: false, ruleSubject: { kind: "command", field: "command" } },
  fs_read: { kind: "read", readOnly: true, ruleSubject: { kind: "path", field: "file_path" } },
  fs_write: { kind: "edit", readOnly: false, ruleSubject: { kind: "path", field: "file_path" } },
  fs_edit: { kind: "edit", readOnly: false, ruleSubject: { kind: "path", field: "file_path" } },
  fs_glob: { kind: "search", readOnly: true, ruleSubject: { kind: "path", field: "path" } },
  fs_grep: { kind: "search", readOnly: true, ruleSubject: { kind: "path", field: "path" } },
};

export const MCP_TOOL_PREFIX = "mcp__";

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}
