/**
 * Transcripts are read back only when they are regular files within a size limit, so that a
 * session directory holding a FIFO, a link to `/dev/zero` or a file of gigabytes costs a clear
 * error, not a hang or the machine's memory. `session/list` reads only the start of each.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { within } from "../helpers/within.ts";
import {
  readTranscript,
  readTranscriptStart,
  TRANSCRIPT_MAX_BYTES,
  type TranscriptReadResult,
} from "../../src/agent/transcript/transcript_reader.ts";
import { linkToDevZero, makeFifo, releaseFifo } from "../hooks/special_files.ts";
import { withTempDir } from "./temp_dir.ts";
import { promptRecord, SESSION_RECORD } from "./transcript_records.ts";

const lines = (...records: unknown[]) => records.map((r) => JSON.stringify(r) + "\n").join("");

function assertRefused(read: TranscriptReadResult, path: string, reason: string): void {
  assertEquals(read, {
    ok: false,
    reason: "invalid",
    message: `Cannot read the transcript "${path}": ${reason}`,
  });
}

Deno.test("the transcript limit is 256 MiB", () => {
  assertEquals(TRANSCRIPT_MAX_BYTES, 256 * 1024 * 1024);
});

Deno.test("a transcript that is a FIFO is refused without waiting for a writer", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/raw.jsonl`;
    await makeFifo(path);
    try {
      const read = await within(readTranscript(path), 10_000);
      assert(read !== undefined, "the read waited on the FIFO");
      assertRefused(read, path, "it is a FIFO, not a regular file");
      const start = await within(readTranscriptStart(path, () => true), 10_000);
      assert(start !== undefined, "the read of the start waited on the FIFO");
      assertRefused(start, path, "it is a FIFO, not a regular file");
    } finally {
      // A read stuck in the open (the code as it was) ends, so the test can.
      releaseFifo(path);
    }
  });
});

Deno.test("a transcript linked to /dev/zero is refused as a character device", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/raw.jsonl`;
    await linkToDevZero(path);
    assertRefused(await readTranscript(path), path, "it is a character device, not a regular file");
    assertRefused(
      await readTranscriptStart(path, () => true),
      path,
      "it is a character device, not a regular file",
    );
  });
});

Deno.test("a transcript over the limit is refused naming the limit; one at the limit is read", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/raw.jsonl`;
    const text = lines(SESSION_RECORD, promptRecord("hi"));
    await Deno.writeTextFile(path, text);
    const atLimit = await readTranscript(path, { maxBytes: text.length });
    assert(atLimit.ok, JSON.stringify(atLimit));
    assertEquals(atLimit.transcript.records, [SESSION_RECORD, promptRecord("hi")]);
    assertRefused(
      await readTranscript(path, { maxBytes: text.length - 1 }),
      path,
      `it is over the ${text.length - 1}-byte limit (${text.length} bytes)`,
    );
  });
});

Deno.test("a 10 GB transcript is refused by its size, before any of it is read", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/raw.jsonl`;
    // Sparse: no disk space is used, and reading it would take ten gigabytes of memory.
    const file = await Deno.open(path, { write: true, create: true });
    await file.truncate(10 * 1024 ** 3);
    file.close();
    assertRefused(
      await readTranscript(path),
      path,
      `it is over the 256 MiB limit (${10 * 1024 ** 3} bytes)`,
    );
  });
});

Deno.test("the start of a transcript is read up to the first record asked for, and no further", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/raw.jsonl`;
    // After the prompt, a line far over the read's limit: never read, so it costs nothing.
    const huge = JSON.stringify(promptRecord("x".repeat(2 * 1024 * 1024)));
    await Deno.writeTextFile(path, lines(SESSION_RECORD, promptRecord("first")) + huge + "\n");
    const start = await readTranscriptStart(path, (r) => r.type === "prompt", { maxBytes: 4096 });
    assert(start.ok, JSON.stringify(start));
    assertEquals(start.transcript.records, [SESSION_RECORD, promptRecord("first")]);
    assertEquals(start.transcript.skipped, []);

    // A record asked for past the limit is not found; the line cut by the limit is not "bad".
    await Deno.writeTextFile(
      path,
      lines(SESSION_RECORD) + huge + "\n" + lines(promptRecord("late")),
    );
    const cut = await readTranscriptStart(path, (r) => r.type === "prompt", { maxBytes: 4096 });
    assert(cut.ok, JSON.stringify(cut));
    assertEquals(cut.transcript.records, [SESSION_RECORD]);
    assertEquals(cut.transcript.skipped, []);

    // Damaged lines before it are skipped, as in a whole read; a last line without a newline counts.
    await Deno.writeTextFile(
      path,
      lines(SESSION_RECORD) + "garbage\n" + JSON.stringify(promptRecord("p")),
    );
    const damaged = await readTranscriptStart(path, (r) => r.type === "prompt");
    assert(damaged.ok, JSON.stringify(damaged));
    assertEquals(damaged.transcript.records, [SESSION_RECORD, promptRecord("p")]);
    assertEquals(damaged.transcript.skipped, [{ line: 2, reason: "the line is not JSON" }]);
  });
});
