/**
 * What a plugin's hook process gets, with real processes (claude-compat.md §6a):
 * `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA` (created) beside the usual variables, while
 * settings hooks get neither; `${CLAUDE_PLUGIN_ROOT}` is the shell's to expand, and exec-form
 * hooks have it substituted; a command in both settings and a plugin runs twice, settings first.
 */
import {
  cachedPluginDataDirs,
  runCommandHandler,
} from "../../src/hooks/handlers/command_handler.ts";
import { type CommandRunner, runCommand } from "../../src/os/process/command_runner.ts";
import { createHandlerRunner } from "../../src/hooks/handlers/handler_dispatch.ts";
import { fireHooks, type HookFiring } from "../../src/hooks/hook_engine.ts";
import { pluginDataDir, type PluginLocation } from "../../src/hooks/plugins/plugin_location.ts";
import { selectRegistrations } from "../../src/hooks/registry.ts";
import { loadSessionHooks } from "../../src/hooks/session_hooks.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { pluginHooksJson, withTempRoot, writeFiles, writePlugin } from "./plugin_fixture.ts";
import { exited } from "./registration_fixture.ts";
import { commandGroup, hooksFile } from "./temp_chain.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";

/** Writes `<name> ROOT=<...> DATA=<...>` for the variables it sees, to the file in $1. */
const ENV_SCRIPT = `#!/bin/sh
printf '%s ROOT=%s DATA=%s\\n' "$2" "\${CLAUDE_PLUGIN_ROOT-unset}" "\${CLAUDE_PLUGIN_DATA-unset}" >> "$1"
`;

interface Fired {
  readonly firing: HookFiring;
  readonly spawned: string[];
}

/**
 * Loads the hooks of `cwd` (claude profile, `pluginDirs`) and fires PreToolUse for Bash with
 * real processes; `spawned` is each command line, prefixed by whose hook it is (`settings:` or
 * `plugin:`), in the order it was handed to the runner.
 */
async function firePreToolUse(
  cwd: string,
  home: string,
  pluginDirs: readonly string[],
  baseEnv: Record<string, string> = {},
): Promise<Fired> {
  const hooks = await loadSessionHooks(cwd, home, {
    profile: compatProfile("claude"),
    pluginDirs,
  });
  assertEquals(hooks.loaded.diagnostics, []);
  const spawned: string[] = [];
  const recording: CommandRunner = (options) => {
    const line = options.commandLine;
    const command = line.kind === "shell" ? line.command : [line.command, ...line.args].join(" ");
    spawned.push(
      `${options.env.CLAUDE_PLUGIN_ROOT === undefined ? "settings" : "plugin"}: ${command}`,
    );
    return runCommand(options);
  };
  const { matched } = selectRegistrations(hooks.registry, "PreToolUse", "Bash");
  const firing = await fireHooks({
    event: "PreToolUse",
    matcherValue: "Bash",
    payload: { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } },
    registrations: matched,
    runHandler: createHandlerRunner({
      runCommand: recording,
      baseEnv: { PATH, HOME: home, ...baseEnv },
      killGraceMs: 100,
    }),
    context: { event: "PreToolUse", cwd, sessionId: "sess-plugin" },
  });
  return { firing, spawned };
}

async function withPluginProject<T>(
  settings: Record<string, unknown>,
  plugin: Record<string, unknown>,
  fn: (paths: { home: string; cwd: string; plugin: string; out: string }) => Promise<T>,
): Promise<T> {
  return await withTempRoot(async (root) => {
    const home = `${root}/home`;
    const cwd = `${root}/project`;
    await Deno.mkdir(home);
    await writeFiles(cwd, {
      ".claude/settings.json": hooksFile(settings),
      "env.sh": ENV_SCRIPT,
    });
    const dir = await writePlugin(`${root}/plug`, "plug", {
      hooksJson: pluginHooksJson(plugin),
      files: { "hooks/env.sh": ENV_SCRIPT },
    });
    return await fn({ home, cwd, plugin: dir, out: `${cwd}/out.txt` });
  });
}

