import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { allowedRoots } from "../../src/os/files/allowed_roots.ts";
import type { ConfinedOpener } from "../../src/os/files/confined_file.ts";
import { DescriptorOpener } from "../../src/os/files/descriptor_opener.ts";
import { sliceLines } from "../../src/agent/files/file_access.ts";
import { loadLibc } from "../../src/os/files/libc.ts";
import { LocalFileAccess } from "../../src/agent/files/local_file_access.ts";
import { PathOpener } from "../../src/os/files/path_opener.ts";
import { makeFifo } from "../hooks/special_files.ts";
import { withTempDir } from "./temp_dir.ts";

/** Every behaviour below holds whichever way files are opened. */
const libc = loadLibc();
const OPENERS: ReadonlyArray<readonly [string, ConfinedOpener | undefined]> = [
  ["descriptors", libc === undefined ? undefined : new DescriptorOpener(libc)],
  ["fallback", new PathOpener()],
];

function eachOpener(name: string, fn: (opener: ConfinedOpener) => Promise<void>): void {
  for (const [way, opener] of OPENERS) {
    Deno.test({
      name: `${name} (${way})`,
      ignore: opener === undefined,
      fn: () => opener === undefined ? Promise.resolve() : fn(opener),
    });
  }
}

async function access(project: string, opener: ConfinedOpener, maxReadBytes?: number) {
  const roots = await allowedRoots({ launchCwd: project, home: undefined });
  return new LocalFileAccess({ cwd: project, roots, maxReadBytes, opener });
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

eachOpener("a local read returns the whole file, or the lines asked for", async (opener) => {
  await withTempDir({ "p/notes.txt": FIVE_LINES }, async (base) => {
    const files = await access(`${base}/p`, opener);
    assertEquals(await files.readTextFile("notes.txt"), { ok: true, content: FIVE_LINES });
    assertEquals(await files.readTextFile(`${base}/p/notes.txt`, { line: 3, limit: 2 }), {
      ok: true,
      content: "three\nfour\n",
    });
  });
});

/** Reasons for the files of the test below: what `Cannot read "<path>": ` goes on with. */
const READ_FAILURES: ReadonlyArray<
  readonly [string, "not_found" | "is_directory" | "failed", string]
> = [
  ["missing.txt", "not_found", "no such file"],
  ["dir", "is_directory", "it is a directory"],
  ["image.bin", "failed", "it is not a UTF-8 text file"],
  [
    "big.txt",
    "failed",
    "it is 2.0 KiB, over the 1.0 KiB limit for reading a file whole " +
    "(use the shell tool to look at parts of it)",
  ],
  // Rounded, the two sizes would read alike.
  [
    "just_over.txt",
    "failed",
    "it is 1.0 KiB (1025 bytes), over the 1.0 KiB (1024 bytes) limit for reading a file whole " +
    "(use the shell tool to look at parts of it)",
  ],
];

eachOpener(
  "a missing file, a directory, a binary file and a big file are clear failures",
  async (opener) => {
    await withTempDir({ "p/dir/x.txt": "x" }, async (base) => {
      await Deno.writeFile(`${base}/p/image.bin`, new Uint8Array([0xff, 0xfe, 0x00, 0x80]));
      await Deno.writeTextFile(`${base}/p/big.txt`, "x".repeat(2048));
      await Deno.writeTextFile(`${base}/p/just_over.txt`, "x".repeat(1025));
      const files = await access(`${base}/p`, opener, 1024);
      for (const [path, failure, reason] of READ_FAILURES) {
        assertEquals(await files.readTextFile(path), {
          ok: false,
          failure,
          message: `Cannot read "${path}": ${reason}`,
        });
      }
    });
  },
);

eachOpener("a read or write outside the roots is refused and touches nothing", async (opener) => {
  await withTempDir({ "p/a.txt": "a", "outside/secret.txt": "secret" }, async (base) => {
    await Deno.symlink(`${base}/outside`, `${base}/p/out`);
    const files = await access(`${base}/p`, opener);
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

eachOpener(
  "a local write replaces the file, or creates it with missing parent dirs",
  async (opener) => {
    await withTempDir({ "p/a.txt": "old\n" }, async (base) => {
      const files = await access(`${base}/p`, opener);
      assertEquals(await files.writeTextFile("a.txt", "new\n"), { ok: true });
      assertEquals(await Deno.readTextFile(`${base}/p/a.txt`), "new\n");
      assertEquals(await files.writeTextFile("src/deep/b.ts", "export {};\n"), { ok: true });
      assertEquals(await Deno.readTextFile(`${base}/p/src/deep/b.ts`), "export {};\n");
    });
  },
);

eachOpener("a write through an inside symlink lands on its target", async (opener) => {
  await withTempDir({ "p/real.txt": "old" }, async (base) => {
    await Deno.symlink(`${base}/p/real.txt`, `${base}/p/alias.txt`);
    const files = await access(`${base}/p`, opener);
    assertEquals(await files.writeTextFile("alias.txt", "new"), { ok: true });
    assertEquals(await Deno.readTextFile(`${base}/p/real.txt`), "new");
    assert((await Deno.lstat(`${base}/p/alias.txt`)).isSymlink);
  });
});

eachOpener(
  "a symlink from one root into another is followed, for reads and writes",
  async (opener) => {
    await withTempDir({ "p/a.txt": "a", "q/data/x.txt": "x\n" }, async (base) => {
      await Deno.symlink(`${base}/q/data`, `${base}/p/q_data`);
      const roots = await allowedRoots({
        launchCwd: `${base}/p`,
        home: undefined,
        additionalDirectories: [`${base}/q`],
      });
      const files = new LocalFileAccess({ cwd: `${base}/p`, roots, opener });
      assertEquals(await files.readTextFile("q_data/x.txt"), { ok: true, content: "x\n" });
      assertEquals(await files.writeTextFile("q_data/new/y.txt", "y\n"), { ok: true });
      assertEquals(await Deno.readTextFile(`${base}/q/data/new/y.txt`), "y\n");
    });
  },
);

eachOpener("a missing file outside the roots is refused, not reported missing", async (opener) => {
  await withTempDir({ "p/a.txt": "a", "outside/x.txt": "x" }, async (base) => {
    const files = await access(`${base}/p`, opener);
    assertEquals(await files.readTextFile("../outside/none.txt"), {
      ok: false,
      failure: "refused",
      message: `Cannot read "../outside/none.txt": it resolves to "${base}/outside/none.txt", ` +
        `which is outside the allowed directories ("${base}/p")`,
    });
    await Deno.symlink(`${base}/outside/gone.txt`, `${base}/p/dangling.txt`);
    const dangling = await files.readTextFile("dangling.txt");
    assertEquals(dangling.ok ? "read" : dangling.failure, "refused");
  });
});

eachOpener(
  "a write through a dangling symlink creates its target inside, and is refused outside",
  async (opener) => {
    await withTempDir({ "p/a.txt": "a", "outside/x.txt": "x" }, async (base) => {
      await Deno.symlink(`${base}/p/made.txt`, `${base}/p/to_file.txt`);
      await Deno.symlink(`${base}/p/made_dir`, `${base}/p/to_dir`);
      await Deno.symlink(`${base}/outside/gone`, `${base}/p/out_dir`);
      const files = await access(`${base}/p`, opener);
      assertEquals(await files.writeTextFile("to_file.txt", "1"), { ok: true });
      assertEquals(await Deno.readTextFile(`${base}/p/made.txt`), "1");
      assertEquals(await files.writeTextFile("to_dir/deep/b.txt", "2"), { ok: true });
      assertEquals(await Deno.readTextFile(`${base}/p/made_dir/deep/b.txt`), "2");
      assertEquals(await files.writeTextFile("out_dir/c.txt", "3"), {
        ok: false,
        failure: "refused",
        message: `Cannot write "out_dir/c.txt": it resolves to "${base}/outside/gone/c.txt", ` +
          `which is outside the allowed directories ("${base}/p")`,
      });
      assertEquals([...Deno.readDirSync(`${base}/outside`)].map((e) => e.name), ["x.txt"]);
    });
  },
);

eachOpener("an overwrite keeps the file's mode and its hard links", async (opener) => {
  await withTempDir({ "p/script.sh": "old\n" }, async (base) => {
    await Deno.chmod(`${base}/p/script.sh`, 0o750);
    await Deno.link(`${base}/p/script.sh`, `${base}/p/linked.sh`);
    const files = await access(`${base}/p`, opener);
    assertEquals(await files.writeTextFile("script.sh", "new\n"), { ok: true });
    assertEquals((await Deno.stat(`${base}/p/script.sh`)).mode! & 0o777, 0o750);
    assertEquals(await Deno.readTextFile(`${base}/p/linked.sh`), "new\n");
  });
});

eachOpener("writing over a directory, or below a file, is a clear failure", async (opener) => {
  await withTempDir({ "p/dir/x.txt": "x", "p/file.txt": "f" }, async (base) => {
    const files = await access(`${base}/p`, opener);
    assertEquals(await files.writeTextFile("dir", "x"), {
      ok: false,
      failure: "failed",
      message: 'Cannot write "dir": it is a directory',
    });
    assertEquals(await files.writeTextFile(".", "x"), {
      ok: false,
      failure: "failed",
      message: 'Cannot write ".": it is a directory',
    });
    const below = await files.writeTextFile("file.txt/new/y.txt", "y");
    assert(!below.ok);
    assertStringIncludes(below.message, "a part of the path is not a directory");
    assertEquals(await Deno.readTextFile(`${base}/p/file.txt`), "f");
  });
});

eachOpener("a FIFO is refused at once for reading and writing, not waited on", async (opener) => {
  await withTempDir({ "p/a.txt": "a" }, async (base) => {
    await makeFifo(`${base}/p/pipe`);
    const files = await access(`${base}/p`, opener);
    assertEquals(await files.readTextFile("pipe"), {
      ok: false,
      failure: "failed",
      message: 'Cannot read "pipe": it is not a regular file',
    });
    assertEquals(await files.writeTextFile("pipe", "x"), {
      ok: false,
      failure: "failed",
      message: 'Cannot write "pipe": it is not a regular file',
    });
  });
});

eachOpener("an aborted signal cancels before the file is read or emptied", async (opener) => {
  await withTempDir({ "p/a.txt": "keep\n" }, async (base) => {
    const files = await access(`${base}/p`, opener);
    const signal = AbortSignal.abort();
    assertEquals(await files.readTextFile("a.txt", { signal }), {
      ok: false,
      failure: "cancelled",
      message: 'Cannot read "a.txt": cancelled',
    });
    assertEquals(await files.writeTextFile("a.txt", "gone", { signal }), {
      ok: false,
      failure: "cancelled",
      message: 'Cannot write "a.txt": cancelled',
    });
    assertEquals(await Deno.readTextFile(`${base}/p/a.txt`), "keep\n");
  });
});

eachOpener(
  "a file bigger than the limit in steps is read whole up to the limit",
  async (opener) => {
    await withTempDir({ "p/a.txt": "a" }, async (base) => {
      const big = "0123456789abcdef".repeat(256 * 1024);
      await Deno.writeTextFile(`${base}/p/big.txt`, big);
      const files = await access(`${base}/p`, opener, big.length);
      assertEquals(await files.readTextFile("big.txt"), { ok: true, content: big });
    });
  },
);

/** `opener`, with the signal aborted as soon as the first step of a write has gone through. */
function abortingAfterFirstWrite(opener: ConfinedOpener, controller: AbortController) {
  return {
    openRead: opener.openRead.bind(opener),
    openWrite: async (...args: Parameters<ConfinedOpener["openWrite"]>) => {
      const opened = await opener.openWrite(...args);
      if (!opened.ok) return opened;
      const { file } = opened;
      return {
        ok: true as const,
        file: {
          size: file.size,
          read: file.read.bind(file),
          close: file.close.bind(file),
          write: async (bytes: Uint8Array) => {
            const count = await file.write(bytes);
            controller.abort();
            return count;
          },
        },
      };
    },
  } satisfies ConfinedOpener;
}

eachOpener(
  "a cancel after the file was emptied lets the write finish, so no half file is left",
  async (opener) => {
    await withTempDir({ "p/a.txt": "old\n" }, async (base) => {
      const controller = new AbortController();
      const roots = await allowedRoots({ launchCwd: `${base}/p`, home: undefined });
      const files = new LocalFileAccess({
        cwd: `${base}/p`,
        roots,
        opener: abortingAfterFirstWrite(opener, controller),
      });
      // Several write steps' worth.
      const content = "0123456789abcdef".repeat(256 * 1024);
      const written = await files.writeTextFile("a.txt", content, { signal: controller.signal });
      assert(controller.signal.aborted, "the cancel never came: the test proves nothing");
      assertEquals(written, { ok: true });
      assertEquals(await Deno.readTextFile(`${base}/p/a.txt`), content);
    });
  },
);
