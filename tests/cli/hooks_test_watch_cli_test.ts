/**
 * `hooks test --watch` through the real launcher, with real file changes: it runs the suite,
 * reruns it when the settings file changes (here: the guard removed, so the case fails), and
 * Ctrl-C ends it with the last run's exit code. A scenario replaced by a FIFO is an invalid file
 * of the rerun, and Ctrl-C still ends the watch at once, leaving no process behind.
 * Program-facing reporters are refused.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { spawnLauncher, withTempProject } from "../helpers/run_cli.ts";
import { within } from "../helpers/within.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import { makeFifo, releaseFifo } from "../hooks/special_files.ts";
import {
  childrenOf,
  killAll,
  MARK_VARIABLE,
  processesMarked,
  type ProcessInfo,
  stillRunning,
} from "../e2e/marked_processes.ts";
import {
  ALLOWS_LS,
  DENIES_RM,
  GUARD,
  hooksTest,
  scenario,
  SETTINGS,
} from "./hooks_test_fixture.ts";

const PROJECT = {
  "home/tmp/.keep": "",
  "project/.claude/settings.json": SETTINGS,
  "project/.claude/hooks/guard.sh": GUARD,
  "project/.claude/hooks-tests/guard.test.jsonc": scenario([DENIES_RM]),
};

const SUMMARY_END = "· Ctrl-C to stop";

/** The text read so far, and a way to wait for the next `SUMMARY_END` line. */
function summaries(stream: ReadableStream<Uint8Array>) {
  let text = "";
  const waiting: { count: number; resolve: () => void }[] = [];
  const count = () => text.split(SUMMARY_END).length - 1;
  const done = (async () => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      for (const waiter of waiting.filter((w) => count() >= w.count)) waiter.resolve();
    }
  })();
  return {
    text: () => text,
    done,
    /** Resolves once `n` summary lines have been printed. */
    reach: (n: number) =>
      new Promise<void>((resolve) => {
        if (count() >= n) return resolve();
        waiting.push({ count: n, resolve });
      }),
  };
}

Deno.test("--watch reruns on a settings change and Ctrl-C exits with the last run's code", async () => {
  await withTempProject(PROJECT, async (dir) => {
    const child = await spawnLauncher(["hooks", "test", "--watch"], {
      cwd: `${dir}/project`,
      home: `${dir}/home`,
      env: { TMPDIR: `${dir}/home/tmp` },
    });
    const out = summaries(child.stdout);
    const errors = new Response(child.stderr).text();
    try {
      assertEquals(await within(out.reach(1).then(() => true), 30_000), true, "the first run ends");
      assertStringIncludes(out.text(), "1 passed, 0 failed · watching");
      // The guard is gone: rm -rf is no longer denied, so the case fails on the rerun.
      await Deno.writeTextFile(`${dir}/project/.claude/settings.json`, '{"hooks": {}}\n');
      assertEquals(await within(out.reach(2).then(() => true), 30_000), true, "the change reruns");
      const second = out.text().split(SUMMARY_END)[1]!;
      assertStringIncludes(second, "Changed .claude/settings.json");
      assertStringIncludes(second, "0 passed, 1 failed · watching");
    } finally {
      child.kill("SIGINT");
    }
    const status = await within(child.status, 30_000);
    if (status === undefined) child.kill("SIGKILL");
    assert(status !== undefined, "SIGINT ends the watch");
    await out.done;
    assertEquals([status.code, await errors], [1, ""]);
  });
});

Deno.test("--watch refuses --update: each rewrite would start another run", async () => {
  await hooksTest(PROJECT, ["--watch", "--update"], (result) => {
    assertEquals([result.code, result.stdout], [2, ""]);
    assertEquals(
      result.stderr,
      "--update and --watch do not go together: run --update once, then --watch\n",
    );
  });
});

Deno.test("--watch refuses a reporter whose output a program reads", async () => {
  await hooksTest(PROJECT, ["--watch", "--reporter", "junit"], (result) => {
    assertEquals([result.code, result.stdout], [2, ""]);
    assertEquals(
      result.stderr,
      '--watch is for a terminal: use the default or github reporter, not "junit"\n',
    );
  });
});