async function lines(path: string): Promise<string[]> {
  return (await Deno.readTextFile(path)).trimEnd().split("\n");
}

Deno.test("a plugin hook sees CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA (created, 0700); a settings hook sees neither", async () => {
  await withPluginProject(
    { PreToolUse: [commandGroup('./env.sh "$CLAUDE_PROJECT_DIR/out.txt" settings', "Bash")] },
    {
      PreToolUse: [
        commandGroup('"${CLAUDE_PLUGIN_ROOT}"/hooks/env.sh "$CLAUDE_PROJECT_DIR/out.txt" plugin'),
      ],
    },
    async ({ home, cwd, plugin, out }) => {
      // Even what the agent itself inherited is not passed on to a settings hook.
      const inherited = { CLAUDE_PLUGIN_ROOT: "/inherited", CLAUDE_PLUGIN_DATA: "/inherited" };
      const { firing } = await firePreToolUse(cwd, home, [plugin], inherited);
      assertEquals(firing.runs.map((r) => r.result?.kind), ["exited", "exited"]);
      const data = `${home}/.claude/plugins/data/plug-inline`;
      assertEquals((await lines(out)).toSorted(), [
        `plugin ROOT=${plugin} DATA=${data}`,
        "settings ROOT=unset DATA=unset",
      ]);
      const info = await Deno.stat(data);
      assert(info.isDirectory);
      assertEquals((info.mode ?? 0) & 0o077, 0, "the data dir is private to the user");
    },
  );
});

Deno.test("${CLAUDE_PLUGIN_ROOT} in the shell form is the shell's: unquoted it expands, single-quoted it stays literal", async () => {
  await withPluginProject({}, {
    PreToolUse: [
      commandGroup(
        `echo '\${CLAUDE_PLUGIN_ROOT} $CLAUDE_PLUGIN_ROOT' >> "$CLAUDE_PROJECT_DIR/out.txt"`,
      ),
      commandGroup(`echo "\${CLAUDE_PLUGIN_ROOT}" >> "$CLAUDE_PROJECT_DIR/out.txt"`),
    ],
  }, async ({ home, cwd, plugin, out }) => {
    const { spawned } = await firePreToolUse(cwd, home, [plugin]);
    assertStringIncludes(spawned[0]!, "'${CLAUDE_PLUGIN_ROOT} $CLAUDE_PLUGIN_ROOT'");
    assertEquals((await lines(out)).toSorted(), [
      "${CLAUDE_PLUGIN_ROOT} $CLAUDE_PLUGIN_ROOT",
      plugin,
    ]);
  });
});

Deno.test("an exec-form plugin hook has ${CLAUDE_PLUGIN_ROOT}, $CLAUDE_PLUGIN_ROOT and ${CLAUDE_PLUGIN_DATA} substituted", async () => {
  await withPluginProject({}, {
    PreToolUse: [{
      hooks: [{
        type: "command",
        command: "${CLAUDE_PLUGIN_ROOT}/hooks/env.sh",
        args: ["$CLAUDE_PROJECT_DIR/out.txt", "exec:$CLAUDE_PLUGIN_ROOT:${CLAUDE_PLUGIN_DATA}"],
      }],
    }],
  }, async ({ home, cwd, plugin, out }) => {
    const { firing, spawned } = await firePreToolUse(cwd, home, [plugin]);
    assertEquals(firing.runs.map((r) => r.result?.kind), ["exited"]);
    const data = `${home}/.claude/plugins/data/plug-inline`;
    assertEquals(spawned, [`plugin: ${plugin}/hooks/env.sh ${cwd}/out.txt exec:${plugin}:${data}`]);
    assertEquals(await lines(out), [`exec:${plugin}:${data} ROOT=${plugin} DATA=${data}`]);
  });
});

