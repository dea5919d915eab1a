/**
 * Claude Code's built-in tools, as settings files written for it name them, and the capability
 * of ours each one is (null: llama-agent has no such tool). `MultiEdit` and `LS` no longer exist
 * in Claude Code 2.1.332 but older settings still name them.
 */
import type { ToolCapability } from "./tool_identity.ts";

export const CLAUDE_CODE_TOOLS: Readonly<Record<string, ToolCapability | null>> = {
  Bash: "shell",
  BashOutput: null,
  KillShell: null,
  Read: "fs_read",
  NotebookRead: "fs_read",
  Write: "fs_write",
  Edit: "fs_edit",
  MultiEdit: "fs_edit",
  NotebookEdit: null,
  Glob: "fs_glob",
  Grep: "fs_grep",
  LS: null,
  WebFetch: null,
  WebSearch: null,
  Task: null,
  Agent: null,
  TodoWrite: null,
  ExitPlanMode: null,
  Skill: null,
  SlashCommand: null,
};

/** The capability a Claude Code tool name is, null when we have none, undefined when not one. */
export function claudeCodeCapability(name: string): ToolCapability | null | undefined {
  return Object.hasOwn(CLAUDE_CODE_TOOLS, name) ? CLAUDE_CODE_TOOLS[name] : undefined;
}
