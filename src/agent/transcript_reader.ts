/**
 * Reads a transcript back: the records, the updates a `session/load` replays, and the
 * conversation the model continues from.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { AssistantSegment, ConversationItem } from "../model/model.ts";
import { type SessionRecord, TranscriptRecord } from "./transcript_record.ts";

/** Marks an agent message that is a hook's notice to the user, not the model's words. */
export const NOTICE_META_KEY = "llama-agent/notice";

export interface Transcript {
  readonly session: SessionRecord;
  readonly records: readonly TranscriptRecord[];
}

export type TranscriptReadResult =
  | { readonly ok: true; readonly transcript: Transcript }
  | { readonly ok: false; readonly reason: "missing" | "invalid"; readonly message: string };

export async function readTranscript(path: string): Promise<TranscriptReadResult> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { ok: false, reason: "missing", message: `No transcript at "${path}"` };
    }
    throw error;
  }
  const records: TranscriptRecord[] = [];
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      // A torn last line (the agent died mid-write) loses only that line.
      if (index === lines.length - 1) break;
      return invalid(path, index, "the line is not JSON");
    }
    const parsed = TranscriptRecord.safeParse(json);
    if (!parsed.success) {
      return invalid(path, index, parsed.error.issues[0]?.message ?? "bad record");
    }
    records.push(parsed.data);
  }
  const first = records[0];
  if (first?.type !== "session") {
    return invalid(path, 0, "the first record must be the session record");
  }
  return { ok: true, transcript: { session: first, records } };
}

function invalid(path: string, index: number, detail: string): TranscriptReadResult {
  return {
    ok: false,
    reason: "invalid",
    message: `Invalid transcript "${path}" at line ${index + 1}: ${detail}`,
  };
}

/**
 * What `session/load` sends: each prompt as user message chunks, then every recorded
 * conversation update. A client terminal does not outlive its command, so a call that ran in one
 * is replayed with its output as text, and the update that only embedded the live terminal is
 * left out.
 */
export function replayUpdates(records: readonly TranscriptRecord[]): SessionUpdate[] {
  const results = new Map<string, string>();
  for (const record of records) {
    if (record.type === "tool_call") results.set(record.toolCallId, record.result);
  }
  const updates: SessionUpdate[] = [];
  for (const record of records) {
    if (record.type === "prompt") {
      for (const content of record.prompt) {
        updates.push({ sessionUpdate: "user_message_chunk", content });
      }
    } else if (record.type === "update" && record.replay !== false) {
      const update = withoutTerminals(record.update, results);
      if (update) updates.push(update);
    }
  }
  return updates;
}

function withoutTerminals(
  update: SessionUpdate,
  results: ReadonlyMap<string, string>,
): SessionUpdate | undefined {
  if (
    update.sessionUpdate !== "tool_call_update" ||
    !update.content?.some((c) => c.type === "terminal")
  ) {
    return update;
  }
  if (!update.status) return undefined;
  const text = results.get(update.toolCallId) ?? "(the command's output was not recorded)";
  const content = update.content.filter((c) => c.type !== "terminal");
  return { ...update, content: [{ type: "content", content: { type: "text", text } }, ...content] };
}

/**
 * The conversation as the model saw it: each prompt's text, then the assistant's streamed text and
 * thoughts interleaved with its tool calls and their results, in the order they happened.
 */
export function conversationFromTranscript(
  records: readonly TranscriptRecord[],
): ConversationItem[] {
  const items: ConversationItem[] = [];
  let segments: AssistantSegment[] = [];
  const closeAssistant = () => {
    if (segments.length > 0) items.push({ role: "assistant", segments });
    segments = [];
  };
  const appendText = (type: "text" | "thought", text: string) => {
    const last = segments.at(-1);
    if (last?.type === type) segments[segments.length - 1] = { type, text: last.text + text };
    else segments.push({ type, text });
  };
  for (const record of records) {
    switch (record.type) {
      case "prompt":
        if (record.refused) break;
        closeAssistant();
        items.push({ role: "user", text: record.text });
        break;
      case "hook_feedback":
        closeAssistant();
        items.push({ role: "user", text: record.text });
        break;
      case "update": {
        const update = record.update;
        // Hook notices are for the user: the model never read them.
        if (update._meta?.[NOTICE_META_KEY]) break;
        if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
          appendText("text", update.content.text);
        } else if (
          update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text"
        ) {
          appendText("thought", update.content.text);
        }
        break;
      }
      case "tool_call":
        segments.push({
          type: "tool_call",
          name: record.name,
          input: record.input,
          result: record.result,
        });
        break;
      case "session":
      case "response":
      case "failure":
        break;
      default:
        record satisfies never;
    }
  }
  closeAssistant();
  return items;
}
