import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { within } from "../helpers/within.ts";
import {
  CLEAR_SCREEN,
  type WatchedRun,
  watchLoop,
  type WatchLoopOptions,
} from "../../src/cli/commands/hooks_test_watch.ts";
import { discoverScenarios } from "../../src/testing/scenarios/discover_scenarios.ts";
import { withFiles } from "../testing/scenario_files.ts";
import { WATCH_PROJECT, WATCH_WAIT_MS } from "../testing/watch_project.ts";

interface Watching {
  readonly dir: string;
  /** The scenario names of the next run, once it starts; fails when none starts in time. */
  nextRun(): Promise<string[]>;
  /** Every run so far, by scenario names. */
  readonly runs: string[][];
  readonly output: () => string;
  /** What Ctrl-C would call; undefined once the loop stopped listening. */
  readonly ctrlC: () => (() => void) | undefined;
  /** Stops the loop; its exit code. */
  stop(): Promise<number>;
  /** The loop itself: its exit code once it ends, by Ctrl-C or by `stop`. */
  readonly ended: Promise<number>;
}

/** Runs `watchLoop` on a copy of WATCH_PROJECT with a recording `runOnce`. */
function withWatch(
  options: { readonly tty?: boolean; readonly run?: WatchedRun },
  fn: (watching: Watching) => Promise<void>,
): Promise<void> {
  return withFiles(WATCH_PROJECT, async (dir) => {
    const runs: string[][] = [];
    const queued: string[][] = [];
    const waiting: ((names: string[]) => void)[] = [];
    let output = "";
    let termination: (() => void) | undefined;
    const controller = new AbortController();
    const tests = `${dir}/.claude/hooks-tests`;
    const loopOptions: WatchLoopOptions = {
      projectDir: dir,
      discover: async () => (await discoverScenarios(dir, [])).files,
      scenarioDirs: [tests],
      runOnce: (files) => {
        const names = files.map((file) => file.slice(tests.length + 1));
        runs.push(names);
        const waiter = waiting.shift();
        if (waiter === undefined) queued.push(names);
        else waiter(names);
        return Promise.resolve(
          options.run ?? { exitCode: 0, passed: files.length, failed: 0, errors: 0 },
        );
      },
      io: {
        stdout: (text) => void (output += text),
        stdoutIsTty: options.tty === true,
        onTermination: (handler) => {
          termination = handler;
          return () => void (termination = undefined);
        },
      },
      signal: controller.signal,
    };
    const loop = watchLoop(loopOptions);
    const stop = async () => {
      controller.abort();
      return await loop;
    };
    try {
      await fn({
        dir,
        runs,
        ended: loop,
        nextRun: async () => {
          const ready = queued.shift();
          if (ready !== undefined) return ready;
          const names = await within(
            new Promise<string[]>((resolve) => waiting.push(resolve)),
            WATCH_WAIT_MS,
          );
          assert(names !== undefined, `no run started within ${WATCH_WAIT_MS} ms`);
          return names;
        },
        output: () => output,
        ctrlC: () => termination,
        stop,
      });
    } finally {
      await stop();
    }
  });
}

const BOTH = ["guard.test.jsonc", "stop.test.jsonc"];

Deno.test("watch runs every scenario, then reruns them all when the settings file changes", async () => {
  await withWatch({}, async ({ dir, nextRun }) => {
    assertEquals(await nextRun(), BOTH);
    const settings = `${dir}/.claude/settings.json`;
    await Deno.writeTextFile(settings, (await Deno.readTextFile(settings)) + "\n");
    assertEquals(await nextRun(), BOTH);
  });
});

Deno.test("editing a hook script reruns only its scenarios; an unrelated file reruns none", async () => {
  await withWatch({}, async ({ dir, nextRun, runs, stop }) => {
    assertEquals(await nextRun(), BOTH);
    await Deno.writeTextFile(`${dir}/README.md`, "still unrelated\n");
    await Deno.writeTextFile(`${dir}/log.sh`, "exit 1\n");
    assertEquals(await nextRun(), ["stop.test.jsonc"]);
    await Deno.writeTextFile(`${dir}/.claude/hooks/guard.sh`, "exit 2\n");
    assertEquals(await nextRun(), ["guard.test.jsonc"]);
    await stop();
    assertEquals(runs.length, 3);
  });
});

Deno.test("a new scenario file joins the run as soon as it is written", async () => {
  await withWatch({}, async ({ dir, nextRun }) => {
    assertEquals(await nextRun(), BOTH);
    await Deno.writeTextFile(
      `${dir}/.claude/hooks-tests/new.test.jsonc`,
      JSON.stringify({ cases: [{ name: "n", event: "Stop", expect: { errors: 0 } }] }),
    );
    assertEquals(await nextRun(), ["new.test.jsonc"]);
  });
});

Deno.test("on a terminal each run clears the screen and ends with a one-line summary", async () => {
  const run = { exitCode: 2, passed: 1, failed: 0, errors: 1 };
  await withWatch({ tty: true, run }, async ({ dir, nextRun, output }) => {
    await nextRun();
    await Deno.writeTextFile(`${dir}/log.sh`, "exit 1\n");
    await nextRun();
    // The scenario files, the two chain files and the two scripts.
    const summary = "1 passed, 1 failed (1 error) · watching 6 files · Ctrl-C to stop";
    const text = output();
    assert(text.startsWith(CLEAR_SCREEN), "the first run starts on a clear screen");
    const reruns = text.split(CLEAR_SCREEN).slice(1);
    assertEquals(reruns.length, 2);
    assertStringIncludes(reruns[0] ?? "", summary);
    assertStringIncludes(reruns[1] ?? "", "Changed log.sh: rerunning 1 of 2 scenario files\n");
  });
});

Deno.test("off a terminal runs follow one another, nothing cleared", async () => {
  await withWatch({ tty: false }, async ({ dir, nextRun, output }) => {
    await nextRun();
    await Deno.writeTextFile(`${dir}/log.sh`, "exit 1\n");
    await nextRun();
    assert(!output().includes("\x1b"), "no escape sequence off a terminal");
    assertStringIncludes(output(), "2 passed, 0 failed · watching 6 files · Ctrl-C to stop");
  });
});

Deno.test("Ctrl-C stops the watch with the exit code of the last run; a second one is not held", async () => {
  const run = { exitCode: 1, passed: 0, failed: 2, errors: 0 };
  await withWatch({ run }, async ({ nextRun, ctrlC, stop, ended }) => {
    await nextRun();
    const handler = ctrlC();
    assert(handler !== undefined, "the loop listens for Ctrl-C");
    handler();
    // At once, whatever the loop still waits for: a second Ctrl-C ends the program.
    assertEquals(ctrlC(), undefined, "the loop stopped listening at the first Ctrl-C");
    // The loop ends by Ctrl-C alone, before anything else stops it.
    assertEquals(await within(ended, WATCH_WAIT_MS), 1);
    assertEquals(await stop(), 1);
    assertEquals(ctrlC(), undefined);
  });
});
