/**
 * A persisted session brought back from its transcript: what the user is told about the restore
 * (lines skipped, a mode not restored as recorded), reopening its transcript for writing, and the
 * tool call ids it has used.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { SkippedLine } from "../../agent/transcript/transcript_reader.ts";
import { isPermissionModeId } from "../../agent/permissions/permission_policy.ts";
import type { RestoredSettings } from "../../agent/transcript/transcript_settings.ts";
import { TranscriptBusy, TranscriptWriter } from "../../agent/transcript/transcript_writer.ts";
import type { TranscriptRecord } from "../../agent/transcript/transcript_record.ts";
import type { AgentSession } from "./agent_session.ts";
import { invalidParams } from "../rpc_error.ts";

/** A persisted session brought back: what a load replays, and what the user must be told. */
export interface RestoredSession {
  readonly session: AgentSession;
  readonly replay: readonly SessionUpdate[];
  /**
   * About the restore itself (lines skipped, a mode not restored as recorded): not part of the
   * session's history.
   */
  readonly transcriptNotices: readonly string[];
}

/**
 * Logs a recorded mode that was not restored, and returns what the user is told: a mode this
 * version does not know, or one looser than this process's own.
 */
export function reportModeNotRestored(
  sessionId: string,
  restored: RestoredSettings,
  log: (line: string) => void,
): string[] {
  if (!restored.recorded || restored.recordedMode === restored.settings.mode) return [];
  const { recordedMode, settings: { mode } } = restored;
  if (!isPermissionModeId(recordedMode)) {
    log(
      `Session "${sessionId}" was in mode "${recordedMode}", which this version does not know: ` +
        `it is restored in "${mode}"`,
    );
    return [];
  }
  const message = `This session was saved in mode "${recordedMode}", but this agent was ` +
    `started in the stricter "${mode}" (--permission-policy): the session goes on in ` +
    `"${mode}"; change the mode in your client to choose another`;
  log(`Session "${sessionId}": ${message}`);
  return [message];
}

/** The transcript of a session brought back, unless another agent process is writing it. */
export async function reopenTranscript(
  sessionId: string,
  path: string,
  log: (line: string) => void,
): Promise<TranscriptWriter> {
  try {
    return await TranscriptWriter.open(path, log);
  } catch (error) {
    if (!(error instanceof TranscriptBusy)) throw error;
    throw invalidParams(
      `session "${sessionId}" is open in another agent process (its transcript "${path}" is ` +
        "being written): close it there, or end that agent, before loading it here",
    );
  }
}

/** Logs each line a transcript read skipped; the user gets one notice for them all. */
export function reportSkipped(
  path: string,
  skipped: readonly SkippedLine[],
  log: (line: string) => void,
): string[] {
  if (skipped.length === 0) return [];
  for (const { line, reason } of skipped) {
    log(`Skipped line ${line} of the transcript "${path}": ${reason}`);
  }
  const lines = skipped.length === 1 ? "1 line" : `${skipped.length} lines`;
  return [
    `The transcript "${path}" has ${lines} that hold no readable record: skipped, and the ` +
    "rest of the session loaded without them. The agent's log (stderr) names them",
  ];
}

/**
 * The highest `call_N` the client has seen announced, so new ids never repeat one: a call that
 * was announced but never finished (the agent was killed mid-tool) counts too.
 */
export function highestToolCallNumber(records: readonly TranscriptRecord[]): number {
  let highest = 0;
  for (const record of records) {
    if (record.type !== "update" || record.update.sessionUpdate !== "tool_call") continue;
    const number = Number(/^call_(\d+)$/.exec(record.update.toolCallId)?.[1] ?? 0);
    highest = Math.max(highest, number);
  }
  return highest;
}
