/** Transcript records the transcript tests build on: a session's first record and a prompt. */
import type { TranscriptRecord } from "../../src/agent/transcript/transcript_record.ts";

/** The session record of session "s1" in "/work". */
export const SESSION_RECORD: TranscriptRecord = {
  type: "session",
  sessionId: "s1",
  cwd: "/work",
  additionalDirectories: [],
  createdAt: "2026-01-01T00:00:00.000Z",
};

/** A prompt of plain text, as the model received it. */
export function promptRecord(text: string): TranscriptRecord {
  return { type: "prompt", prompt: [{ type: "text", text }], text };
}
