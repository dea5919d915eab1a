import { assert, assertEquals } from "../helpers/assert.ts";
import { allowedRoots } from "../../src/os/files/allowed_roots.ts";
import { LocalFileAccess } from "../../src/agent/files/local_file_access.ts";
import { startPathFlipper } from "./path_flipper.ts";
import { withTempDir } from "./temp_dir.ts";

/** Enough racing calls that the check-then-access code let dozens escape every run. */
const CALLS = 200;
/**
 * Under load one call can span many swaps, and then most calls fail (a swap seen at any step
 * refuses it): calls go on past `CALLS` until enough succeeded to prove something, within a
 * bound.
 */
const SUCCESSES = 20;
const MAX_CALLS = 5000;
const MAX_MS = 30_000;

/** Calls `call` at least `CALLS` times and until `SUCCESSES` succeeded, within the bounds. */
async function raced(
  call: (i: number) => Promise<boolean>,
): Promise<{ calls: number; ok: number }> {
  const deadline = performance.now() + MAX_MS;
  let calls = 0;
  let ok = 0;
  while (calls < CALLS || (ok < SUCCESSES && calls < MAX_CALLS && performance.now() < deadline)) {
    if (await call(calls)) ok++;
    calls++;
  }
  return { calls, ok };
}

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
    const { calls, ok } = await raced(async () => {
      const read = await files.readTextFile("d/secret.txt");
      if (read.ok && read.content === "outside\n") escaped++;
      return read.ok && read.content === "inside\n";
    });
    assertEquals(escaped, 0, `${escaped} of ${calls} racing reads returned the outside file`);
    assert(ok > 0, `none of ${calls} racing reads succeeded: the test proves nothing`);
  },
);

racedTest(
  "a directory on the path swapped for a symlink during fs_write never lets a write out",
  async (base, files) => {
    const { calls, ok } = await raced(async (i) =>
      (await files.writeTextFile(`d/w${i}.txt`, "x")).ok
    );
    const outside = [...Deno.readDirSync(`${base}/outside`)].map((entry) => entry.name);
    assertEquals(
      outside,
      ["secret.txt"],
      `${outside.length - 1} of ${calls} racing writes created a file outside the roots`,
    );
    assertEquals(await Deno.readTextFile(`${base}/outside/secret.txt`), "outside\n");
    assert(ok > 0, `none of ${calls} racing writes succeeded: the test proves nothing`);
  },
);
