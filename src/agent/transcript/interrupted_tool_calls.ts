/**
 * Tool calls the agent never finished: it was killed, or crashed, while one ran. The transcript
 * then holds the call's announcement and no `tool_call` record. Every call must end with a final
 * status for the client (acp.md) and with a result for the model, so a transcript read back gets
 * both for such a call, where its turn was cut off: before the next prompt, or at the end.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { TranscriptRecord } from "./transcript_record.ts";

/** What the client and the model are told about a call the agent never finished. */
export const INTERRUPTED_CALL_TEXT = "interrupted: the agent stopped before it finished";

interface OpenCall {
  readonly toolCallId: string;
  /**
   * The name the call ran under, as its record would have held it: the tool a repaired call ran
   * as (`_meta["llama-agent/repair"].toolName`), else the name the model emitted
   * (`_meta.tool_name`).
   */
  readonly name: string;
  input: unknown;
  /** Its final update was sent (the agent stopped after it, during the Post hooks). */
  finalSent: boolean;
}

/** The records with each unfinished call closed as failed; the input is not changed. */
export function closeInterruptedToolCalls(
  records: readonly TranscriptRecord[],
): TranscriptRecord[] {
  const closed: TranscriptRecord[] = [];
  const open = new Map<string, OpenCall>();
  const closeOpenCalls = () => {
    for (const call of open.values()) closed.push(...interruption(call));
    open.clear();
  };
  for (const record of records) {
    // A new prompt, or the end of a turn, means the calls still open were cut off.
    if (record.type === "prompt" || record.type === "response" || record.type === "failure") {
      closeOpenCalls();
    }
    closed.push(record);
    if (record.type === "tool_call") open.delete(record.toolCallId);
    if (record.type === "update") follow(open, record.update);
  }
  closeOpenCalls();
  return closed;
}

function follow(open: Map<string, OpenCall>, update: SessionUpdate): void {
  if (update.sessionUpdate === "tool_call") {
    const repair = update._meta?.["llama-agent/repair"];
    const ranAs = typeof repair === "object" && repair !== null
      ? Reflect.get(repair, "toolName")
      : undefined;
    const name = typeof ranAs === "string" ? ranAs : update._meta?.tool_name;
    open.set(update.toolCallId, {
      toolCallId: update.toolCallId,
      name: typeof name === "string" ? name : update.title,
      input: update.rawInput,
      finalSent: false,
    });
  } else if (update.sessionUpdate === "tool_call_update") {
    const call = open.get(update.toolCallId);
    if (!call) return;
    // A hook's rewrite: the call ran with this input.
    if (update.rawInput !== undefined) call.input = update.rawInput;
    if (update.status === "completed" || update.status === "failed") call.finalSent = true;
  }
}

function interruption(call: OpenCall): TranscriptRecord[] {
  const result: TranscriptRecord = {
    type: "tool_call",
    toolCallId: call.toolCallId,
    name: call.name,
    input: call.input,
    status: "failed",
    result: INTERRUPTED_CALL_TEXT,
  };
  if (call.finalSent) return [result];
  return [{
    type: "update",
    update: {
      sessionUpdate: "tool_call_update",
      toolCallId: call.toolCallId,
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: INTERRUPTED_CALL_TEXT } }],
      rawOutput: { error: INTERRUPTED_CALL_TEXT },
    },
  }, result];
}
