/**
 * `hooks test` on scenario files that are not regular files, through the real launcher: a FIFO,
 * a socket or a link to `/dev/zero`, found in `.claude/hooks-tests` or named, is an invalid
 * scenario file the report names, so the run exits 2; it is never left out (the run would pass)
 * and never waited on. Runs are watched (killed past a deadline), since one failure being tested
 * is an open that never ends.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { withTempProject } from "../helpers/run_cli.ts";
import { runCliWatched, type WatchedRun } from "../helpers/watched_cli.ts";
import { linkToDevZero, makeFifo, withSocketMaker } from "../hooks/special_files.ts";
import { ALLOWS_LS, GUARD, scenario, SETTINGS } from "./hooks_test_fixture.ts";

const PROJECT = {
  "home/tmp/.keep": "",
  "project/.claude/settings.json": SETTINGS,
  "project/.claude/hooks/guard.sh": GUARD,
  "project/.claude/hooks-tests/guard.test.jsonc": scenario([ALLOWS_LS]),
};

function hooksTest(dir: string, args: readonly string[]): Promise<WatchedRun> {
  return runCliWatched(["hooks", "test", ...args], {
    cwd: `${dir}/project`,
    home: `${dir}/home`,
    env: { TMPDIR: `${dir}/home/tmp` },
    deadlineMs: 30_000,
  });
}

function assertEndedByItself(result: WatchedRun): void {
  assert(
    result.killed === undefined,
    `hooks test was killed: ${result.killed}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
  );
}

const refused = (name: string, reason: string) =>
  `  .claude/hooks-tests/${name}:1:1: Cannot read scenario ".claude/hooks-tests/${name}": ` +
  `${reason}\n`;

Deno.test("a FIFO, a socket or a link to /dev/zero found as a scenario is an invalid file: exit 2, each named", async () => {
  await withTempProject(PROJECT, async (dir) => {
    const tests = `${dir}/project/.claude/hooks-tests`;
    await withSocketMaker(async (makeSocket) => {
      await makeFifo(`${tests}/fifo.test.jsonc`);
      makeSocket(`${tests}/socket.test.jsonc`);
      await linkToDevZero(`${tests}/zero.test.jsonc`);
      const result = await hooksTest(dir, []);
      assertEndedByItself(result);
      assertEquals([result.code, result.stderr], [2, ""]);
      assertStringIncludes(
        result.stdout,
        refused("fifo.test.jsonc", "it is a FIFO, not a regular file"),
      );
      assertStringIncludes(
        result.stdout,
        refused("socket.test.jsonc", "it is a socket, not a regular file"),
      );
      assertStringIncludes(
        result.stdout,
        refused("zero.test.jsonc", "it is a character device, not a regular file"),
      );
      // The regular file beside them still runs.
      assertStringIncludes(result.stdout, "1 passed, 0 failed, 3 invalid files in ");
    });
  });
});

Deno.test("a scenario file named on the command line that is a FIFO is refused, not waited on", async () => {
  await withTempProject(PROJECT, async (dir) => {
    await makeFifo(`${dir}/project/.claude/hooks-tests/fifo.test.jsonc`);
    const result = await hooksTest(dir, [".claude/hooks-tests/fifo.test.jsonc"]);
    assertEndedByItself(result);
    assertEquals([result.code, result.stderr], [2, ""]);
    assertStringIncludes(
      result.stdout,
      refused("fifo.test.jsonc", "it is a FIFO, not a regular file"),
    );
    assertStringIncludes(result.stdout, "0 passed, 0 failed, 1 invalid file in ");
  });
});
