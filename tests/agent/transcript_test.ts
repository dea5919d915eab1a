import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { TranscriptWriter } from "../../src/agent/transcript/transcript_writer.ts";
import {
  conversationFromTranscript,
  readTranscript,
  replayUpdates,
} from "../../src/agent/transcript/transcript_reader.ts";
import type { TranscriptRecord } from "../../src/agent/transcript/transcript_record.ts";
import { withTempDir } from "./temp_dir.ts";
import { SESSION_RECORD } from "./transcript_records.ts";

const session = SESSION_RECORD;

Deno.test("the transcript file exists as soon as it is opened, before any record", async () => {
  await withTempDir({}, async (dir) => {
    const writer = await TranscriptWriter.open(`${dir}/a/b/raw.jsonl`, () => {});
    assertEquals((await Deno.stat(writer.path)).size, 0);
    await writer.close();
  });
});

Deno.test("records appended in a burst reach the file in order, one JSON object per line", async () => {
  await withTempDir({}, async (dir) => {
    const writer = await TranscriptWriter.open(`${dir}/raw.jsonl`, () => {});
    writer.append(session);
    for (let i = 0; i < 200; i++) {
      writer.append({
        type: "update",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${i} ` } },
      });
    }
    await writer.flush();
    const lines = (await Deno.readTextFile(writer.path)).trimEnd().split("\n");
    await writer.close();
    assertEquals(lines.length, 201);
    const texts = lines.slice(1).map((l) => JSON.parse(l).update.content.text);
    assertEquals(texts, Array.from({ length: 200 }, (_, i) => `${i} `));
  });
});

Deno.test("a write failure (a full disk) is reported once and the session goes on", async () => {
  const logged: string[] = [];
  // Every write to /dev/full fails with ENOSPC, as on a disk that has filled up.
  const writer = await TranscriptWriter.open("/dev/full", (l) => logged.push(l));
  writer.append(session);
  await writer.flush();
  writer.append(session);
  await writer.close();
  assertEquals(logged.length, 1);
  assertStringIncludes(logged[0]!, `Cannot write the transcript "/dev/full"`);
});

Deno.test("records appended after close are dropped, and close writes what was pending", async () => {
  await withTempDir({}, async (dir) => {
    const writer = await TranscriptWriter.open(`${dir}/raw.jsonl`, () => {});
    writer.append(session);
    await writer.close();
    writer.append(session);
    await writer.flush();
    const lines = (await Deno.readTextFile(writer.path)).trimEnd().split("\n");
    assertEquals(lines.length, 1);
  });
});

Deno.test("a transcript rebuilds the conversation the model saw, tool results included", () => {
  const records: TranscriptRecord[] = [
    session,
    { type: "prompt", prompt: [{ type: "text", text: "read it" }], text: "read it" },
    {
      type: "update",
      update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hm" } },
    },
    {
      type: "update",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Let " } },
    },
    {
      type: "update",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "me." } },
    },
    {
      type: "update",
      update: { sessionUpdate: "tool_call", toolCallId: "call_1", title: "Read notes.txt" },
    },
    {
      type: "tool_call",
      toolCallId: "call_1",
      name: "read_file",
      input: { path: "notes.txt" },
      status: "completed",
      result: "hello",
    },
    {
      type: "update",
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "It says hello." },
      },
    },
    { type: "response", stopReason: "end_turn" },
    { type: "prompt", prompt: [{ type: "text", text: "thanks" }], text: "thanks" },
    { type: "response", stopReason: "cancelled" },
  ];
  assertEquals(conversationFromTranscript(records), [
    { role: "user", text: "read it" },
    {
      role: "assistant",
      segments: [
        { type: "thought", text: "hm" },
        { type: "text", text: "Let me." },
        { type: "tool_call", name: "read_file", input: { path: "notes.txt" }, result: "hello" },
        { type: "text", text: "It says hello." },
      ],
    },
    { role: "user", text: "thanks" },
  ]);
  const replay = replayUpdates(records);
  assertEquals(replay.map((u) => u.sessionUpdate), [
    "user_message_chunk",
    "agent_thought_chunk",
    "agent_message_chunk",
    "agent_message_chunk",
    "tool_call",
    "agent_message_chunk",
    "user_message_chunk",
  ]);
});

Deno.test("reading a transcript: a missing file, a torn last line, and a bad line in the middle", async () => {
  await withTempDir({}, async (dir) => {
    const missing = await readTranscript(`${dir}/none.jsonl`);
    assert(!missing.ok && missing.reason === "missing");

    const torn = `${dir}/torn.jsonl`;
    await Deno.writeTextFile(torn, JSON.stringify(session) + "\n" + '{"type":"upd');
    const tornRead = await readTranscript(torn);
    assert(tornRead.ok);
    assertEquals(tornRead.transcript.records.length, 1);
    assertEquals(tornRead.transcript.skipped.map((s) => s.line), [2]);

    // One bad line costs only itself: the records after it load.
    const bad = `${dir}/bad.jsonl`;
    await Deno.writeTextFile(
      bad,
      JSON.stringify(session) + "\nnot json\n" + JSON.stringify(session) + "\n",
    );
    const badRead = await readTranscript(bad);
    assert(badRead.ok);
    assertEquals(badRead.transcript.records.length, 2);
    assertEquals(badRead.transcript.skipped, [{ line: 2, reason: "the line is not JSON" }]);

    const headless = `${dir}/headless.jsonl`;
    await Deno.writeTextFile(
      headless,
      JSON.stringify({ type: "response", stopReason: "end_turn" }) + "\n",
    );
    const headlessRead = await readTranscript(headless);
    assert(!headlessRead.ok);
    assertStringIncludes(headlessRead.message, "the first record must be the session record");
  });
});
