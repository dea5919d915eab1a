import { assert, assertEquals } from "../helpers/assert.ts";
import { within } from "../helpers/within.ts";
import {
  openScenarioWatcher,
  type ScenarioWatcher,
  watchRoots,
} from "../../src/testing/watch/scenario_watcher.ts";
import { collectWatchInputs, type WatchInputs } from "../../src/testing/watch/watch_inputs.ts";
import { makeFifo, releaseFifo } from "../hooks/special_files.ts";
import { withFiles } from "./scenario_files.ts";
import { WATCH_PROJECT, WATCH_WAIT_MS } from "./watch_project.ts";

async function inputsOf(dir: string): Promise<WatchInputs> {
  const tests = `${dir}/.claude/hooks-tests`;
  return await collectWatchInputs({
    projectDir: dir,
    files: [`${tests}/guard.test.jsonc`, `${tests}/stop.test.jsonc`],
    scenarioDirs: [tests],
  });
}

const STRICT = { sanitizeOps: true, sanitizeResources: true };

/** A watcher on a copy of WATCH_PROJECT, closed after `fn`. */
function withWatcher(fn: (dir: string, watcher: ScenarioWatcher) => Promise<void>): Promise<void> {
  return withFiles(WATCH_PROJECT, async (dir) => {
    const controller = new AbortController();
    const watcher = await openScenarioWatcher(await inputsOf(dir), { signal: controller.signal });
    try {
      await fn(dir, watcher);
    } finally {
      await watcher.close();
    }
  });
}

Deno.test({
  name: "editing a hook script hands out only the scenarios that use it",
  ...STRICT,
  fn: () =>
    withWatcher(async (dir, watcher) => {
      // The unrelated file first: were it counted, the batch would hold more or come early.
      await Deno.writeTextFile(`${dir}/README.md`, "still unrelated\n");
      await Deno.writeTextFile(`${dir}/.claude/hooks/guard.sh`, "exit 2\n");
      const batch = await within(watcher.next(), WATCH_WAIT_MS);
      assertEquals(batch?.files, [`${dir}/.claude/hooks-tests/guard.test.jsonc`]);
      assert(batch?.changed.includes(`${dir}/.claude/hooks/guard.sh`));
    }),
});

Deno.test({
  name: "a settings file saved by renaming a new file over it reruns every scenario",
  ...STRICT,
  fn: () =>
    withWatcher(async (dir, watcher) => {
      const settings = `${dir}/.claude/settings.json`;
      await Deno.writeTextFile(`${settings}.tmp`, await Deno.readTextFile(settings));
      await Deno.rename(`${settings}.tmp`, settings);
      const batch = await within(watcher.next(), WATCH_WAIT_MS);
      assertEquals(batch?.files, [
        `${dir}/.claude/hooks-tests/guard.test.jsonc`,
        `${dir}/.claude/hooks-tests/stop.test.jsonc`,
      ]);
    }),
});

Deno.test({
  name: "a new scenario file asks for the scenarios to be found again",
  ...STRICT,
  fn: () =>
    withWatcher(async (dir, watcher) => {
      await Deno.mkdir(`${dir}/.claude/hooks-tests/more`);
      await Deno.writeTextFile(`${dir}/.claude/hooks-tests/more/new.test.jsonc`, "{}");
      const batch = await within(watcher.next(), WATCH_WAIT_MS);
      assertEquals(batch?.rediscover, true);
    }),
});

Deno.test({
  name: "aborting ends the watch: next() answers undefined and the watchers are closed",
  ...STRICT,
  fn: () =>
    // Not withWatcher: its close() would hide watchers the abort left open.
    withFiles(WATCH_PROJECT, async (dir) => {
      const controller = new AbortController();
      const watcher = await openScenarioWatcher(await inputsOf(dir), {
        signal: controller.signal,
      });
      const ended = watcher.next().then((batch) => ({ batch }));
      controller.abort();
      assertEquals(await within(ended, WATCH_WAIT_MS), { batch: undefined });
      assertEquals(await watcher.next(), undefined);
      // The resource sanitizer fails this test if a watcher is left open.
    }),
});

Deno.test("only the directories involved are watched, never the whole repository", async () => {
  await withFiles(WATCH_PROJECT, async (dir) => {
    const roots = await watchRoots(await inputsOf(dir));
    assertEquals(roots, {
      recursive: [`${dir}/.claude/hooks-tests`],
      flat: [dir, `${dir}/.claude`, `${dir}/.claude/hooks`],
    });
  });
});

Deno.test({
  name: "a FIFO renamed over a scenario file is handed out by name, and the watch goes on",
  // Linux: inotify. Deno.watchFs, used elsewhere, opens what changed and waits on a FIFO.
  ignore: Deno.build.os !== "linux",
  ...STRICT,
  fn: () =>
    withWatcher(async (dir, watcher) => {
      const tests = `${dir}/.claude/hooks-tests`;
      try {
        await makeFifo(`${tests}/swap`);
        await Deno.rename(`${tests}/swap`, `${tests}/guard.test.jsonc`);
        const batch = await within(watcher.next(), WATCH_WAIT_MS);
        assertEquals(batch?.files, [`${tests}/guard.test.jsonc`]);
        assertEquals(batch?.rediscover, true);
        // Later changes are still seen: nothing waits on the FIFO.
        await Deno.writeTextFile(`${dir}/log.sh`, "exit 1\n");
        const after = await within(watcher.next(), WATCH_WAIT_MS);
        assertEquals(after?.files, [`${tests}/stop.test.jsonc`]);
      } finally {
        // A reader stuck opening it would hold this process for good: let it go.
        releaseFifo(`${tests}/guard.test.jsonc`);
      }
    }),
});
