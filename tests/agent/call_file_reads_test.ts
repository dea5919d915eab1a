import { assertEquals } from "../helpers/assert.ts";
import { CallFileReads } from "../../src/agent/files/call_file_reads.ts";
import type { FileAccess, FileReadResult } from "../../src/agent/files/file_access.ts";

/** A door over an in-memory file table that counts the reads of each path. */
function countingDoor(files: Map<string, string>) {
  const reads: string[] = [];
  let cancelNext = false;
  const door: FileAccess = {
    readTextFile: (path) => {
      reads.push(path);
      if (cancelNext) {
        cancelNext = false;
        return Promise.resolve({ ok: false, failure: "cancelled", message: "cancelled" });
      }
      const content = files.get(path);
      const read: FileReadResult = content === undefined
        ? { ok: false, failure: "not_found", message: `Cannot read "${path}": no such file` }
        : { ok: true, content };
      return Promise.resolve(read);
    },
    writeTextFile: (path, content) => {
      files.set(path, content);
      return Promise.resolve({ ok: true });
    },
  };
  return { door, reads, cancelNext: () => cancelNext = true };
}

Deno.test("a file is read once for the call, by a relative or an absolute path alike", async () => {
  const { door, reads } = countingDoor(new Map([["a.txt", "one\n"]]));
  const call = new CallFileReads(door, "/p");
  assertEquals(await call.readTextFile("a.txt"), { ok: true, content: "one\n" });
  assertEquals(await call.readTextFile("/p/a.txt"), { ok: true, content: "one\n" });
  assertEquals(await call.readTextFile("/p/missing.txt"), {
    ok: false,
    failure: "not_found",
    message: 'Cannot read "/p/missing.txt": no such file',
  });
  assertEquals((await call.readTextFile("missing.txt")).ok, false);
  assertEquals(reads, ["a.txt", "/p/missing.txt"]);
});

Deno.test("a part of a file (line, limit) is its own read", async () => {
  const { door, reads } = countingDoor(new Map([["/p/a.txt", "one\n"]]));
  const call = new CallFileReads(door, "/p");
  await call.readTextFile("/p/a.txt");
  await call.readTextFile("/p/a.txt", { line: 2, limit: 1 });
  await call.readTextFile("/p/a.txt", { line: 2, limit: 1 });
  assertEquals(reads.length, 2);
});

Deno.test("a cancelled read is not kept: the next one asks again", async () => {
  const { door, reads, cancelNext } = countingDoor(new Map([["/p/a.txt", "one\n"]]));
  const call = new CallFileReads(door, "/p");
  cancelNext();
  assertEquals((await call.readTextFile("/p/a.txt")).ok, false);
  assertEquals(await call.readTextFile("/p/a.txt"), { ok: true, content: "one\n" });
  assertEquals(reads.length, 2);
});

Deno.test("after a hook or a prompt, a file that was there is read again; a missing one stays missing", async () => {
  const files = new Map([["/p/seen.txt", "one\n"]]);
  const { door, reads } = countingDoor(files);
  const call = new CallFileReads(door, "/p");
  await call.readTextFile("/p/seen.txt");
  await call.readTextFile("/p/new.txt");
  // What a hook might do meanwhile.
  files.set("/p/seen.txt", "changed by a hook\n");
  files.set("/p/new.txt", "made by a hook\n");
  await call.othersMayHaveWritten();
  assertEquals(await call.readTextFile("/p/seen.txt"), {
    ok: true,
    content: "changed by a hook\n",
  });
  assertEquals((await call.readTextFile("/p/new.txt")).ok, false);
  assertEquals(reads, ["/p/seen.txt", "/p/new.txt", "/p/seen.txt"]);
});

Deno.test("what the call wrote is what a later read of the call sees, with no read", async () => {
  const { door, reads } = countingDoor(new Map());
  const call = new CallFileReads(door, "/p");
  assertEquals((await call.readTextFile("new.txt")).ok, false);
  assertEquals(await call.writeTextFile("new.txt", "made\n"), { ok: true });
  assertEquals(await call.readTextFile("/p/new.txt"), { ok: true, content: "made\n" });
  assertEquals(reads, ["new.txt"]);
});
