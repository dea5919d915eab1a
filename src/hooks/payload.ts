/**
 * The JSON object every hook receives, built with Claude Code's key order: scripts that print
 * or diff their stdin see the same bytes in both agents.
 */
import type { FiredEventName } from "./event_table.ts";
import type { HookPayload } from "./handler_runner.ts";
import type { NotificationType } from "../profile/notifications.ts";

/** The session permission policies of llama-agent. */
export type PermissionPolicy = "always-ask" | "auto-approve-reads" | "rule-based";

/** The Claude Code names hooks see in `permission_mode`. */
export type PermissionMode = "default" | "acceptEdits";

/** Informational only: it tells a hook how permissive the session is, and never gates firing. */
export function permissionModeFor(policy: PermissionPolicy): PermissionMode {
  switch (policy) {
    case "always-ask":
      return "default";
    case "auto-approve-reads":
    case "rule-based":
      return "acceptEdits";
    default:
      return policy satisfies never;
  }
}

/** Fails to compile when a fired event has no entry. */
type EveryFiredEvent<T extends Record<FiredEventName, object>> = T;

/** The fields each fired event adds after the common ones. */
export type EventFields = EveryFiredEvent<{
  SessionStart: { source: "startup" | "resume" };
  UserPromptSubmit: { prompt: string };
  PreToolUse: { tool_name: string; tool_input: unknown; tool_use_id: string };
  PostToolUse: {
    tool_name: string;
    tool_input: unknown;
    tool_response: unknown;
    tool_use_id: string;
    duration_ms: number;
  };
  PostToolUseFailure: {
    tool_name: string;
    tool_input: unknown;
    tool_use_id: string;
    error: string;
    is_interrupt: boolean;
    duration_ms: number;
  };
  Notification: {
    notification_type: NotificationType;
    message: string;
    /** Absent where Claude Code sends none (`idle_prompt`). */
    title?: string;
  };
  Stop: {
    stop_hook_active: boolean;
    last_assistant_message: string;
    /** Always empty: llama-agent runs no background tasks or session crons. */
    background_tasks: readonly unknown[];
    session_crons: readonly unknown[];
  };
  /** Claude Code's order: the tool, its input, then the rules "always allow" would add. */
  PermissionRequest: {
    tool_name: string;
    tool_input: unknown;
    permission_suggestions: readonly PermissionSuggestion[];
  };
  SessionEnd: { reason: SessionEndReason };
  PostToolBatch: { tool_calls: readonly BatchedToolCall[] };
  /** `custom_instructions`: what followed `/compact`; empty for an automatic compaction. */
  PreCompact: { trigger: CompactTrigger; custom_instructions: string };
  /** `compact_summary`: the summary as the model wrote it. */
  PostCompact: { trigger: CompactTrigger; compact_summary: string };
}>;

/** What started a compaction: the user's `/compact`, or the context filling up. */
export type CompactTrigger = "manual" | "auto";

/**
 * What Claude Code offers to remember when the user answers "always allow": a rule, a directory
 * the session may work in, or a permission mode (claude_permission_suggestions.ts).
 */
export type PermissionSuggestion =
  | {
    readonly type: "addRules";
    readonly rules: readonly { readonly toolName: string; readonly ruleContent?: string }[];
    readonly behavior: "allow";
    readonly destination: "localSettings" | "projectSettings" | "userSettings" | "session";
  }
  | {
    readonly type: "addDirectories";
    readonly directories: readonly string[];
    readonly destination: "session";
  }
  | { readonly type: "setMode"; readonly mode: "acceptEdits"; readonly destination: "session" };

/**
 * Why a session ended, in Claude Code's words: `other` is what it sends when nothing more
 * specific applies (an ACP `session/close`, the agent told to stop).
 */
export type SessionEndReason =
  | "clear"
  | "resume"
  | "logout"
  | "prompt_input_exit"
  | "bypass_permissions_disabled"
  | "other";

/** One call of a batch (claude-compat.md §0.3, §0.6). */
export interface BatchedToolCall {
  readonly tool_name: string;
  /** As the model's next request echoes it, not as Pre/PostToolUse saw it. */
  readonly tool_input: unknown;
  readonly tool_use_id: string;
  /** Exactly the tool result the model got. */
  readonly tool_response: unknown;
}

export interface PayloadSession {
  readonly sessionId: string;
  readonly transcriptPath: string;
  /** The session cwd. */
  readonly cwd: string;
  /** One per `session/prompt`; never sent on SessionStart and SessionEnd. */
  readonly promptId?: string;
  /** Never sent on SessionStart, PreCompact and PostCompact, as in Claude Code. */
  readonly permissionMode?: PermissionMode;
  /**
   * The profile's effort level (compat_profile.ts): sent after `permission_mode` on the events
   * Claude Code sends it on; absent in the default profile.
   */
  readonly effort?: { readonly level: string } | null;
}

/**
 * The events Claude Code fires without a `prompt_id`: the session's start, before any prompt,
 * and its end, which belongs to no prompt (observed on 2.1.332 however the session ended).
 */
const NO_PROMPT_ID: ReadonlySet<FiredEventName> = new Set(["SessionStart", "SessionEnd"]);

/**
 * The events Claude Code fires without a permission mode: the session's start, and compaction
 * (Claude Code builds their input with none, and its hooks reference shows none).
 */
const NO_PERMISSION_MODE: ReadonlySet<FiredEventName> = new Set([
  "SessionStart",
  "PreCompact",
  "PostCompact",
]);

/** The events Claude Code 2.1.332 sends `effort` on. */
const EFFORT_EVENTS: ReadonlySet<FiredEventName> = new Set([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "Stop",
  "PermissionRequest",
  "PostToolBatch",
]);

/**
 * The common fields in Claude Code's order (`session_id`, `transcript_path`, `cwd`, `prompt_id`,
 * `permission_mode`, [`effort`], `hook_event_name`), then the event's own fields in the order
 * given. SessionStart and SessionEnd have no `prompt_id`; SessionStart and the compaction events
 * no `permission_mode`.
 */
export function buildPayload<E extends FiredEventName>(
  event: E,
  session: PayloadSession,
  fields: EventFields[E],
): HookPayload {
  const payload: Record<string, unknown> = {
    session_id: session.sessionId,
    transcript_path: session.transcriptPath,
    cwd: session.cwd,
  };
  if (!NO_PROMPT_ID.has(event) && session.promptId !== undefined) {
    payload.prompt_id = session.promptId;
  }
  if (!NO_PERMISSION_MODE.has(event) && session.permissionMode !== undefined) {
    payload.permission_mode = session.permissionMode;
  }
  if (session.effort && EFFORT_EVENTS.has(event)) payload.effort = { ...session.effort };
  payload.hook_event_name = event;
  return { ...payload, ...fields };
}
