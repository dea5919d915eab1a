/**
 * Readers of `session/update` notifications (as the harness collects them, or as an acpx
 * transcript holds them): the updates, the agent's text, the tool calls.
 */
import { isObject, type JsonObject } from "./json_object.ts";

/** The `update` objects of `session/update` notifications, in order, for one session or all. */
export function sessionUpdatesOf(
  notifications: readonly unknown[],
  sessionId?: string,
): JsonObject[] {
  const updates: JsonObject[] = [];
  for (const notification of notifications) {
    if (!isObject(notification) || notification.method !== "session/update") continue;
    const params = notification.params;
    if (!isObject(params) || !isObject(params.update)) continue;
    if (sessionId !== undefined && params.sessionId !== sessionId) continue;
    updates.push(params.update);
  }
  return updates;
}

/** The text of the `agent_message_chunk` updates, concatenated. */
export function agentTextOf(notifications: readonly unknown[], sessionId?: string): string {
  return sessionUpdatesOf(notifications, sessionId)
    .filter((update) => update.sessionUpdate === "agent_message_chunk")
    .map((update) => isObject(update.content) ? update.content.text : undefined)
    .filter((text): text is string => typeof text === "string")
    .join("");
}

/** The `tool_call` and `tool_call_update` updates, in order. */
export function toolCallUpdatesOf(
  notifications: readonly unknown[],
  sessionId?: string,
): JsonObject[] {
  return sessionUpdatesOf(notifications, sessionId).filter((update) =>
    update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update"
  );
}
