/**
 * The two ways llama-agent presents itself to hooks, as data the parts read.
 *
 * - `llama`: the source document's contract. The model is offered `shell`, `fs_read`,
 *   `fs_write`, `fs_edit`, `fs_glob`, `fs_grep`; the dispatcher also accepts their aliases.
 * - `claude`: exactly as Claude Code 2.1.332 does. The model is offered `Bash`, `Read`, `Write`,
 *   `Edit`, `Glob`, `Grep` with Claude Code's input schemas, so an unmodified Claude Code setup
 *   (matchers, `if` rules, scripts that check `tool_name`) guards the local model. No aliases: a
 *   guard on `Bash` must not be walked around by calling the same capability by another name.
 *
 * Which one a session gets is decided per session directory unless forced (`auto`, the default:
 * src/hooks/profile_decision.ts): Claude Code's when its hooks name Claude Code's tools and none
 * of llama-agent's, llama-agent's own otherwise.
 *
 * In both, a call under another agent's name (`bash`, `str_replace_editor`, the other profile's
 * names) is renamed to the profile's own tool before anything sees it (foreign_tools.ts).
 */
import type { ToolCapability } from "./tool_identity.ts";
import { CLAUDE_SHELL_STYLE, LLAMA_SHELL_STYLE, type ShellStyle } from "./shell_style.ts";
import { CLAUDE_CUT_NOTES, type CutNotes, LLAMA_CUT_NOTES } from "./cut_notes.ts";
import { FOREIGN_TOOLS, type ForeignTool, foreignTool } from "./foreign_tools.ts";
import {
  CLAUDE_NOTIFICATIONS,
  LLAMA_NOTIFICATIONS,
  type NotificationMoments,
} from "./notifications.ts";

export const COMPAT_PROFILE_IDS = ["llama", "claude"] as const;
export type CompatProfileId = (typeof COMPAT_PROFILE_IDS)[number];
/** What `--compat` takes: a profile, or `auto` (each session's hooks decide). */
export const COMPAT_CHOICES = ["auto", ...COMPAT_PROFILE_IDS] as const;
export type CompatChoice = (typeof COMPAT_CHOICES)[number];
export const DEFAULT_COMPAT_CHOICE: CompatChoice = "auto";
/** The profile of what has no hooks to decide by (`auto` with none, `compatProfile()`). */
export const DEFAULT_COMPAT_PROFILE: CompatProfileId = "llama";
/** The environment variable that chooses the profile when no `--compat` flag is given. */
export const COMPAT_ENV = "LLAMA_AGENT_COMPAT";

/**
 * What was asked for: a profile, forced whatever the hooks say, or `"auto"`, decided for each
 * session directory from its hooks (src/hooks/profile_choice.ts).
 */
export type ProfileSetting = CompatProfile | "auto";

export interface ProfileTool {
  readonly capability: ToolCapability;
  /** The name the model is offered: matchers, `if` rules and `tool_name` see it. */
  readonly name: string;
  /** Other names the dispatcher accepts for the same capability (never offered). */
  readonly aliases: readonly string[];
}

