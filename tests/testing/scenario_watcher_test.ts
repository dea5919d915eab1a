import { assert, assertEquals } from "../helpers/assert.ts";
import { openScenarioWatcher, watchRoots } from "../../src/testing/scenario_watcher.ts";
import { collectWatchInputs, type WatchInputs } from "../../src/testing/watch_inputs.ts";
import { withFiles } from "./scenario_files.ts";

const hook = (command: string) => [{ hooks: [{ type: "command", command }] }];

/** A guard on PreToolUse and a logger on Stop, each with a scenario of its own. */
const PROJECT: Record<string, string> = {
  ".claude/settings.json": JSON.stringify({
    hooks: { PreToolUse: hook("bash .claude/hooks/guard.sh"), Stop: hook("./log.sh") },
  }),
  ".claude/hooks/guard.sh": "exit 0\n",
  "log.sh": "exit 0\n",
  "README.md": "unrelated\n",
  "node_modules/dep/index.js": "",
  ".claude/hooks-tests/guard.test.jsonc": JSON.stringify({
    cases: [{
      name: "g",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { errors: 0 },
    }],
  }),
  ".claude/hooks-tests/stop.test.jsonc": JSON.stringify({
    cases: [{ name: "s", event: "Stop", expect: { errors: 0 } }],
  }),
};

async function inputsOf(dir: string): Promise<WatchInputs> {
  const tests = `${dir}/.claude/hooks-tests`;
  return await collectWatchInputs({
    projectDir: dir,
    files: [`${tests}/guard.test.jsonc`, `${tests}/stop.test.jsonc`],
    scenarioDirs: [tests],
  });
}

/** `promise`, or a failure saying what never came after a generous wait. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not come within 20 s`)), 20_000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const STRICT = { sanitizeOps: true, sanitizeResources: true };

Deno.test({
  name: "editing a hook script hands out only the scenarios that use it",
  ...STRICT,
  fn: () =>
    withFiles(PROJECT, async (dir) => {
      const controller = new AbortController();
      const watcher = await openScenarioWatcher(await inputsOf(dir), {
        signal: controller.signal,
      });
      try {
        // The unrelated file first: were it counted, the batch would hold more or come early.
        await Deno.writeTextFile(`${dir}/README.md`, "still unrelated\n");
        await Deno.writeTextFile(`${dir}/.claude/hooks/guard.sh`, "exit 2\n");
        const batch = await within(watcher.next(), "a batch");
        assertEquals(batch?.files, [`${dir}/.claude/hooks-tests/guard.test.jsonc`]);
        assert(batch?.changed.includes(`${dir}/.claude/hooks/guard.sh`));
      } finally {
        await watcher.close();
      }
    }),
});

Deno.test({
  name: "a settings file saved by renaming a new file over it reruns every scenario",
  ...STRICT,
  fn: () =>
    withFiles(PROJECT, async (dir) => {
      const controller = new AbortController();
      const watcher = await openScenarioWatcher(await inputsOf(dir), {
        signal: controller.signal,
      });
      try {
        const settings = `${dir}/.claude/settings.json`;
        await Deno.writeTextFile(`${settings}.tmp`, await Deno.readTextFile(settings));
        await Deno.rename(`${settings}.tmp`, settings);
        const batch = await within(watcher.next(), "a batch");
        assertEquals(batch?.files, [
          `${dir}/.claude/hooks-tests/guard.test.jsonc`,
          `${dir}/.claude/hooks-tests/stop.test.jsonc`,
        ]);
      } finally {
        controller.abort();
        await watcher.close();
      }
    }),
});

Deno.test({
  name: "a new scenario file asks for the scenarios to be found again",
  ...STRICT,
  fn: () =>
    withFiles(PROJECT, async (dir) => {
      const controller = new AbortController();
      const watcher = await openScenarioWatcher(await inputsOf(dir), {
        signal: controller.signal,
      });
      try {
        await Deno.mkdir(`${dir}/.claude/hooks-tests/more`);
        await Deno.writeTextFile(`${dir}/.claude/hooks-tests/more/new.test.jsonc`, "{}");
        const batch = await within(watcher.next(), "a batch");
        assertEquals(batch?.rediscover, true);
      } finally {
        await watcher.close();
      }
    }),
});

Deno.test({
  name: "aborting ends the watch: next() answers undefined and the watchers are closed",
  ...STRICT,
  fn: () =>
    withFiles(PROJECT, async (dir) => {
      const controller = new AbortController();
      const watcher = await openScenarioWatcher(await inputsOf(dir), {
        signal: controller.signal,
      });
      const waiting = watcher.next();
      controller.abort();
      assertEquals(await within(waiting, "the end of the watch"), undefined);
      assertEquals(await watcher.next(), undefined);
      // The resource sanitizer fails this test if a watcher is left open.
    }),
});

Deno.test("only the directories involved are watched, never the whole repository", async () => {
  await withFiles(PROJECT, async (dir) => {
    const roots = await watchRoots(await inputsOf(dir));
    assertEquals(roots, {
      recursive: [`${dir}/.claude/hooks-tests`],
      flat: [dir, `${dir}/.claude`, `${dir}/.claude/hooks`],
    });
  });
});
