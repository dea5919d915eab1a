/**
 * One writer per transcript: a session open in one agent process cannot be brought back in
 * another at the same time, where both would append to one file and interleave two histories.
 * The lock is the file's (`flock`), so it ends with the process that held it, `kill -9` included;
 * a writer that lets go within the wait (a process handing the session over) is waited for.
 */
import { assertEquals, assertRejectsWith } from "../helpers/assert.ts";
import { TranscriptBusy, TranscriptWriter } from "../../src/agent/transcript/transcript_writer.ts";
import { withTempDir } from "./temp_dir.ts";
import { SESSION_RECORD } from "./transcript_records.ts";

Deno.test("a transcript another writer holds is refused after the wait, naming it, and is left as it was", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/raw.jsonl`;
    const holder = await TranscriptWriter.open(path, () => {});
    holder.append(SESSION_RECORD);
    await holder.flush();
    const before = await Deno.readTextFile(path);
    try {
      const error = await assertRejectsWith(
        () => TranscriptWriter.open(path, () => {}, { lockWaitMs: 200 }),
        TranscriptBusy,
      );
      assertEquals(
        error.message,
        `Cannot open the transcript "${path}": another process is writing it`,
      );
      assertEquals(await Deno.readTextFile(path), before);
    } finally {
      await holder.close();
    }
  });
});

Deno.test("a writer that lets go within the wait hands the transcript over", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/raw.jsonl`;
    const holder = await TranscriptWriter.open(path, () => {});
    const released = new Promise((resolve) => setTimeout(resolve, 100)).then(() => holder.close());
    const next = await TranscriptWriter.open(path, () => {}, { lockWaitMs: 10_000 });
    await released;
    next.append(SESSION_RECORD);
    await next.close();
    assertEquals(await Deno.readTextFile(path), JSON.stringify(SESSION_RECORD) + "\n");
  });
});
