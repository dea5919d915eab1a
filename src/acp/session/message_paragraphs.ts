/**
 * Agent messages as paragraphs of their own. Each message (a model reply, a hook notice) has its
 * own `messageId`, but clients join consecutive `agent_message_chunk`s whatever their ids (acpx
 * printed `Done.Stop says: ...`, Zed appends to the last assistant message): a message that
 * follows agent text of another message starts with a blank line. The transcript keeps what was
 * said; the break is added as it is sent, live and in a replay alike.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";

export const PARAGRAPH_BREAK = "\n\n";

/** What the client's thread shows last: agent text of one message, or anything else. */
export type ThreadTail =
  | { readonly kind: "agent_text"; readonly messageId: string | null | undefined }
  | { readonly kind: "other" };

export const THREAD_START: ThreadTail = { kind: "other" };

/** The tail once `update` is shown, given the tail before it. */
export function threadTailAfter(update: SessionUpdate, before: ThreadTail): ThreadTail {
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
      return { kind: "agent_text", messageId: update.messageId };
    // Session state, not part of the thread: what was shown last stays last.
    case "available_commands_update":
    case "current_mode_update":
    case "config_option_update":
    case "session_info_update":
    case "usage_update":
    // A plan (the model's load progress) is shown apart from the thread, which goes on below it.
    case "plan":
      return before;
    // Each of these is shown apart (a user message, a thought, a tool call's card):
    // agent text after them starts afresh.
    case "user_message_chunk":
    case "agent_thought_chunk":
    case "tool_call":
    case "tool_call_update":
    case "notice":
    case "compaction_summary_chunk":
    case "compaction_update":
      return THREAD_START;
    default:
      update satisfies never;
      return THREAD_START;
  }
}

/** Agent text: the only update a paragraph break is added to or taken from. */
type AgentTextChunk = Extract<SessionUpdate, { sessionUpdate: "agent_message_chunk" }> & {
  readonly content: { readonly type: "text"; readonly text: string };
};

/** Whether `update` begins a message that a client would glue to the agent text before it. */
function startsGluedMessage(update: SessionUpdate, tail: ThreadTail): update is AgentTextChunk {
  return tail.kind === "agent_text" && update.sessionUpdate === "agent_message_chunk" &&
    update.content.type === "text" && (update.messageId == null ||
      update.messageId !== tail.messageId);
}

/** `update` as it is sent after `tail`: a message that follows another's text begins a paragraph. */
export function asParagraph(update: SessionUpdate, tail: ThreadTail): SessionUpdate {
  if (!startsGluedMessage(update, tail) || update.content.text.startsWith(PARAGRAPH_BREAK)) {
    return update;
  }
  return { ...update, content: { ...update.content, text: PARAGRAPH_BREAK + update.content.text } };
}

/**
 * The updates as they were said, for readers of what a client received (`hooks test`, tests):
 * the breaks `asParagraph` added are taken out. A message whose own text began with a blank
 * line loses it too.
 */
export function withoutParagraphBreaks<T extends { readonly update: SessionUpdate }>(
  received: readonly T[],
): T[] {
  let tail = THREAD_START;
  return received.map((item) => {
    const { update } = item;
    const glued = startsGluedMessage(update, tail);
    tail = threadTailAfter(update, tail);
    if (!glued || !update.content.text.startsWith(PARAGRAPH_BREAK)) return item;
    const text = update.content.text.slice(PARAGRAPH_BREAK.length);
    return { ...item, update: { ...update, content: { ...update.content, text } } };
  });
}
