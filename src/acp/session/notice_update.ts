/**
 * A notice for the user, never for a model, as the client is sent it: ACP's `notice` update to a
 * client that takes them, an agent message marked with NOTICE_META_KEY to others.
 */
import type { NoticeSeverity, SessionUpdate } from "@agentclientprotocol/sdk";
import { NOTICE_META_KEY } from "./hook_notices.ts";

/** A notice as a marked agent message, for a client without `notice` updates. */
export function noticeUpdate(text: string): SessionUpdate {
  return {
    sessionUpdate: "agent_message_chunk",
    messageId: crypto.randomUUID(),
    content: { type: "text", text },
    _meta: { [NOTICE_META_KEY]: true },
  };
}

/**
 * A notice as ACP's `notice` update: its first line is the title, which stands alone; the rest,
 * if any, its description.
 */
export function noticeOf(text: string, severity: NoticeSeverity): SessionUpdate {
  const [first = "", ...rest] = text.trim().split("\n");
  const description = rest.join("\n").trim();
  return {
    sessionUpdate: "notice",
    severity,
    // The schema wants a title of at least one character.
    title: first.trim() === "" ? "llama-agent" : first.trim(),
    ...(description === "" ? {} : { description }),
  };
}

/** Whether an update is a notice sent as a marked agent message. */
export function isNoticeText(update: SessionUpdate): boolean {
  return update.sessionUpdate === "agent_message_chunk" && update._meta?.[NOTICE_META_KEY] === true;
}

/** What the user is told when the transcript stops being written (a full disk). */
export function transcriptFailureNotice(failure: string): string {
  return `${failure}; the session goes on, but nothing from here on is saved: a later load or ` +
    "resume brings it back only up to this point. Free some disk space (or fix what the error " +
    "names), then start a new session to keep a full history";
}
