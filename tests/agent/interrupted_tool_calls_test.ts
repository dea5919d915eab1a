import { assertEquals } from "../helpers/assert.ts";
import {
  closeInterruptedToolCalls,
  INTERRUPTED_CALL_TEXT,
} from "../../src/agent/transcript/interrupted_tool_calls.ts";
import {
  conversationFromTranscript,
  replayUpdates,
} from "../../src/agent/transcript/transcript_reader.ts";
import type { TranscriptRecord } from "../../src/agent/transcript/transcript_record.ts";
import { promptRecord, SESSION_RECORD } from "./transcript_records.ts";

const session = SESSION_RECORD;
const prompt = promptRecord;
const announced = (toolCallId: string, input: unknown): TranscriptRecord => ({
  type: "update",
  update: {
    sessionUpdate: "tool_call",
    toolCallId,
    title: "Run `sleep 30`",
    status: "pending",
    rawInput: input,
    _meta: { tool_name: "terminal" },
  },
});
const status = (toolCallId: string, s: "in_progress" | "completed"): TranscriptRecord => ({
  type: "update",
  update: { sessionUpdate: "tool_call_update", toolCallId, status: s },
});

function finalStatuses(records: readonly TranscriptRecord[]): [string, string | undefined][] {
  return replayUpdates(records).flatMap((u) =>
    u.sessionUpdate === "tool_call_update" ? [[u.toolCallId, u.status ?? undefined]] : []
  );
}

Deno.test("a call cut off before the next prompt is closed there, for the client and the model", () => {
  const records = closeInterruptedToolCalls([
    session,
    prompt("wait"),
    announced("call_1", { command: "sleep 30" }),
    // A PreToolUse hook rewrote the input: the call ran with this one.
    {
      type: "update",
      update: {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        rawInput: { command: "sleep 1" },
      },
    },
    status("call_1", "in_progress"),
    // Loaded again after the crash, and prompted: the cut-off turn ends before this prompt.
    prompt("what happened?"),
  ]);
  assertEquals(finalStatuses(records), [["call_1", undefined], ["call_1", "in_progress"], [
    "call_1",
    "failed",
  ]]);
  assertEquals(conversationFromTranscript(records), [
    { role: "user", text: "wait" },
    {
      role: "assistant",
      segments: [{
        type: "tool_call",
        name: "terminal",
        input: { command: "sleep 1" },
        result: INTERRUPTED_CALL_TEXT,
      }],
    },
    { role: "user", text: "what happened?" },
  ]);
});

Deno.test("a call whose final update went out before the crash gets no second one, but the model a result", () => {
  const records = closeInterruptedToolCalls([
    session,
    prompt("wait"),
    announced("call_1", { command: "true" }),
    status("call_1", "in_progress"),
    status("call_1", "completed"),
  ]);
  assertEquals(finalStatuses(records).map(([, s]) => s), ["in_progress", "completed"]);
  const assistant = conversationFromTranscript(records)[1];
  assertEquals(
    assistant?.role === "assistant" &&
      assistant.segments.map((s) => s.type === "tool_call" && s.result),
    [INTERRUPTED_CALL_TEXT],
  );
});

Deno.test("finished calls are left as they are", () => {
  const records: TranscriptRecord[] = [
    session,
    prompt("go"),
    announced("call_1", { command: "true" }),
    status("call_1", "completed"),
    {
      type: "tool_call",
      toolCallId: "call_1",
      name: "terminal",
      input: { command: "true" },
      status: "completed",
      result: "",
    },
    { type: "response", stopReason: "end_turn" },
  ];
  assertEquals(closeInterruptedToolCalls(records), records);
});

Deno.test("a repaired call cut off is closed under the tool it ran as, not the name written", () => {
  const records = closeInterruptedToolCalls([
    session,
    prompt("wait"),
    {
      type: "update",
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "call_1",
        title: "Run `sleep 30`",
        status: "pending",
        rawInput: { command: "sleep 30" },
        _meta: {
          tool_name: "bash",
          "llama-agent/repair": {
            emittedName: "bash",
            renamed: true,
            decodedArguments: false,
            toolName: "shell",
          },
        },
      },
    },
  ]);
  const closed = records.find((record) => record.type === "tool_call");
  assertEquals(closed?.type === "tool_call" && closed.name, "shell");
});
