import { assert, assertEquals } from "../helpers/assert.ts";
import { allowedRoots } from "../../src/agent/allowed_roots.ts";
import { sliceLines } from "../../src/agent/file_access.ts";
import { LocalFileAccess } from "../../src/agent/local_file_access.ts";
import { withTempDir } from "./temp_dir.ts";

async function access(project: string, maxReadBytes?: number) {
  const roots = await allowedRoots({ launchCwd: project, home: undefined });
  return new LocalFileAccess({ cwd: project, roots, maxReadBytes });
}

const FIVE_LINES = "one\ntwo\nthree\nfour\nfive\n";

Deno.test("sliceLines keeps line endings and counts lines from 1", () => {
  assertEquals(sliceLines(FIVE_LINES), FIVE_LINES);
  assertEquals(sliceLines(FIVE_LINES, 2, 2), "two\nthree\n");
  assertEquals(sliceLines(FIVE_LINES, 4), "four\nfive\n");
  assertEquals(sliceLines(FIVE_LINES, undefined, 1), "one\n");
  assertEquals(sliceLines(FIVE_LINES, 9, 2), "");
  assertEquals(sliceLines("a\r\nb\r\nc", 2, 5), "b\r\nc");
});

Deno.test("a local read returns the whole file, or the lines asked for", async () => {
  await withTempDir({ "p/notes.txt": FIVE_LINES }, async (base) => {
    const files = await access(`${base}/p`);
    assertEquals(await files.readTextFile("notes.txt"), { ok: true, content: FIVE_LINES });
    assertEquals(await files.readTextFile(`${base}/p/notes.txt`, { line: 3, limit: 2 }), {
      ok: true,
      content: "three\nfour\n",
    });
  });
});

Deno.test("a missing file, a directory, a binary file and a big file are clear failures", async () => {
  await withTempDir({ "p/dir/x.txt": "x" }, async (base) => {
    await Deno.writeFile(`${base}/p/image.bin`, new Uint8Array([0xff, 0xfe, 0x00, 0x80]));
    await Deno.writeTextFile(`${base}/p/big.txt`, "x".repeat(2048));
    const files = await access(`${base}/p`, 1024);
    assertEquals(await files.readTextFile("missing.txt"), {
      ok: false,
      failure: "not_found",
      message: 'Cannot read "missing.txt": no such file',
    });
    assertEquals(await files.readTextFile("dir"), {
      ok: false,
      failure: "failed",
      message: 'Cannot read "dir": it is a directory',
    });
    assertEquals(await files.readTextFile("image.bin"), {
      ok: false,
      failure: "failed",
      message: 'Cannot read "image.bin": it is not a UTF-8 text file',
    });
    assertEquals(await files.readTextFile("big.txt"), {
      ok: false,
      failure: "failed",
      message: 'Cannot read "big.txt": it is 2.0 KiB, over the 1.0 KiB limit for reading a ' +
        "file whole (use the shell tool to look at parts of it)",
    });
  });
});

Deno.test("a read or write outside the roots is refused and touches nothing", async () => {
  await withTempDir({ "p/a.txt": "a", "outside/secret.txt": "secret" }, async (base) => {
    await Deno.symlink(`${base}/outside`, `${base}/p/out`);
    const files = await access(`${base}/p`);
    const read = await files.readTextFile("../outside/secret.txt");
    assertEquals(read, {
      ok: false,
      failure: "refused",
      message:
        `Cannot read "../outside/secret.txt": it resolves to "${base}/outside/secret.txt", ` +
        `which is outside the allowed directories ("${base}/p")`,
    });
    const write = await files.writeTextFile("out/new.txt", "pwned");
    assert(!write.ok);
    assertEquals(write.failure, "refused");
    assertEquals(
      write.message.startsWith(`Cannot write "out/new.txt": it resolves to "${base}/outside/`),
      true,
    );
    assertEquals([...Deno.readDirSync(`${base}/outside`)].map((e) => e.name), ["secret.txt"]);
  });
});

Deno.test("a local write replaces the file, or creates it with missing parent dirs", async () => {
  await withTempDir({ "p/a.txt": "old\n" }, async (base) => {
    const files = await access(`${base}/p`);
    assertEquals(await files.writeTextFile("a.txt", "new\n"), { ok: true });
    assertEquals(await Deno.readTextFile(`${base}/p/a.txt`), "new\n");
    assertEquals(await files.writeTextFile("src/deep/b.ts", "export {};\n"), { ok: true });
    assertEquals(await Deno.readTextFile(`${base}/p/src/deep/b.ts`), "export {};\n");
  });
});

Deno.test("a write through an inside symlink lands on its target", async () => {
  await withTempDir({ "p/real.txt": "old" }, async (base) => {
    await Deno.symlink(`${base}/p/real.txt`, `${base}/p/alias.txt`);
    const files = await access(`${base}/p`);
    assertEquals(await files.writeTextFile("alias.txt", "new"), { ok: true });
    assertEquals(await Deno.readTextFile(`${base}/p/real.txt`), "new");
    assert((await Deno.lstat(`${base}/p/alias.txt`)).isSymlink);
  });
});
