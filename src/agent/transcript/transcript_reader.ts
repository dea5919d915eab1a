/**
 * Reads a transcript back: the records, the updates a `session/load` replays, and the
 * conversation the model continues from.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { ConfigFileRefused, openRegularFile, readConfigFile } from "../../config_file.ts";
import type { AssistantSegment, ConversationItem } from "../../model/model.ts";
import { takeBack } from "./take_back.ts";
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
  | TranscriptReadFailure;

export interface TranscriptReadFailure {
  readonly ok: false;
  readonly reason: "missing" | "invalid";
  readonly message: string;
}

/** The start of a transcript, and when the file was last written (ms since the epoch, or 0). */
export type TranscriptStartResult =
  | { readonly ok: true; readonly transcript: Transcript; readonly modifiedMs: number }
  | TranscriptReadFailure;

/** A long session's transcript is tens of MiB; one this large is not loaded into memory. */
export const TRANSCRIPT_MAX_BYTES = 256 * 1024 * 1024;

/** What `readTranscriptStart` reads at most by default: a session's start, not its history. */
export const TRANSCRIPT_START_BYTES = 256 * 1024;

const CHUNK_BYTES = 16 * 1024;

export interface TranscriptReadOptions {
  /** Default `TRANSCRIPT_MAX_BYTES`, or `TRANSCRIPT_START_BYTES` for `readTranscriptStart`. */
  readonly maxBytes?: number;
}

/**
 * Reads every record a transcript holds. A bad line costs only itself: one damaged line must not
 * make a whole session unloadable. A transcript whose first record is not the session record
 * (nothing says which session it is), and one that is not a regular file within the limit (a
 * FIFO is never opened, a link to `/dev/zero` never read), are invalid.
 */
export async function readTranscript(
  path: string,
  options: TranscriptReadOptions = {},
): Promise<TranscriptReadResult> {
  let text: string;
  try {
    text = await readConfigFile(path, { maxBytes: options.maxBytes ?? TRANSCRIPT_MAX_BYTES });
  } catch (error) {
    return unreadable(path, error);
  }
  const found: FoundRecords = { records: [], skipped: [] };
  for (const [index, line] of text.split("\n").entries()) addLine(found, line, index + 1);
  return transcriptOf(path, found);
}

/**
 * Reads a transcript's records up to the first that `until` accepts, and at most `maxBytes` of
 * it: what `session/list` needs of each session, whatever the size of its history. The line
 * that the limit cuts is left out; damaged lines before it are skipped as in `readTranscript`.
 */
export async function readTranscriptStart(
  path: string,
  until: (record: TranscriptRecord) => boolean,
  options: TranscriptReadOptions = {},
): Promise<TranscriptStartResult> {
  const maxBytes = options.maxBytes ?? TRANSCRIPT_START_BYTES;
  const found: FoundRecords = { records: [], skipped: [] };
  let modifiedMs = 0;
  try {
    using opened = await openRegularFile(path);
    modifiedMs = opened.info.mtime?.getTime() ?? 0;
    const decoder = new TextDecoder();
    const chunk = new Uint8Array(CHUNK_BYTES);
    let pending = "";
    let lineNumber = 0;
    let reached = false;
    for (let read = 0; read < maxBytes && !reached;) {
      const count = await opened.file.read(
        chunk.subarray(0, Math.min(CHUNK_BYTES, maxBytes - read)),
      );
      if (count === null) {
        // A last line without its newline (torn by a crash) is a line like any other.
        addLine(found, pending + decoder.decode(), ++lineNumber);
        break;
      }
      read += count;
      pending += decoder.decode(chunk.subarray(0, count), { stream: true });
      for (let end = pending.indexOf("\n"); end >= 0 && !reached; end = pending.indexOf("\n")) {
        const record = addLine(found, pending.slice(0, end), ++lineNumber);
        pending = pending.slice(end + 1);
        reached = record !== undefined && until(record);
      }
    }
  } catch (error) {
    return unreadable(path, error);
  }
  const read = transcriptOf(path, found);
  return read.ok ? { ...read, modifiedMs } : read;
}

interface FoundRecords {
  readonly records: TranscriptRecord[];
  readonly skipped: SkippedLine[];
}

/** Adds the record `line` holds, or notes it as skipped; blank lines are neither. */
function addLine(
  found: FoundRecords,
  line: string,
  lineNumber: number,
): TranscriptRecord | undefined {
  if (line.trim() === "") return undefined;
  const parsed = parseRecord(line);
  if (!parsed.ok) {
    found.skipped.push({ line: lineNumber, reason: parsed.reason });
    return undefined;
  }
  found.records.push(parsed.record);
  return parsed.record;
}

function transcriptOf(path: string, { records, skipped }: FoundRecords): TranscriptReadResult {
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

/** A transcript that could not be opened or read: missing, refused, or a thrown I/O error. */
function unreadable(path: string, error: unknown): TranscriptReadFailure {
  if (error instanceof Deno.errors.NotFound) {
    return { ok: false, reason: "missing", message: `No transcript at "${path}"` };
  }
  if (error instanceof ConfigFileRefused) {
    return {
      ok: false,
      reason: "invalid",
      message: `Cannot read the transcript "${path}": ${error.message}`,
    };
  }
  throw error;
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
 * The summary the system prompt carries once the conversation was compacted: the last
 * `conversation` record's (a `/clear` takes it away).
 */
export function summaryFromTranscript(records: readonly TranscriptRecord[]): string | undefined {
  const last = records.findLast((record) => record.type === "conversation");
  return last?.type === "conversation" ? last.summary : undefined;
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
      case "hook_feedback": {
        const index = segments.findLastIndex((segment) => segment.type === "tool_call");
        const last = segments[index];
        if (record.inLastResult && last?.type === "tool_call") {
          segments[index] = { ...last, result: `${last.result}\n\n${record.text}` };
          break;
        }
        closeAssistant();
        items.push({ role: "user", text: record.text });
        break;
      }
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
      case "taken_back":
        takeBack(segments, record.stream, record.chars);
        break;
      case "conversation":
        // What the model reads from here on. A turn's work so far (`segments`) is never part of
        // a compaction made in the middle of it, so it goes on after the new items.
        items.splice(0, items.length, ...structuredClone(record.items));
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