export interface CompatProfile {
  readonly id: CompatProfileId;
  /** The built-in tools, in the order they are offered. */
  readonly tools: readonly ProfileTool[];
  /**
   * Sent after `permission_mode` on the events Claude Code sends it on; null: not sent (the
   * source document has no effort level).
   */
  readonly effort: { readonly level: string } | null;
  /**
   * Claude Code checks a call's input (and, for an edit, the file) before any hook runs: a call
   * that fails the check fires no tool hook and the model reads `<tool_use_error>…`. The source
   * document fires PreToolUse for every call and reports bad input as a failed call.
   */
  readonly validatesBeforeHooks: boolean;
  /**
   * Events that fire in this profile beyond the source document's seven. The source document
   * drops `PermissionRequest`, `SessionEnd` and `PreCompact`, never emits `PostCompact` and knows
   * no `PostToolBatch`; Claude Code fires all five, and the agent has a seam for each (the
   * permission request, the end of a session, the end of a batch of tool calls, before and after
   * a compaction of the conversation).
   */
  readonly extraEvents: readonly string[];
  /**
   * Whether plugin hooks load (`--plugin-dir`, and the plugins the settings chain enables): the
   * source document lists plugin hooks as unsupported.
   */
  readonly readsPlugins: boolean;
  /**
   * Which transcript `transcript_path` names: llama-agent's own `raw.jsonl`, or a transcript in
   * Claude Code's format at Claude Code's path, for hooks that read the conversation from it.
   */
  readonly transcript: "raw" | "claude";
  /**
   * How the shell tool runs a command (shell_style.ts): Claude Code's bash whose `cd` carries
   * over, or the source document's `/bin/sh -c` in the session's directory every time.
   */
  readonly shell: ShellStyle;
  /**
   * The project's instruction files, read from the session cwd into the system prompt in this
   * order: `AGENTS.md`, as peer agents read it, and in this profile also `CLAUDE.md`, which an
   * unmodified Claude Code setup keeps its instructions in (first, so it wins the size cap).
   */
  readonly instructionFiles: readonly string[];
  /**
   * What the model reads where a tool result was cut to fit its context (cut_notes.ts): the
   * claude profile keeps Claude Code's own truncation wording where it has one.
   */
  readonly cutNotes: CutNotes;
  /**
   * Other agents' tool names (lower case) a call is renamed from, onto this profile's tools,
   * before any hook, rule or transcript sees it; the profile's own names and aliases come first.
   */
  readonly foreignTools: Readonly<Record<string, ForeignTool>>;
  /**
   * When Notification fires and with which `notification_type` (notifications.ts): llama-agent's
   * per finished message and thought, or Claude Code's when the user is asked and when idle.
   */
  readonly notifications: NotificationMoments;
  /**
   * Whether a hook's top-level `additionalContext` reaches the model: the source document reads
   * it; Claude Code reads `additionalContext` only inside `hookSpecificOutput`, and a top-level
   * one is ignored (here the user is told, decision.ts).
   */
  readonly readsTopLevelContext: boolean;
}

const LLAMA: CompatProfile = {
  id: "llama",
  tools: [
    { capability: "shell", name: "shell", aliases: ["terminal"] },
    { capability: "fs_read", name: "fs_read", aliases: ["fs/read", "read_file", "read_text_file"] },
    {
      capability: "fs_write",
      name: "fs_write",
      aliases: ["fs/write", "write_file", "write_text_file"],
    },
    { capability: "fs_edit", name: "fs_edit", aliases: ["fs/edit", "edit_file", "edit_text_file"] },
    { capability: "fs_glob", name: "fs_glob", aliases: ["fs/glob", "glob", "find_files"] },
    { capability: "fs_grep", name: "fs_grep", aliases: ["fs/grep", "grep", "search_files"] },
  ],
  effort: null,
  validatesBeforeHooks: false,
  extraEvents: [],
  readsPlugins: false,
  transcript: "raw",
  shell: LLAMA_SHELL_STYLE,
  instructionFiles: ["AGENTS.md"],
  cutNotes: LLAMA_CUT_NOTES,
  foreignTools: FOREIGN_TOOLS,
  notifications: LLAMA_NOTIFICATIONS,
  readsTopLevelContext: true,
};

const CLAUDE: CompatProfile = {
  id: "claude",
  tools: [
    { capability: "shell", name: "Bash", aliases: [] },
    { capability: "fs_read", name: "Read", aliases: [] },
    { capability: "fs_write", name: "Write", aliases: [] },
    { capability: "fs_edit", name: "Edit", aliases: [] },
    { capability: "fs_glob", name: "Glob", aliases: [] },
    { capability: "fs_grep", name: "Grep", aliases: [] },
  ],
  effort: { level: "medium" },
  validatesBeforeHooks: true,
  extraEvents: ["PermissionRequest", "SessionEnd", "PostToolBatch", "PreCompact", "PostCompact"],
  readsPlugins: true,
  transcript: "claude",
  shell: CLAUDE_SHELL_STYLE,
  instructionFiles: ["CLAUDE.md", "AGENTS.md"],
  cutNotes: CLAUDE_CUT_NOTES,
  foreignTools: FOREIGN_TOOLS,
  notifications: CLAUDE_NOTIFICATIONS,
  readsTopLevelContext: false,
};

