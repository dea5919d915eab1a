import { assert, assertEquals } from "../helpers/assert.ts";
import { type WalkedFile, walkFiles, type WalkOptions } from "../../src/agent/search/file_walk.ts";
import { openDescriptorDirectories } from "../../src/os/files/descriptor_directory.ts";
import { openPathDirectories } from "../../src/os/files/path_directory.ts";
import type { OpenDirectorySource } from "../../src/os/files/walk_directory.ts";
import { withTempDir } from "./temp_dir.ts";

/** Each way of opening directories this platform has: every test runs on all of them. */
const SOURCES: readonly [string, OpenDirectorySource][] = [
  ["descriptors", openDescriptorDirectories],
  ["paths", openPathDirectories],
];

function sourcesHere(dir: string): [string, OpenDirectorySource][] {
  const place = { cwd: dir, roots: [dir] };
  return SOURCES.filter(([, open]) => {
    const source = open(place);
    source?.close();
    return source !== undefined;
  });
}

async function walk(
  root: string,
  options: Partial<WalkOptions> & { directories: OpenDirectorySource },
  onFile: (file: WalkedFile) => void | Promise<void> = () => {},
) {
  const seen: string[] = [];
  const summary = await walkFiles(root, { cwd: root, roots: [root], ...options }, async (file) => {
    seen.push(file.relative);
    await onFile(file);
  });
  return { seen, summary };
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("the walk gives regular files in name order, depth first, without symlinks or ignored files", async () => {
  await withTempDir({
    ".gitignore": "*.log\nbuild/\n",
    "b.txt": "",
    "a.txt": "",
    "z/inner.txt": "",
    "m/deep/x.txt": "",
    "m/y.log": "",
    "build/out.txt": "",
    ".git/HEAD": "",
  }, async (dir) => {
    await Deno.symlink(`${dir}/m`, `${dir}/link`);
    await Deno.symlink(`${dir}/a.txt`, `${dir}/a-link.txt`);
    for (const [name, directories] of sourcesHere(dir)) {
      const { seen, summary } = await walk(dir, { directories });
      assertEquals(seen, [".gitignore", "a.txt", "b.txt", "m/deep/x.txt", "z/inner.txt"], name);
      assertEquals([summary.capped, summary.cancelled, summary.unreadable], [false, false, 0]);
    }
  });
});

Deno.test("a directory swapped for a symlink out of the roots after its parent was listed is not listed", async () => {
  await withTempDir({
    "root/b/first.txt": "",
    "root/b/c/inside.txt": "",
    "outside/c/secret.txt": "",
  }, async (dir) => {
    const root = `${dir}/root`;
    for (const [name, directories] of sourcesHere(dir)) {
      const { seen, summary } = await walk(root, { directories }, async (file) => {
        if (file.relative !== "b/first.txt") return;
        // b/c is still to be walked; b now leads outside, and b/c with it.
        await Deno.rename(`${root}/b`, `${root}/b-moved`);
        await Deno.symlink(`${dir}/outside`, `${root}/b`);
      });
      assertEquals(seen, ["b/first.txt"], name);
      assertEquals(summary.unreadable, 1, name);
      await Deno.remove(`${root}/b`);
      await Deno.rename(`${root}/b-moved`, `${root}/b`);
    }
  });
});

Deno.test("a file read after its directory's path was swapped for a symlink out of the roots is never read from outside", async () => {
  await withTempDir({
    "root/a/1.txt": "inside 1",
    "root/a/2.txt": "inside 2",
    "outside/2.txt": "secret",
  }, async (dir) => {
    const root = `${dir}/root`;
    for (const [name, directories] of sourcesHere(dir)) {
      const texts: string[] = [];
      await walk(root, { directories }, async (file) => {
        const read = await file.readBytes(1024);
        texts.push(read.ok ? decode(read.bytes) : read.reason);
        if (file.relative === "a/1.txt") {
          await Deno.rename(`${root}/a`, `${root}/a-moved`);
          await Deno.symlink(`${dir}/outside`, `${root}/a`);
        }
      });
      // Descriptors read the file that was listed; paths refuse the open that led outside.
      assertEquals(texts[0], "inside 1", name);
      assert(texts[1] === "inside 2" || texts[1] === "unreadable", `${name}: ${texts[1]}`);
      await Deno.remove(`${root}/a`);
      await Deno.rename(`${root}/a-moved`, `${root}/a`);
    }
  });
});

Deno.test("a symlink or a FIFO put in place of a listed file is not read", async () => {
  await withTempDir({
    "root/1.txt": "one",
    "root/2.txt": "two",
    "root/3.txt": "three",
    "outside/s.txt": "secret",
  }, async (dir) => {
    const root = `${dir}/root`;
    for (const [name, directories] of sourcesHere(dir)) {
      const reads: string[] = [];
      await walk(root, { directories }, async (file) => {
        if (file.relative === "1.txt") {
          await Deno.remove(`${root}/2.txt`);
          await Deno.symlink(`${dir}/outside/s.txt`, `${root}/2.txt`);
          await Deno.remove(`${root}/3.txt`);
          const made = await new Deno.Command("mkfifo", { args: [`${root}/3.txt`] }).output();
          assert(made.success, "mkfifo failed");
        }
        const read = await file.readBytes(1024);
        reads.push(read.ok ? decode(read.bytes) : read.reason);
      });
      assertEquals(reads, ["one", "unreadable", "unreadable"], name);
      for (const path of ["2.txt", "3.txt"]) await Deno.remove(`${root}/${path}`);
      await Deno.writeTextFile(`${root}/2.txt`, "two");
      await Deno.writeTextFile(`${root}/3.txt`, "three");
    }
  });
});

Deno.test("a walked file reads whole up to its limit, too big past it, and not once its directory is left", async () => {
  await withTempDir({}, async (dir) => {
    const sizes = { "a.bin": 10, "b.bin": 200_000, "c.bin": 3_000_000 };
    for (const [path, size] of Object.entries(sizes)) {
      await Deno.writeFile(`${dir}/${path}`, new Uint8Array(size).map((_, i) => i % 251));
    }
    for (const [name, directories] of sourcesHere(dir)) {
      const kept: WalkedFile[] = [];
      const results: (number | string)[] = [];
      await walk(dir, { directories }, async (file) => {
        kept.push(file);
        const whole = await file.readBytes(4_000_000);
        const expected = sizes[file.relative as keyof typeof sizes];
        assert(whole.ok && whole.bytes.length === expected, `${name}: ${file.relative}`);
        assert(whole.bytes.every((byte, i) => byte === i % 251), `${name}: ${file.relative}`);
        const cut = await file.readBytes(100_000);
        results.push(cut.ok ? cut.bytes.length : cut.reason);
      });
      assertEquals(results, [10, "too_big", "too_big"], name);
      const late = await kept[0]!.readBytes(1024);
      if (name === "descriptors") assertEquals(late, { ok: false, reason: "unreadable" });
    }
  });
});

Deno.test("a walked file's modification time is the one lstat gives", async () => {
  await withTempDir({ "a.txt": "", "b.txt": "" }, async (dir) => {
    await Deno.utime(`${dir}/a.txt`, 0, new Date(Date.UTC(2020, 5, 1, 12, 0, 0, 123)));
    for (const [name, directories] of sourcesHere(dir)) {
      const times: number[] = [];
      await walk(dir, { directories }, (file) => {
        times.push(file.modifiedTime());
      });
      const expected = await Promise.all(
        ["a.txt", "b.txt"].map(async (path) =>
          (await Deno.lstat(`${dir}/${path}`)).mtime!.getTime()
        ),
      );
      assertEquals(times, expected, name);
      assertEquals(times[0], Date.UTC(2020, 5, 1, 12, 0, 0, 123), name);
    }
  });
});

Deno.test("a walk stops at its entry cap and when its signal is aborted", async () => {
  const files = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}.txt`, ""]));
  await withTempDir(files, async (dir) => {
    for (const [name, directories] of sourcesHere(dir)) {
      const capped = await walk(dir, { directories, maxEntries: 3 });
      assertEquals([capped.seen.length, capped.summary.capped], [3, true], name);
      const controller = new AbortController();
      const cancelled = await walk(dir, { directories, signal: controller.signal }, () => {
        controller.abort();
      });
      assertEquals([cancelled.seen.length, cancelled.summary.cancelled], [1, true], name);
    }
  });
});

Deno.test("a cancel from a timer stops a walk whose calls are all synchronous", async () => {
  const files = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}.txt`, ""]));
  await withTempDir(files, async (dir) => {
    for (const [name, directories] of sourcesHere(dir)) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 1);
      // Each file keeps the thread busy, as a big synchronous read would.
      const { seen, summary } = await walk(dir, { directories, signal: controller.signal }, () => {
        const until = performance.now() + 2;
        while (performance.now() < until) { /* busy */ }
      });
      clearTimeout(timer);
      assert(summary.cancelled && seen.length < 200, `${name}: ${seen.length} files walked`);
    }
  });
});
