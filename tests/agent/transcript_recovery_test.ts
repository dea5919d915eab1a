/**
 * Transcripts that something went wrong with: a line torn by a crash, damaged lines, a failing
 * disk. And they are private, whatever the umask.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { readTranscript } from "../../src/agent/transcript/transcript_reader.ts";
import { TranscriptWriter } from "../../src/agent/transcript/transcript_writer.ts";
import { withTempDir } from "./temp_dir.ts";
import { promptRecord, SESSION_RECORD } from "./transcript_records.ts";

const session = SESSION_RECORD;
const prompt = promptRecord("hi");

Deno.test("a transcript that ends in a line torn by a crash gets its next record on a line of its own", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/raw.jsonl`;
    await Deno.writeTextFile(path, JSON.stringify(session) + "\n" + '{"type":"upd');
    const writer = await TranscriptWriter.open(path, () => {});
    writer.append(prompt);
    await writer.close();
    const read = await readTranscript(path);
    assert(read.ok, JSON.stringify(read));
    assertEquals(read.transcript.records, [session, prompt]);
    assertEquals(read.transcript.skipped, [{ line: 2, reason: "the line is not JSON" }]);
  });
});

Deno.test("a transcript that ends cleanly gets no blank line when it is opened again", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/raw.jsonl`;
    await Deno.writeTextFile(path, JSON.stringify(session) + "\n");
    const writer = await TranscriptWriter.open(path, () => {});
    writer.append(prompt);
    await writer.close();
    assertEquals(
      await Deno.readTextFile(path),
      JSON.stringify(session) + "\n" + JSON.stringify(prompt) + "\n",
    );
  });
});

Deno.test("every kind of bad line is skipped with its line number and why; a headless transcript is invalid", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/raw.jsonl`;
    const lines = [
      JSON.stringify(session),
      "garbage",
      '{"type":"prompt","prompt":"not a list","text":"x"}',
      '{"type":"no such record"}',
      "[]",
      JSON.stringify(prompt),
      "",
      "   ",
      '{"type":"resp', // torn at the end
    ];
    await Deno.writeTextFile(path, lines.join("\n"));
    const read = await readTranscript(path);
    assert(read.ok, JSON.stringify(read));
    assertEquals(read.transcript.records, [session, prompt]);
    assertEquals(read.transcript.skipped.map((s) => s.line), [2, 3, 4, 5, 9]);
    assertStringIncludes(read.transcript.skipped[1]!.reason, "not a transcript record");
    assertStringIncludes(read.transcript.skipped[1]!.reason, 'at "prompt"');

    await Deno.writeTextFile(path, "garbage\n" + JSON.stringify(prompt) + "\n");
    const headless = await readTranscript(path);
    assert(!headless.ok && headless.reason === "invalid");
    assertStringIncludes(headless.message, "the first record must be the session record");
  });
});

Deno.test("after a failed write nothing more is written, and each watcher hears of it once", async () => {
  const logged: string[] = [];
  const heard: string[] = [];
  // Every write to /dev/full fails with ENOSPC, as on a disk that has filled up.
  const writer = await TranscriptWriter.open("/dev/full", (l) => logged.push(l));
  writer.onFailure((message) => heard.push(`early: ${message}`));
  writer.append(session);
  await writer.flush();
  writer.onFailure((message) => heard.push(`late: ${message}`));
  writer.append(prompt);
  await writer.flush();
  await writer.close();
  assertEquals(logged.length, 1);
  assertEquals(heard.map((h) => h.split(":")[0]), ["early", "late"]);
  assertStringIncludes(
    heard[0]!,
    `Cannot write the transcript "/dev/full": No space left on device`,
  );
});

Deno.test("transcripts are 0600 and the directories made for them 0700, even under umask 000", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/state/llama-agent/sessions/s1/raw.jsonl`;
    const writer = new URL("../../src/agent/transcript/transcript_writer.ts", import.meta.url).href;
    const script = `const { TranscriptWriter } = await import(${JSON.stringify(writer)});
      const w = await TranscriptWriter.open(${JSON.stringify(path)}, () => {}); await w.close();`;
    const deno = Deno.execPath();
    const { code, stderr } = await new Deno.Command("/bin/sh", {
      args: ["-c", 'umask 000 && exec "$0" eval --quiet "$1"', deno, script],
      stdout: "null",
      stderr: "piped",
    }).output();
    assertEquals(code, 0, new TextDecoder().decode(stderr));
    const modeOf = async (p: string) => ((await Deno.stat(p)).mode! & 0o777).toString(8);
    assertEquals(await modeOf(path), "600");
    for (const made of ["state", "state/llama-agent", "state/llama-agent/sessions"]) {
      assertEquals(await modeOf(`${dir}/${made}`), "700", made);
    }
    assertEquals(await modeOf(`${dir}/state/llama-agent/sessions/s1`), "700");
  });
});
