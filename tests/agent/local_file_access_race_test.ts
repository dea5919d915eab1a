import { assert, assertEquals } from "../helpers/assert.ts";
import { allowedRoots } from "../../src/agent/allowed_roots.ts";
import { LocalFileAccess } from "../../src/agent/local_file_access.ts";
import { startPathFlipper } from "./path_flipper.ts";
import { withTempDir } from "./temp_dir.ts";

/** Enough racing calls that the check-then-access code let dozens escape every run. */
const CALLS = 200;

/**
 * A test in a raced dir: `p` is the only root; `p/d` is swapped, between every two accesses,
 * with `p/d_link`, a symlink to `outside`, which sits in the same temp dir just outside the root.
 */
function racedTest(name: string, fn: (base: string, files: LocalFileAccess) => Promise<void>) {
  Deno.test({
    name,
    // The flipper swaps with renameat2.
    ignore: Deno.build.os !== "linux",
    fn: () =>
      withTempDir({
        "p/d/secret.txt": "inside\n",
        "outside/secret.txt": "outside\n",
      }, async (base) => {
        await Deno.symlink(`${base}/outside`, `${base}/p/d_link`);
        const roots = await allowedRoots({ launchCwd: `${base}/p`, home: undefined });
        await using _flipper = await startPathFlipper(`${base}/p`, "d", "d_link");
        await fn(base, new LocalFileAccess({ cwd: `${base}/p`, roots }));
      }),
  });
}

racedTest(
  "a directory on the path swapped for a symlink during fs_read never lets a read out",
  async (_base, files) => {
    let escaped = 0;
    let readInside = 0;
    for (let i = 0; i < CALLS; i++) {
      const read = await files.readTextFile("d/secret.txt");
      if (read.ok && read.content === "outside\n") escaped++;
      if (read.ok && read.content === "inside\n") readInside++;
    }
    assertEquals(escaped, 0, `${escaped} of ${CALLS} racing reads returned the outside file`);
    assert(readInside > 0, `none of ${CALLS} racing reads succeeded: the test proves nothing`);
  },
);

racedTest(
  "a directory on the path swapped for a symlink during fs_write never lets a write out",
  async (base, files) => {
    let written = 0;
    for (let i = 0; i < CALLS; i++) {
      if ((await files.writeTextFile(`d/w${i}.txt`, "x")).ok) written++;
    }
    const outside = [...Deno.readDirSync(`${base}/outside`)].map((entry) => entry.name);
    assertEquals(
      outside,
      ["secret.txt"],
      `${outside.length - 1} of ${CALLS} racing writes created a file outside the roots`,
    );
    assertEquals(await Deno.readTextFile(`${base}/outside/secret.txt`), "outside\n");
    assert(written > 0, `none of ${CALLS} racing writes succeeded: the test proves nothing`);
  },
);