export const COMPAT_PROFILES: Readonly<Record<CompatProfileId, CompatProfile>> = {
  llama: LLAMA,
  claude: CLAUDE,
};

export function compatProfile(id: CompatProfileId = DEFAULT_COMPAT_PROFILE): CompatProfile {
  return COMPAT_PROFILES[id];
}

export function isCompatProfileId(value: string): value is CompatProfileId {
  return (COMPAT_PROFILE_IDS as readonly string[]).includes(value);
}

/** The built-in tool an emitted name calls in this profile (its name or an alias). */
export function profileTool(profile: CompatProfile, name: string): ProfileTool | undefined {
  return profile.tools.find((tool) => tool.name === name || tool.aliases.includes(name));
}

/** Another agent's tool an emitted name stands for, where it is none of the profile's own. */
export function foreignToolOf(profile: CompatProfile, name: string): ForeignTool | undefined {
  if (profileTool(profile, name) !== undefined) return undefined;
  return foreignTool(profile.foreignTools, name);
}

export function capabilityOf(profile: CompatProfile, name: string): ToolCapability | undefined {
  return profileTool(profile, name)?.capability;
}

/** The name this profile offers for a capability. */
export function toolNameOf(profile: CompatProfile, capability: ToolCapability): string {
  const tool = profile.tools.find((candidate) => candidate.capability === capability);
  if (tool === undefined) throw new Error(`profile ${profile.id} has no ${capability} tool`);
  return tool.name;
}

/** Every built-in name the dispatcher accepts in this profile, offered names first. */
export function acceptedToolNames(profile: CompatProfile): string[] {
  return [...profile.tools.map((tool) => tool.name), ...profile.tools.flatMap((t) => t.aliases)];
}

/**
 * Every name a capability has in any profile, offered names and aliases: a permission rule
 * about `shell` must hold for `terminal` and `Bash` too, or another name would walk around it.
 */
export function namesOfCapability(capability: ToolCapability): string[] {
  return COMPAT_PROFILE_IDS.flatMap((id) =>
    COMPAT_PROFILES[id].tools
      .filter((tool) => tool.capability === capability)
      .flatMap((tool) => [tool.name, ...tool.aliases])
  );
}

/**
 * The profile setting chosen by a `--compat` flag or, without one, by `LLAMA_AGENT_COMPAT`, else
 * `auto`; `origin` names where it came from (`--compat`, the variable, `default`). An error
 * message naming where the bad value came from.
 */
export function chooseCompatProfile(
  flag: string | undefined,
  env: (name: string) => string | undefined,
): { readonly ok: true; readonly setting: ProfileSetting; readonly origin: string } | {
  readonly ok: false;
  readonly message: string;
} {
  const fromEnv = env(COMPAT_ENV);
  const [value, where] = flag !== undefined
    ? [flag, "--compat"]
    : fromEnv !== undefined && fromEnv !== ""
    ? [fromEnv, COMPAT_ENV]
    : [DEFAULT_COMPAT_CHOICE, "default"];
  if (value === "auto") return { ok: true, setting: "auto", origin: where };
  if (isCompatProfileId(value)) return { ok: true, setting: compatProfile(value), origin: where };
  return {
    ok: false,
    message: `${where} must be one of ${COMPAT_CHOICES.map((id) => `"${id}"`).join(", ")}, ` +
      `not "${value}": "auto" decides from the hooks, "llama" presents llama-agent's own ` +
      `tools to hooks, "claude" presents Claude Code's`,
  };
}
