/**
 * The inotify watcher of `hooks test --watch` (Linux): changes are reported by name, in
 * directories made after the watch began too, never through a symlinked directory, and a FIFO
 * that appears is reported like any file, not opened.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import { makeFifo } from "../hooks/special_files.ts";
import { type DirectoryWatch, watchDirectories } from "../../src/os/inotify_watch.ts";
import { withFiles } from "./scenario_files.ts";

const linuxOnly = { ignore: Deno.build.os !== "linux", sanitizeOps: true, sanitizeResources: true };

/** A watch of `dir`, and every path it reported so far, while `fn` runs. */
async function watching(
  dir: string,
  recursive: boolean,
  fn: (seen: () => readonly string[], watch: DirectoryWatch) => Promise<void>,
): Promise<void> {
  const seen: string[] = [];
  const watch = await watchDirectories([dir], recursive, (event) => seen.push(...event.paths));
  assert(watch !== undefined, "inotify is used on Linux with FFI granted");
  try {
    await fn(() => seen, watch);
  } finally {
    await watch.close();
  }
}

Deno.test({
  name: "a recursive watch sees changes in a directory made after it began, not through a link",
  ...linuxOnly,
  fn: () =>
    withFiles({ "watched/": "", "elsewhere/": "" }, async (dir) => {
      await Deno.symlink(`${dir}/elsewhere`, `${dir}/watched/link`);
      await watching(`${dir}/watched`, true, async (seen) => {
        await Deno.mkdir(`${dir}/watched/new`);
        await waitUntil(() => seen().includes(`${dir}/watched/new`), "the new directory");
        // The new directory's watch is added as its creation is read: write until it is seen.
        await waitUntil(async () => {
          await Deno.writeTextFile(`${dir}/watched/new/a.txt`, "a");
          return seen().includes(`${dir}/watched/new/a.txt`);
        }, "a file in the new directory");
        await Deno.writeTextFile(`${dir}/elsewhere/b.txt`, "b");
        await Deno.writeTextFile(`${dir}/watched/c.txt`, "c");
        await waitUntil(() => seen().includes(`${dir}/watched/c.txt`), "the file beside the link");
        assertEquals(seen().filter((path) => path.includes("b.txt")), []);
      });
    }),
});

Deno.test({
  name: "a FIFO made in a watched directory is reported, and closing ends the events",
  ...linuxOnly,
  fn: () =>
    withFiles({ "watched/": "" }, async (dir) => {
      await watching(`${dir}/watched`, false, async (seen, watch) => {
        await makeFifo(`${dir}/watched/pipe`);
        await waitUntil(() => seen().includes(`${dir}/watched/pipe`), "the FIFO");
        await watch.close();
        const count = seen().length;
        await Deno.writeTextFile(`${dir}/watched/after.txt`, "x");
        await new Promise((resolve) => setTimeout(resolve, 200));
        assertEquals(seen().length, count);
      });
    }),
});
