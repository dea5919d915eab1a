/**
 * `hooks test --watch` through the real launcher, with real file changes: it runs the suite,
 * reruns it when the settings file changes (here: the guard removed, so the case fails), and
 * Ctrl-C ends it with the last run's exit code. Program-facing reporters are refused.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { spawnLauncher, withTempProject } from "../helpers/run_cli.ts";
import { within } from "../helpers/within.ts";
import { DENIES_RM, GUARD, hooksTest, scenario, SETTINGS } from "./hooks_test_fixture.ts";

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
