import { assert, assertEquals } from "../helpers/assert.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { createHermeticPlace, type HermeticPlace } from "../../src/testing/runner/hermetic_env.ts";
import { HooksCache, RACY_MS } from "../../src/testing/runner/hooks_cache.ts";
import { readConfigFile } from "../../src/config_file.ts";
import { command, hooksSettings, type TempProject, withTempProject } from "./scenario_project.ts";

const LLAMA = compatProfile("llama");
const CLAUDE = compatProfile("claude");

/** A cache whose clock runs `RACY_MS` ahead (every file is old enough), counting reads by path. */
function countingCache(clock: "ahead" | "now" = "ahead") {
  const reads = new Map<string, number>();
  const cache = new HooksCache({
    now: clock === "ahead" ? () => Date.now() + 2 * RACY_MS : Date.now,
    readTextFile: (path) => {
      reads.set(path, (reads.get(path) ?? 0) + 1);
      return readConfigFile(path);
    },
  });
  return { cache, reads };
}

/** Runs `fn` with a fresh hermetic place of `project` (made as a case makes it), then removes it. */
async function withPlace<T>(
  project: TempProject,
  fn: (place: HermeticPlace) => Promise<T>,
  placement: Parameters<typeof createHermeticPlace>[0]["placement"] = {},
): Promise<T> {
  const place = await createHermeticPlace({
    projectDir: project.dir,
    placement,
    outerEnv: project.outerEnv,
  });
  try {
    return await fn(place);
  } finally {
    await place.dispose();
  }
}

/**
 * A temporary project whose files and directories were last changed a minute ago. The ahead
 * clock trusts every stamp, so a change a test makes must leave a different one: on a filesystem
 * whose clock ticks every few milliseconds, a file written in the tick that made the project
 * would leave its directory's times as they were (what the racy rule guards against in a run).
 */
function withOldProject<T>(
  files: Parameters<typeof withTempProject>[0],
  fn: (project: TempProject) => Promise<T>,
): Promise<T> {
  return withTempProject(files, async (project) => {
    await backdate(project.dir, new Date(Date.now() - 60_000));
    return await fn(project);
  });
}

async function backdate(path: string, when: Date): Promise<void> {
  for await (const entry of Deno.readDir(path)) {
    if (entry.isDirectory) await backdate(`${path}/${entry.name}`, when);
    else if (entry.isFile) await Deno.utime(`${path}/${entry.name}`, when, when);
  }
  await Deno.utime(path, when, when);
}

const commandsOf = (hooks: Awaited<ReturnType<HooksCache["load"]>>): string[] =>
  hooks.registry.registrations.map((r) => r.handler.type === "command" ? r.handler.command : "?");

const ONE_HOOK = hooksSettings({ PreToolUse: [{ hooks: [command("true")] }] });

Deno.test("cases in the project with an empty HOME read its unchanged settings once, each seeing its own HOME's user file", async () => {
  await withOldProject({ ".claude/settings.json": ONE_HOOK }, async (project) => {
    const { cache, reads } = countingCache();
    const seen: { user: string | undefined; home: string; commands: string[] }[] = [];
    for (let i = 0; i < 3; i++) {
      await withPlace(project, async (place) => {
        const hooks = await cache.load(place, LLAMA);
        seen.push({
          user: hooks.loaded.files[0]?.path,
          home: place.home,
          commands: commandsOf(hooks),
        });
      });
    }
    assertEquals(reads.get(`${project.dir}/.claude/settings.json`), 1);
    for (const { user, home, commands } of seen) {
      assertEquals(user, `${home}/.claude/settings.json`);
      assertEquals(commands, ["true"]);
    }
  });
});

Deno.test("a settings file a hook rewrote (in place, or replaced by a file of the same size) is read again", async () => {
  await withOldProject({ ".claude/settings.json": ONE_HOOK }, async (project) => {
    const { cache } = countingCache();
    const settings = `${project.dir}/.claude/settings.json`;
    const load = () =>
      withPlace(project, async (place) => commandsOf(await cache.load(place, LLAMA)));
    assertEquals(await load(), ["true"]);
    await Deno.writeTextFile(
      settings,
      JSON.stringify(hooksSettings({ PreToolUse: [{ hooks: [command("exit 2")] }] })),
    );
    assertEquals(await load(), ["exit 2"]);
    // Same length as the text it replaces, renamed over it: only the inode tells.
    await Deno.writeTextFile(
      `${settings}.new`,
      JSON.stringify(hooksSettings({ PreToolUse: [{ hooks: [command("exit 3")] }] })),
    );
    await Deno.rename(`${settings}.new`, settings);
    assertEquals(await load(), ["exit 3"]);
  });
});