/** How a scenario file is swapped for a FIFO, and how the watch was started. */
interface FifoSwap {
  readonly args: readonly string[];
  readonly swap: (file: string) => Promise<void>;
}

/** Ctrl-C has this long to end the watch: it takes a fraction of a second. */
const PROMPT_EXIT_MS = 5_000;

/**
 * Starts the watch, swaps `.claude/hooks-tests/guard.test.jsonc` for a FIFO, waits for the
 * rerun, sends SIGINT: the rerun names the FIFO, the watch ends at once with the rerun's code
 * (2), and nothing it started outlives it.
 */
async function fifoSwapEndsCleanly({ args, swap }: FifoSwap): Promise<void> {
  await withTempProject({
    ...PROJECT,
    "project/.claude/hooks-tests/other.test.jsonc": scenario([ALLOWS_LS]),
  }, async (dir) => {
    const mark = crypto.randomUUID();
    const file = `${dir}/project/.claude/hooks-tests/guard.test.jsonc`;
    const child = await spawnLauncher(["hooks", "test", "--watch", ...args], {
      cwd: `${dir}/project`,
      home: `${dir}/home`,
      env: { TMPDIR: `${dir}/home/tmp`, [MARK_VARIABLE]: mark },
    });
    const out = summaries(child.stdout);
    const errors = new Response(child.stderr).text();
    let started: ProcessInfo[] = [];
    let status: Deno.CommandStatus | undefined;
    let exitMs = Infinity;
    try {
      assertEquals(await within(out.reach(1).then(() => true), 30_000), true, "the first run ends");
      await swap(file);
      assertEquals(
        await within(out.reach(2).then(() => true), 30_000),
        true,
        `the swap reruns the file; so far:\n${out.text()}`,
      );
      // What the watch started: the orphan guard (its child), and anything carrying the mark.
      started = [...await childrenOf(child.pid), ...await processesMarked(mark)];
    } finally {
      const sent = performance.now();
      child.kill("SIGINT");
      status = await within(child.status, 30_000);
      exitMs = performance.now() - sent;
      if (status === undefined) child.kill("SIGKILL");
      // A reader stuck opening the FIFO (the defect) is let go, whatever happened.
      try {
        releaseFifo(file);
      } catch {
        // Not there: the swap did not happen.
      }
    }
    try {
      assert(status !== undefined, "SIGINT ends the watch");
      assert(exitMs < PROMPT_EXIT_MS, `the watch took ${Math.round(exitMs)} ms to end`);
      await out.done;
      const rerun = out.text().split(SUMMARY_END)[1]!;
      assertStringIncludes(
        rerun,
        "  .claude/hooks-tests/guard.test.jsonc:1:1: Cannot read scenario " +
          '".claude/hooks-tests/guard.test.jsonc": it is a FIFO, not a regular file\n',
      );
      assertStringIncludes(rerun, "0 passed, 0 failed, 1 invalid file · watching");
      assertEquals([status.code, await errors], [2, ""]);
      await waitUntil(
        async () => (await stillRunning(started)).length === 0,
        "the processes the watch started to end",
        10_000,
      );
    } finally {
      await killAll(await stillRunning(started));
    }
  });
}

Deno.test({
  name:
    "--watch: a FIFO renamed over a scenario is an invalid file of the rerun, and Ctrl-C ends the watch at once",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    fifoSwapEndsCleanly({
      args: [],
      swap: async (file) => {
        await makeFifo(`${file}.swap`);
        await Deno.rename(`${file}.swap`, file);
      },
    }),
});

Deno.test({
  name:
    "--watch of a named scenario: replaced by a FIFO, it is an invalid file of the rerun, and Ctrl-C ends the watch at once",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    fifoSwapEndsCleanly({
      args: [".claude/hooks-tests/guard.test.jsonc"],
      swap: async (file) => {
        await Deno.remove(file);
        await makeFifo(file);
      },
    }),
});
