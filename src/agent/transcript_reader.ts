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
  /** Lines that hold no record (damaged, or torn by a crash mid-write): skipped, not fatal. */
  readonly skipped: readonly SkippedLine[];
}

export interface SkippedLine {
  /** 1-based. */
  readonly line: number;
  readonly reason: string;
}

export type TranscriptReadResult =
  | { readonly ok: true; readonly transcript: Transcript }
  | { readonly ok: false; readonly reason: "missing" | "invalid"; readonly message: string };

/**
 * Reads every record a transcript holds. A bad line costs only itself: one damaged line must not
 * make a whole session unloadable. Only a transcript whose first record is not the session
 * record is invalid (nothing says which session it is).
 */
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
  const skipped: SkippedLine[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const parsed = parseRecord(line);
    if (parsed.ok) records.push(parsed.record);
    else skipped.push({ line: index + 1, reason: parsed.reason });
  }
  const first = records[0];
  if (first?.type !== "session") {
    return {
      ok: false,
      reason: "invalid",
      message: `Invalid transcript "${path}": the first record must be the session record`,
    };
  }
  return { ok: true, transcript: { session: first, records, skipped } };
}

function parseRecord(
  line: string,
): { ok: true; record: TranscriptRecord } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { ok: false, reason: "the line is not JSON" };
  }
  const parsed = TranscriptRecord.safeParse(json);
  if (parsed.success) return { ok: true, record: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at "${issue.path.join(".")}"` : "";
  return {
    ok: false,
    reason: `not a transcript record: ${issue?.message ?? "bad record"}${where}`,
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
      case "settings":
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