Deno.test("a local settings file that appears after the first case is read by the next", async () => {
  await withOldProject({ ".claude/settings.json": ONE_HOOK }, async (project) => {
    const { cache } = countingCache();
    const load = () =>
      withPlace(project, async (place) => commandsOf(await cache.load(place, LLAMA)));
    assertEquals(await load(), ["true"]);
    await Deno.writeTextFile(
      `${project.dir}/.claude/settings.local.json`,
      JSON.stringify(hooksSettings({ PreToolUse: [{ hooks: [command("echo local")] }] })),
    );
    assertEquals(await load(), ["true", "echo local"]);
  });
});

Deno.test("a dangling local settings link is read again once its target appears outside .claude", async () => {
  await withOldProject({ ".claude/settings.json": ONE_HOOK }, async (project) => {
    const { cache } = countingCache();
    await Deno.symlink("../local_target.json", `${project.dir}/.claude/settings.local.json`);
    const load = () =>
      withPlace(project, async (place) => commandsOf(await cache.load(place, LLAMA)));
    assertEquals(await load(), ["true"]);
    await Deno.writeTextFile(
      `${project.dir}/local_target.json`,
      JSON.stringify(hooksSettings({ PreToolUse: [{ hooks: [command("echo linked")] }] })),
    );
    assertEquals(await load(), ["true", "echo linked"]);
  });
});

Deno.test(`a settings file changed less than ${RACY_MS} ms before it was read is read again for every case`, async () => {
  await withTempProject({ ".claude/settings.json": ONE_HOOK }, async (project) => {
    const { cache, reads } = countingCache("now");
    for (let i = 0; i < 2; i++) await withPlace(project, (place) => cache.load(place, LLAMA));
    assertEquals(reads.get(`${project.dir}/.claude/settings.json`), 2);
  });
});

Deno.test("isolated cases, fixture homes and plugin lookups are loaded for each case", async () => {
  await withOldProject({
    ".claude/settings.json": { ...ONE_HOOK, enabledPlugins: { "guard@market": true } },
    "fixture_home/.keep": "",
  }, async (project) => {
    const twice = async (
      profile: typeof LLAMA,
      placement: Parameters<typeof withPlace>[2] = {},
    ) => {
      const { cache, reads } = countingCache();
      for (let i = 0; i < 2; i++) {
        await withPlace(project, (place) => cache.load(place, profile), placement);
      }
      // The project's file, or its copy in an isolated case.
      return [...reads.entries()].filter(([path]) =>
        path.endsWith("/project/.claude/settings.json")
      )
        .reduce((sum, [, n]) => sum + n, 0);
    };
    assertEquals(await twice(LLAMA), 1, "the llama profile looks up no plugins: one read");
    assertEquals(await twice(LLAMA, { isolate: true }), 2);
    assertEquals(await twice(LLAMA, { home: `${project.dir}/fixture_home` }), 2);
    assertEquals(await twice(CLAUDE), 2, "enabledPlugins are looked up in each case's HOME");
  });
});

Deno.test("a load from the cache equals a fresh load of the same place", async () => {
  await withOldProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ matcher: "shell", hooks: [command("true")] }],
      Stop: [{ hooks: [command("echo done")] }],
    }),
  }, async (project) => {
    const { cache } = countingCache();
    await withPlace(project, (place) => cache.load(place, LLAMA));
    await withPlace(project, async (place) => {
      const cached = await cache.load(place, LLAMA);
      const fresh = await new HooksCache().load(place, LLAMA);
      assertEquals(cached.registry, fresh.registry);
      const files = (hooks: typeof cached) =>
        hooks.loaded.files.map(({ scope, path, status }) => ({ scope, path, status }));
      assertEquals(files(cached), files(fresh));
      assertEquals(cached.loaded.diagnostics, fresh.loaded.diagnostics);
      assert(cached.loaded.handlers.length === 2);
    });
  });
});
