/**
 * A whole payload from a partial one: what `hooks run --input` and `hooks test` event cases
 * give is completed with the fields a real session would send, so a hook sees the same shape.
 * Fields given win over the defaults, in the position Claude Code puts them.
 */
import { type FiredEventName, HOOK_EVENTS } from "./event_table.ts";
import type { HookPayload } from "./handler_runner.ts";
import { buildPayload, type EventFields, type PayloadSession } from "./payload.ts";
import {
  firstNotificationKind,
  notificationFields,
  type NotificationMoments,
} from "../profile/notifications.ts";

export type CompletedPayload =
  | { readonly ok: true; readonly payload: HookPayload; readonly matcherValue: string | null }
  | { readonly ok: false; readonly error: string };

/** Fields an event cannot do without: nothing sensible can stand in for them. */
const REQUIRED: Partial<Record<FiredEventName, readonly string[]>> = {
  PreToolUse: ["tool_name"],
  PostToolUse: ["tool_name"],
  PostToolUseFailure: ["tool_name"],
  PermissionRequest: ["tool_name"],
};

/**
 * The session a partial payload is completed for: `notifications`, the profile's (a partial
 * Notification gets its first type, its title and its key order); llama-agent's
 * `agent_message` with an empty title when absent.
 */
export interface CompletionSession extends PayloadSession {
  readonly notifications?: NotificationMoments;
}

export function completePayload(
  event: FiredEventName,
  partial: Readonly<Record<string, unknown>>,
  session: CompletionSession,
  newId: () => string = () => crypto.randomUUID(),
): CompletedPayload {
  for (const field of REQUIRED[event] ?? []) {
    const value = partial[field];
    if (value === undefined || value === "") {
      return { ok: false, error: `"${field}" is required for ${event}: give it in the input` };
    }
    if (typeof value !== "string") {
      return { ok: false, error: `"${field}" must be a string for ${event}` };
    }
  }
  const base = buildPayload(event, session, defaultFields(event, partial, session, newId));
  const payload: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(partial)) {
    // The event decides the name; a payload claiming another event would only confuse hooks.
    if (key !== "hook_event_name") payload[key] = value;
  }
  const field = HOOK_EVENTS[event].matcherField;
  if (field === null) return { ok: true, payload, matcherValue: null };
  const value = payload[field];
  if (typeof value !== "string") {
    return { ok: false, error: `"${field}" must be a string for ${event}` };
  }
  return { ok: true, payload, matcherValue: value };
}

function defaultFields(
  event: FiredEventName,
  partial: Readonly<Record<string, unknown>>,
  session: CompletionSession,
  newId: () => string,
): EventFields[FiredEventName] {
  const toolName = String(partial["tool_name"] ?? "");
  const tool = { tool_name: toolName, tool_input: {}, tool_use_id: `toolu_${newId()}` };
  switch (event) {
    case "SessionStart":
      return { source: "startup" };
    case "UserPromptSubmit":
      return { prompt: "" };
    case "PreToolUse":
      return tool;
    case "PostToolUse":
      return {
        tool_name: tool.tool_name,
        tool_input: tool.tool_input,
        tool_response: {},
        tool_use_id: tool.tool_use_id,
        duration_ms: 0,
      };
    case "PostToolUseFailure":
      return { ...tool, error: "", is_interrupt: false, duration_ms: 0 };
    case "Notification": {
      const moments = session.notifications;
      const kind = moments === undefined ? undefined : firstNotificationKind(moments);
      if (moments === undefined || kind === undefined) {
        return { notification_type: "agent_message", message: "", title: "" };
      }
      return notificationFields(moments, kind, "");
    }
    case "Stop":
      return {
        stop_hook_active: false,
        last_assistant_message: "",
        background_tasks: [],
        session_crons: [],
      };
    case "PermissionRequest":
      return { tool_name: toolName, tool_input: {}, permission_suggestions: [] };
    case "SessionEnd":
      return { reason: "other" };
    case "PostToolBatch":
      return { tool_calls: [] };
    case "PreCompact":
      return { trigger: "manual", custom_instructions: "" };
    case "PostCompact":
      return { trigger: "manual", compact_summary: "" };
    default:
      return event satisfies never;
  }
}
