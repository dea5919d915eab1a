/**
 * The names of llama-agent's built-in tools as the model may emit them, and the Claude Code tool
 * names users carry over from their settings. Hook matchers are tested against the emitted name,
 * so `hooks lint` needs both sides to tell a matcher that can never fire.
 */

export type ToolCapability = "shell" | "fs_read" | "fs_write";

/** Canonical name → the other names the dispatcher accepts for the same capability. */
export const TOOL_ALIASES: Readonly<Record<ToolCapability, readonly string[]>> = {
  shell: ["terminal"],
  fs_read: ["fs/read", "read_file", "read_text_file"],
  fs_write: ["fs/write", "write_file", "write_text_file"],
};

/** Every built-in name the model may emit, canonical names first. */
export const BUILT_IN_TOOL_NAMES: readonly string[] = [
  ...Object.keys(TOOL_ALIASES),
  ...Object.values(TOOL_ALIASES).flat(),
];

/** The capability an emitted name resolves to, or undefined for MCP and unknown names. */
export function capabilityOf(name: string): ToolCapability | undefined {
  for (const [canonical, aliases] of Object.entries(TOOL_ALIASES)) {
    if (name === canonical || aliases.includes(name)) return canonical as ToolCapability;
  }
  return undefined;
}

export const MCP_TOOL_PREFIX = "mcp__";

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}

/**
 * Claude Code's built-in tools and the llama-agent matcher to write instead (null: llama-agent
 * has no such tool).
 */
export const CLAUDE_CODE_TOOLS: Readonly<Record<string, string | null>> = {
  Bash: "shell",
  BashOutput: null,
  KillShell: null,
  Read: "fs_read",
  NotebookRead: "fs_read",
  Write: "fs_write",
  Edit: "fs_write",
  MultiEdit: "fs_write",
  NotebookEdit: null,
  Glob: "shell",
  Grep: "shell",
  LS: "shell",
  WebFetch: null,
  WebSearch: null,
  Task: null,
  Agent: null,
  TodoWrite: null,
  ExitPlanMode: null,
  Skill: null,
  SlashCommand: null,
};