Deno.test("an exec-form settings hook keeps ${CLAUDE_PLUGIN_ROOT} as written: it is no plugin's", async () => {
  await withPluginProject(
    {
      PreToolUse: [{
        hooks: [{
          type: "command",
          command: "$CLAUDE_PROJECT_DIR/env.sh",
          args: ["$CLAUDE_PROJECT_DIR/out.txt", "${CLAUDE_PLUGIN_ROOT}"],
        }],
      }],
    },
    {},
    async ({ home, cwd, out }) => {
      await firePreToolUse(cwd, home, []);
      assertEquals(await lines(out), ["${CLAUDE_PLUGIN_ROOT} ROOT=unset DATA=unset"]);
    },
  );
});

Deno.test("a command in both settings and a plugin runs twice, the settings hook spawned first", async () => {
  const record = 'echo "$CLAUDE_PLUGIN_ROOT" >> "$CLAUDE_PROJECT_DIR/out.txt"';
  await withPluginProject(
    { PreToolUse: [commandGroup(record, "Bash")] },
    { PreToolUse: [commandGroup(record, "Bash")] },
    async ({ home, cwd, plugin, out }) => {
      const { firing, spawned } = await firePreToolUse(cwd, home, [plugin]);
      assertEquals(firing.runs.map((r) => r.registration.id), [
        "project:/hooks/PreToolUse/0/hooks/0",
        "plugin:plug@inline:/hooks/PreToolUse/0/hooks/0",
      ]);
      assertEquals(spawned, [`settings: ${record}`, `plugin: ${record}`]);
      assertEquals((await lines(out)).toSorted(), ["", plugin]);
    },
  );
});

Deno.test("a plugin data directory that cannot be created is the hook's failed result, saying which", async () => {
  await withTempRoot(async (root) => {
    // `.claude` is a file, so nothing can be made under it.
    await writeFiles(root, { "home/.claude": "not a directory" });
    const plugin: PluginLocation = {
      id: "plug@inline",
      name: "plug",
      root: `${root}/plug`,
      dataDir: `${root}/home/.claude/plugins/data/plug-inline`,
      origin: "plugin_dir",
    };
    const result = await runCommandHandler(
      { type: "command", command: "true" },
      {},
      { event: "PreToolUse", cwd: root, sessionId: "s" },
      { baseEnv: { PATH } },
      plugin,
    );
    if (result.kind !== "failed") throw new Error(`expected failed, got ${result.kind}`);
    assertEquals(result.failure, "spawn");
    assertStringIncludes(result.message, 'of plugin "plug@inline" did not start');
    assertStringIncludes(result.message, `cannot create its data directory "${plugin.dataDir}"`);
  });
});

Deno.test("a runner makes each plugin data directory once, and tries again after a failure", async () => {
  const made: string[] = [];
  let failNext = true;
  const prepare = cachedPluginDataDirs((dir) => {
    made.push(dir);
    if (failNext) {
      failNext = false;
      return Promise.reject(new Error("disk full"));
    }
    return Promise.resolve();
  });
  let failed = false;
  await prepare("/d/a").catch(() => failed = true);
  assert(failed);
  await prepare("/d/a");
  await prepare("/d/a");
  await prepare("/d/b");
  assertEquals(made, ["/d/a", "/d/a", "/d/b"]);
});

Deno.test("without HOME a plugin's data directory is made under the session cwd, where its hook looks for it", async () => {
  const made: string[] = [];
  const seen: (string | undefined)[] = [];
  const plugin: PluginLocation = {
    id: "plug@inline",
    name: "plug",
    root: "/plugins/plug",
    dataDir: pluginDataDir(undefined, "plug@inline"),
    origin: "plugin_dir",
  };
  const result = await runCommandHandler(
    { type: "command", command: "true" },
    {},
    { event: "PreToolUse", cwd: "/session/project", sessionId: "s" },
    {
      baseEnv: { PATH },
      preparePluginData: (dir) => {
        made.push(dir);
        return Promise.resolve();
      },
      runCommand: (options) => {
        seen.push(options.env.CLAUDE_PLUGIN_DATA);
        return Promise.resolve(exited(0));
      },
    },
    plugin,
  );
  assertEquals(result.kind, "exited");
  const expected = "/session/project/.claude/plugins/data/plug-inline";
  assertEquals([made, seen], [[expected], [expected]]);
});
