/**
 * Notification hooks, fired at the moments the session's profile names (profile/notifications.ts):
 * after each finished message and thought (llama), when the client is asked to allow a tool call
 * and when the session has waited for its next prompt (claude, as Claude Code's
 * `permission_prompt` and `idle_prompt`). They never delay anything: they run beside the session
 * and only their notices come back.
 */
import { notificationFields, type NotificationKind } from "../../profile/notifications.ts";
import type { AgentSession } from "./agent_session.ts";
import { hookNotices } from "./hook_notices.ts";
import type { TurnHookContext } from "../turn/turn_types.ts";

/** A finished agent message or thought, where the profile notifies on them. */
export function notifyFinishedText(
  session: AgentSession,
  turn: TurnHookContext,
  which: "message" | "thought",
  text: string,
): void {
  const moments = session.toolKit.profile.notifications.finishedText;
  if (moments === null || text === "") return;
  fireNotification(session, turn, moments[which], text);
}

/** Shortens the profile's waits (tests): milliseconds. */
export interface NotificationDelays {
  /** Instead of the profile's idle threshold. */
  readonly idleMs?: number;
  /** Instead of the profile's inactivity before a permission question notifies. */
  readonly permissionMs?: number;
}

/**
 * The client is about to be asked to allow a call of `toolName`: where the profile notifies,
 * at once if the user has done nothing for its threshold, else once that much time has passed
 * with the question still open. Call the returned function when the answer comes.
 */
export function notifyPermissionAsked(
  session: AgentSession,
  turn: TurnHookContext,
  toolName: string,
): () => void {
  const moment = session.toolKit.profile.notifications.permissionAsked;
  if (moment === null || !session.hooks.has("Notification")) return () => {};
  const notify = () => fireNotification(session, turn, moment, moment.message(toolName));
  const threshold = session.notificationDelays.permissionMs ?? moment.afterInactiveMs ?? 0;
  if (performance.now() - session.lastInteractionAt >= threshold) {
    notify();
    return () => {};
  }
  const timer = setTimeout(notify, threshold);
  return () => clearTimeout(timer);
}

/**
 * After a prompt was answered: where the profile notifies on idleness, Notification fires once
 * when no prompt came for its threshold. `promptId` is the last prompt's, as Claude Code sends
 * the last one.
 */
export function armIdleNotification(session: AgentSession, promptId: string): void {
  const moment = session.toolKit.profile.notifications.idle;
  if (moment === null || !session.hooks.has("Notification")) return;
  session.whenIdleFor(session.notificationDelays.idleMs ?? moment.afterMs, () => {
    fireNotification(
      session,
      { promptId, signal: session.background.signal },
      moment,
      moment.message,
    );
  });
}

/**
 * Fires Notification without waiting for it: nothing the session does waits on these hooks.
 * They may outlive a turn that ends normally; a cancel of their turn, or the session's close,
 * kills them like every other hook.
 */
function fireNotification(
  session: AgentSession,
  turn: TurnHookContext,
  kind: NotificationKind,
  message: string,
): void {
  if (!session.hooks.has("Notification")) return;
  const signal = AbortSignal.any([turn.signal, session.background.signal]);
  session.runInBackground(
    (async () => {
      // Starting a process holds the agent's thread for a few milliseconds: first let the updates
      // already queued for the client go out.
      await afterQueuedWork(signal);
      if (signal.aborted) return;
      const { decision } = await session.hooks.fire(
        "Notification",
        kind.type,
        notificationFields(session.toolKit.profile.notifications, kind, message),
        { promptId: turn.promptId, signal },
      );
      if (signal.aborted) return;
      for (const notice of hookNotices(decision, null)) session.notice(notice);
    })().catch((error) => session.log(`Notification hooks failed: ${error}`)),
  );
}

/** Resolves on the next turn of the event loop, or at once when `signal` aborts. */
function afterQueuedWork(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, 0);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
