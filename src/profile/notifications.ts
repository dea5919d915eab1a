/**
 * When Notification hooks fire, and what their `notification_type`, `message` and `title` are,
 * in each profile's words (src/acp/session/notification_hooks.ts fires them).
 *
 * - `llama`: the source document's contract (hooks.md §4): once per finished agent message and
 *   thought, `notification_type` `agent_message` / `agent_thought`, the whole text as `message`.
 * - `claude`: Claude Code's moments and words (its hooks reference, Notification): the user is
 *   asked to allow a tool call and has not answered within 6 seconds of their last action
 *   (`permission_prompt`, "Claude needs your permission to use Bash"), and the session has
 *   waited for the user's next prompt for 60 seconds (`idle_prompt`, "Claude is waiting for
 *   your input"); neither has a title. Claude Code sends no notification per message, so a
 *   notifier written for it alerts when it would there.
 */

/** Every `notification_type` some profile sends. */
export type NotificationType =
  | "agent_message"
  | "agent_thought"
  | "plan"
  | "permission_prompt"
  | "idle_prompt";

/** One kind of notification: its type, and its `title` (absent: the payload has none). */
export interface NotificationKind {
  readonly type: NotificationType;
  readonly title?: string;
}

export interface NotificationMoments {
  /**
   * The payload's own fields in order: the source document's `notification_type`, `message`,
   * `title`, or Claude Code's `message`, `title`, `notification_type`.
   */
  readonly typeFirst: boolean;
  /** Each finished agent message and thought, its text the `message`; null: none. */
  readonly finishedText: {
    readonly message: NotificationKind;
    readonly thought: NotificationKind;
  } | null;
  /**
   * The client is asked to allow a tool call (`session/request_permission`); null: none. With
   * `afterInactiveMs`, only once the user has done nothing the agent can see (a prompt, an
   * answer) for that long: at once when that time has passed already, else when it has and the
   * question is still open.
   */
  readonly permissionAsked:
    | NotificationKind & {
      readonly message: (toolName: string) => string;
      readonly afterInactiveMs?: number;
    }
    | null;
  /**
   * No prompt came for `afterMs` after the last answer; null: none. An ACP agent cannot see the
   * user typing in the editor: idle means no `session/prompt` since the last one was answered.
   */
  readonly idle: NotificationKind & { readonly message: string; readonly afterMs: number } | null;
}

export const LLAMA_NOTIFICATIONS: NotificationMoments = {
  typeFirst: true,
  finishedText: {
    message: { type: "agent_message", title: "llama-agent message" },
    thought: { type: "agent_thought", title: "llama-agent thought" },
  },
  permissionAsked: null,
  idle: null,
};

/** Claude Code's idle threshold (`messageIdleNotifThresholdMs`): 60 s. */
export const CLAUDE_IDLE_AFTER_MS = 60_000;

/**
 * Claude Code's permission dialog notifies through `useNotifyAfterTimeout`: once the user has
 * not touched the terminal for 6 s (`DEFAULT_INTERACTION_THRESHOLD_MS`).
 */
export const CLAUDE_PERMISSION_AFTER_INACTIVE_MS = 6_000;

export const CLAUDE_NOTIFICATIONS: NotificationMoments = {
  typeFirst: false,
  finishedText: null,
  // No title: the dialog passes only the message and the type (the hooks reference's example
  // shows a "Permission needed" title, which Claude Code's own call never sets).
  permissionAsked: {
    type: "permission_prompt",
    message: (toolName) => `Claude needs your permission to use ${toolName}`,
    afterInactiveMs: CLAUDE_PERMISSION_AFTER_INACTIVE_MS,
  },
  idle: {
    type: "idle_prompt",
    message: "Claude is waiting for your input",
    afterMs: CLAUDE_IDLE_AFTER_MS,
  },
};

/** Every `notification_type` a profile's moments send: what its Notification matchers can match. */
export function notificationTypes(moments: NotificationMoments): NotificationType[] {
  return [
    ...(moments.finishedText === null
      ? []
      : [moments.finishedText.message.type, moments.finishedText.thought.type]),
    ...(moments.permissionAsked === null ? [] : [moments.permissionAsked.type]),
    ...(moments.idle === null ? [] : [moments.idle.type]),
  ];
}

/** The payload's own fields, in the profile's order; no `title` where the kind has none. */
export function notificationFields(
  moments: NotificationMoments,
  kind: NotificationKind,
  message: string,
): { notification_type: NotificationType; message: string; title?: string } {
  const title = kind.title === undefined ? {} : { title: kind.title };
  return moments.typeFirst
    ? { notification_type: kind.type, message, ...title }
    : { message, ...title, notification_type: kind.type };
}

/** The first kind a profile sends: what a partial Notification payload is completed with. */
export function firstNotificationKind(moments: NotificationMoments): NotificationKind | undefined {
  return moments.finishedText?.message ?? moments.permissionAsked ?? moments.idle ?? undefined;
}
