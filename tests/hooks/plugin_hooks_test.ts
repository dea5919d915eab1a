/**
 * Plugin hooks as the loader reads them (claude-compat.md §6a): a `--plugin-dir` is named by its
 * manifest, its `hooks/hooks.json` is validated entry by entry like a settings file, a broken
 * plugin is a diagnostic naming it, and its hooks register after the settings chain's under ids
 * of their own.
 */
import { loadSessionHooks, type SessionHooksOptions } from "../../src/hooks/session_hooks.ts";
import type { PluginLocation } from "../../src/hooks/plugins/plugin_location.ts";
import { selectRegistrations } from "../../src/hooks/registry.ts";
import { loadSettingsChain } from "../../src/hooks/settings/settings_chain.ts";
import { readConfigFile } from "../../src/config_file.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  pluginHooksJson,
  withTempRoot,
  writeFiles,
  writeInstallRecords,
  writePlugin,
} from "./plugin_fixture.ts";
import { commandGroup, commands, hooksFile, lineOf } from "./temp_chain.ts";

const CLAUDE = compatProfile("claude");

interface Place {
  readonly root: string;
  readonly home: string;
  readonly cwd: string;
}

/** A HOME and a project under a temp root, with the given project and user settings. */
async function withPlace<T>(
  settings: { readonly project?: string; readonly user?: string },
  fn: (place: Place) => Promise<T>,
): Promise<T> {
  return await withTempRoot(async (root) => {
    const place = { root, home: `${root}/home`, cwd: `${root}/project` };
    await Deno.mkdir(place.home);
    await Deno.mkdir(place.cwd);
    if (settings.project !== undefined) {
      await writeFiles(place.cwd, { ".claude/settings.json": settings.project });
    }
    if (settings.user !== undefined) {
      await writeFiles(place.home, { ".claude/settings.json": settings.user });
    }
    return await fn(place);
  });
}

function load(place: Place, options: SessionHooksOptions) {
  return loadSessionHooks(place.cwd, place.home, { profile: CLAUDE, ...options });
}

const GUARD_HOOKS = pluginHooksJson({
  PreToolUse: [commandGroup("${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh", "Bash")],
  PostToolUse: [commandGroup("${CLAUDE_PLUGIN_ROOT}/hooks/log.sh post")],
});

/** The installed plugin t2plug@t2market, with GUARD_HOOKS, enabled or not: its source directory. */
async function installGuardPlugin(place: Place, enabled: boolean): Promise<string> {
  const { sourceDir } = await writeInstallRecords(place.home, `${place.root}/market`, {
    enabled,
    source: "directory",
  });
  await writePlugin(sourceDir, "t2plug", { hooksJson: GUARD_HOOKS });
  return sourceDir;
}

Deno.test("a --plugin-dir plugin's hooks load after the settings hooks, as plugin hooks of its manifest's name", async () => {
  await withPlace({
    project: hooksFile({ PreToolUse: [commandGroup("settings-guard", "Bash")] }),
  }, async (place) => {
    const dir = await writePlugin(`${place.root}/t2plug`, "t2plug", { hooksJson: GUARD_HOOKS });
    const { loaded, registry } = await load(place, { pluginDirs: [dir] });
    assertEquals(loaded.diagnostics, []);
    assertEquals(commands(loaded), [
      "settings-guard",
      "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh",
      "${CLAUDE_PLUGIN_ROOT}/hooks/log.sh post",
    ]);
    const location: PluginLocation = {
      id: "t2plug@inline",
      name: "t2plug",
      root: dir,
      dataDir: `${place.home}/.claude/plugins/data/t2plug-inline`,
      origin: "plugin_dir",
    };
    assertEquals(loaded.plugins, [{
      location,
      hooksFile: `${dir}/hooks/hooks.json`,
      status: "loaded",
      settings: loaded.plugins[0]!.settings,
    }]);
    const guard = loaded.handlers[1]!;
    assertEquals(guard.source, {
      scope: "plugin",
      plugin: location,
      file: `${dir}/hooks/hooks.json`,
      pointer: "/hooks/PreToolUse/0/hooks/0",
      // The handler's opening brace, the line before its first field.
      line: lineOf(GUARD_HOOKS, '"type": "command"') - 1,
    });
    assertEquals(registry.registrations.map((r) => r.id), [
      "project:/hooks/PreToolUse/0/hooks/0",
      "plugin:t2plug@inline:/hooks/PreToolUse/0/hooks/0",
      "plugin:t2plug@inline:/hooks/PostToolUse/0/hooks/0",
    ]);
  });
});

Deno.test("--plugin-dir plugins load in flag order, each under its own registration ids", async () => {
  await withPlace({}, async (place) => {
    const hooks = pluginHooksJson({ Stop: [commandGroup("same-command")] });
    const b = await writePlugin(`${place.root}/b`, "bee", { hooksJson: hooks });
    const a = await writePlugin(`${place.root}/a`, "ant", { hooksJson: hooks });
    const { registry } = await load(place, { pluginDirs: [b, a] });
    assertEquals(registry.registrations.map((r) => r.id), [
      "plugin:bee@inline:/hooks/Stop/0/hooks/0",
      "plugin:ant@inline:/hooks/Stop/0/hooks/0",
    ]);
    const { matched } = selectRegistrations(registry, "Stop", null);
    assertEquals(matched.length, 2, "two plugins' identical commands both run");
  });
});

Deno.test("the llama profile reads no plugin: a --plugin-dir contributes nothing", async () => {
  await withPlace({}, async (place) => {
    const dir = await writePlugin(`${place.root}/t2plug`, "t2plug", { hooksJson: GUARD_HOOKS });
    const { loaded, registry } = await load(place, {
      profile: compatProfile("llama"),
      pluginDirs: [dir],
    });
    assertEquals(loaded.plugins, []);
    assertEquals(registry.registrations, []);
  });
});

Deno.test("a directory without .claude-plugin/plugin.json is a diagnostic naming it, and the other plugins load", async () => {
  await withPlace({}, async (place) => {
    const bare = `${place.root}/bare`;
    await writeFiles(bare, { "hooks/hooks.json": GUARD_HOOKS });
    const good = await writePlugin(`${place.root}/good`, "good", { hooksJson: GUARD_HOOKS });
    const { loaded } = await load(place, { pluginDirs: [bare, good] });
    assertEquals(loaded.diagnostics.map((d) => [d.code, d.file]), [
      ["SETTINGS_UNREADABLE", `${bare}/.claude-plugin/plugin.json`],
    ]);
    assertStringIncludes(loaded.diagnostics[0]!.message, `Cannot load the plugin in "${bare}"`);
    assertStringIncludes(loaded.diagnostics[0]!.message, ".claude-plugin/plugin.json");
    assertEquals(loaded.plugins.map((p) => p.location.id), ["good@inline"]);
  });
});

Deno.test("a manifest that is not JSON, not an object, or has no usable name loads no plugin", async () => {
  const cases: [string, string, string][] = [
    ["{name", "SETTINGS_PARSE", "is not JSON"],
    ["[]", "SETTINGS_INVALID", "must be a JSON object"],
    ['{"version":"1"}', "SETTINGS_INVALID", '"name" is required'],
    ['{"name":""}', "SETTINGS_INVALID", '"name" must not be empty'],
    ['{"name":7}', "SETTINGS_INVALID", '"name" must be a string'],
  ];
  for (const [manifest, code, message] of cases) {
    await withPlace({}, async (place) => {
      const dir = await writePlugin(`${place.root}/p`, "p", { manifest, hooksJson: GUARD_HOOKS });
      const { loaded, registry } = await load(place, { pluginDirs: [dir] });
      assertEquals(loaded.diagnostics.map((d) => d.code), [code], manifest);
      assertStringIncludes(loaded.diagnostics[0]!.message, `Cannot load the plugin in "${dir}"`);
      assertStringIncludes(loaded.diagnostics[0]!.message, message);
      assertEquals(loaded.plugins, []);
      assertEquals(registry.registrations, []);
    });
  }
});

Deno.test("a plugin without hooks/hooks.json simply has no hooks", async () => {
  await withPlace({}, async (place) => {
    const dir = await writePlugin(`${place.root}/quiet`, "quiet", {});
    const { loaded } = await load(place, { pluginDirs: [dir] });
    assertEquals(loaded.diagnostics, []);
    assertEquals(loaded.plugins.map((p) => p.status), ["no_hooks"]);
    assertEquals(loaded.handlers, []);
  });
});

Deno.test("a flat hooks.json (events outside the hooks object) is one diagnostic saying why, and none of its hooks load", async () => {
  await withPlace({}, async (place) => {
    const flat = JSON.stringify(
      {
        description: "flat",
        PreToolUse: [commandGroup("guard", "Bash")],
        PostToolUse: [commandGroup("log")],
      },
      null,
      2,
    );
    const dir = await writePlugin(`${place.root}/flat`, "flat", { hooksJson: flat });
    const { loaded, registry } = await load(place, { pluginDirs: [dir] });
    assertEquals(loaded.diagnostics.length, 1);
    const [problem] = loaded.diagnostics;
    assertEquals(problem!.file, `${dir}/hooks/hooks.json`);
    assertEquals(problem!.pointer, "/PreToolUse");
    assertEquals(problem!.line, lineOf(flat, '"PreToolUse"'));
    assertStringIncludes(problem!.message, 'plugin "flat@inline"');
    assertStringIncludes(
      problem!.message,
      '"PreToolUse", "PostToolUse" at its top level, outside the "hooks" object',
    );
    assertEquals(loaded.plugins.map((p) => p.status), ["invalid"]);
    assertEquals(registry.registrations, []);
  });
});

Deno.test("a bad entry of a plugin's hooks.json is a diagnostic at its pointer and line, and costs only itself", async () => {
  await withPlace({}, async (place) => {
    const text = pluginHooksJson({
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command" }, { type: "command", command: "ok" }] },
        { matcher: "(", hooks: [{ type: "command", command: "bad-matcher" }] },
      ],
      PreToolUze: [commandGroup("typo")],
    });
    const dir = await writePlugin(`${place.root}/p`, "p", { hooksJson: text });
    const { loaded } = await load(place, { pluginDirs: [dir] });
    assertEquals(
      loaded.diagnostics.map((d) => [d.code, d.file, d.pointer]),
      [
        ["HANDLER_INVALID", `${dir}/hooks/hooks.json`, "/hooks/PreToolUse/0/hooks/0/command"],
        ["MATCHER_INVALID", `${dir}/hooks/hooks.json`, "/hooks/PreToolUse/1/matcher"],
        ["EVENT_UNKNOWN", `${dir}/hooks/hooks.json`, "/hooks/PreToolUze"],
      ],
    );
    assertEquals(loaded.diagnostics[2]!.line, lineOf(text, '"PreToolUze"'));
    assertEquals(commands(loaded), ["ok"]);
  });
});

Deno.test("a hooks.json that is not JSON is a diagnostic of its plugin", async () => {
  await withPlace({}, async (place) => {
    const dir = await writePlugin(`${place.root}/p`, "p", { hooksJson: '{"hooks": {' });
    const { loaded } = await load(place, { pluginDirs: [dir] });
    assertEquals(loaded.diagnostics.map((d) => [d.code, d.file]), [
      ["SETTINGS_PARSE", `${dir}/hooks/hooks.json`],
    ]);
    assertStringIncludes(loaded.diagnostics[0]!.message, 'Plugin "p@inline"');
    assertEquals(loaded.plugins.map((p) => p.status), ["invalid"]);
  });
});

Deno.test("a FIFO as hooks.json or plugin.json is refused without waiting for a writer, saying what to do", async () => {
  await withPlace({}, async (place) => {
    const fifoHooks = await writePlugin(`${place.root}/a`, "a", {});
    const fifoManifest = `${place.root}/b`;
    await Deno.mkdir(`${fifoHooks}/hooks`);
    await Deno.mkdir(`${fifoManifest}/.claude-plugin`, { recursive: true });
    for (
      const path of [`${fifoHooks}/hooks/hooks.json`, `${fifoManifest}/.claude-plugin/plugin.json`]
    ) {
      const made = await new Deno.Command("mkfifo", { args: [path] }).output();
      assert(made.success, `mkfifo ${path}`);
    }
    const { loaded } = await load(place, { pluginDirs: [fifoHooks, fifoManifest] });
    assertEquals(loaded.diagnostics.map((d) => [d.code, d.file]), [
      ["SETTINGS_UNREADABLE", `${fifoManifest}/.claude-plugin/plugin.json`],
      ["SETTINGS_UNREADABLE", `${fifoHooks}/hooks/hooks.json`],
    ]);
    const [manifest, hooks] = loaded.diagnostics.map((d) => d.message);
    assertStringIncludes(manifest!, "a FIFO, not a regular file; make it a regular JSON file");
    assertStringIncludes(hooks!, 'plugin "a@inline": it is a FIFO, not a regular file; make');
    assertEquals(loaded.plugins.map((p) => p.status), ["unreadable"]);
  });
});

Deno.test("a hooks.json, a hooks dir or a plugin.json that links out of its plugin is PLUGIN_LINK_OUTSIDE, and nothing of it loads", async () => {
  await withPlace({}, async (place) => {
    const elsewhere = await writePlugin(`${place.root}/elsewhere`, "elsewhere", {
      hooksJson: GUARD_HOOKS,
    });
    const linkedFile = await writePlugin(`${place.root}/a`, "a", {});
    await Deno.mkdir(`${linkedFile}/hooks`);
    await Deno.symlink(`${elsewhere}/hooks/hooks.json`, `${linkedFile}/hooks/hooks.json`);
    const linkedDir = await writePlugin(`${place.root}/b`, "b", {});
    await Deno.symlink("../elsewhere/hooks", `${linkedDir}/hooks`);
    const linkedManifest = `${place.root}/c`;
    await Deno.mkdir(linkedManifest);
    await Deno.symlink(`${elsewhere}/.claude-plugin`, `${linkedManifest}/.claude-plugin`);
    const { loaded } = await load(place, { pluginDirs: [linkedFile, linkedDir, linkedManifest] });
    assertEquals(loaded.handlers, []);
    assertEquals(loaded.diagnostics.map((d) => [d.code, d.file]), [
      ["PLUGIN_LINK_OUTSIDE", `${linkedManifest}/.claude-plugin/plugin.json`],
      ["PLUGIN_LINK_OUTSIDE", `${linkedFile}/hooks/hooks.json`],
      ["PLUGIN_LINK_OUTSIDE", `${linkedDir}/hooks/hooks.json`],
    ]);
    assertEquals(loaded.plugins.map((p) => [p.location.id, p.status]), [
      ["a@inline", "outside"],
      ["b@inline", "outside"],
    ]);
    assertStringIncludes(
      loaded.diagnostics[1]!.message,
      `Cannot load the hooks of plugin "a@inline": "hooks/hooks.json" is not inside the plugin: ` +
        `it leads through a symlink to "${elsewhere}/hooks/hooks.json", outside "${linkedFile}"`,
    );
  });
});

Deno.test("a hooks.json that links to another file of its plugin loads", async () => {
  await withPlace({}, async (place) => {
    const dir = await writePlugin(`${place.root}/a`, "a", {
      files: { "shared/hooks.json": GUARD_HOOKS },
    });
    await Deno.mkdir(`${dir}/hooks`);
    await Deno.symlink("../shared/hooks.json", `${dir}/hooks/hooks.json`);
    const { loaded } = await load(place, { pluginDirs: [dir] });
    assertEquals(loaded.diagnostics, []);
    assertEquals(loaded.handlers.length, 2);
  });
});

Deno.test("the same plugin given twice loads once, and the second says which one it repeats", async () => {
  await withPlace({}, async (place) => {
    const one = await writePlugin(`${place.root}/one`, "twin", { hooksJson: GUARD_HOOKS });
    const two = await writePlugin(`${place.root}/two`, "twin", { hooksJson: GUARD_HOOKS });
    const { loaded } = await load(place, { pluginDirs: [one, two] });
    assertEquals(loaded.plugins.map((p) => p.location.root), [one]);
    assertEquals(loaded.diagnostics.length, 1);
    assertStringIncludes(loaded.diagnostics[0]!.message, `already loaded from "${one}"`);
  });
});

Deno.test("a plugin hook identical to a settings hook is not a duplicate; within one plugin it is", async () => {
  await withPlace({
    project: hooksFile({ PreToolUse: [commandGroup("same.sh", "Bash")] }),
  }, async (place) => {
    const dir = await writePlugin(`${place.root}/p`, "p", {
      hooksJson: pluginHooksJson({
        PreToolUse: [commandGroup("same.sh", "Bash"), commandGroup("same.sh")],
      }),
    });
    const { registry } = await load(place, { pluginDirs: [dir] });
    const { matched, unmatched } = selectRegistrations(registry, "PreToolUse", "Bash");
    assertEquals(matched.map((r) => r.id), [
      "project:/hooks/PreToolUse/0/hooks/0",
      "plugin:p@inline:/hooks/PreToolUse/0/hooks/0",
    ]);
    assertEquals(unmatched.map((u) => u.reason), [
      "duplicate of plugin:p@inline:/hooks/PreToolUse/0/hooks/0",
    ]);
  });
});

Deno.test('"disableAllHooks": true in the chain stops plugin hooks too', async () => {
  await withPlace({
    user: JSON.stringify({ disableAllHooks: true }),
  }, async (place) => {
    const dir = await writePlugin(`${place.root}/p`, "p", { hooksJson: GUARD_HOOKS });
    const { loaded, registry } = await load(place, { pluginDirs: [dir] });
    assertEquals(loaded.plugins.map((p) => p.status), ["loaded"]);
    assertEquals(registry.registrations, []);
    assertEquals(registry.notRegistered.map((n) => [n.status, n.source.scope]), [
      ["disabled", "plugin"],
      ["disabled", "plugin"],
    ]);
  });
});

Deno.test("enabledPlugins merges over the chain, a later file winning per id, and lists the enabled ones", async () => {
  await withPlace({
    user: JSON.stringify({
      enabledPlugins: { "a@m": true, "b@m": true, "c@m": false },
      extraKnownMarketplaces: { m: { source: { source: "directory", path: "/m" } } },
    }),
    project: JSON.stringify({ enabledPlugins: { "b@m": false, "c@m": true, "d@m": "yes" } }),
  }, async (place) => {
    const loaded = await loadSettingsChain({ cwd: place.cwd, home: place.home });
    const project = `${place.cwd}/.claude/settings.json`;
    assertEquals(loaded.enabledPlugins.map(({ id, file, pointer }) => [id, file, pointer]), [
      ["a@m", `${place.home}/.claude/settings.json`, "/enabledPlugins/a@m"],
      ["c@m", project, "/enabledPlugins/c@m"],
    ]);
    assertEquals(loaded.extraKnownMarketplaces, {
      m: { source: { source: "directory", path: "/m" } },
    });
    assertEquals(loaded.diagnostics.map((d) => [d.code, d.file, d.pointer]), [
      ["SETTINGS_INVALID", project, "/enabledPlugins/d@m"],
    ]);
    assertStringIncludes(loaded.diagnostics[0]!.message, "must be true or false");
  });
});

Deno.test("enabledPlugins that is not an object is a diagnostic and enables nothing", async () => {
  await withPlace({ project: JSON.stringify({ enabledPlugins: ["a@m"] }) }, async (place) => {
    const loaded = await loadSettingsChain({ cwd: place.cwd, home: place.home });
    assertEquals(loaded.enabledPlugins, []);
    assertEquals(loaded.diagnostics.map((d) => d.pointer), ["/enabledPlugins"]);
    assert(loaded.diagnostics[0]!.message.startsWith('"enabledPlugins" must be an object'));
  });
});

Deno.test("an enabled installed plugin loads after the --plugin-dir plugins, as <name>@<marketplace>", async () => {
  await withPlace({}, async (place) => {
    const sourceDir = await installGuardPlugin(place, true);
    const inline = await writePlugin(`${place.root}/inline`, "inline", { hooksJson: GUARD_HOOKS });
    const { loaded, registry } = await load(place, { pluginDirs: [inline] });
    assertEquals(loaded.diagnostics, []);
    assertEquals(loaded.plugins.map((p) => [p.location.id, p.location.origin, p.location.root]), [
      ["inline@inline", "plugin_dir", inline],
      ["t2plug@t2market", "installed", sourceDir],
    ]);
    assertEquals(registry.registrations.map((r) => r.id).filter((id) => id.includes("t2market")), [
      "plugin:t2plug@t2market:/hooks/PreToolUse/0/hooks/0",
      "plugin:t2plug@t2market:/hooks/PostToolUse/0/hooks/0",
    ]);
  });
});

Deno.test("an installed plugin whose directory is gone is a diagnostic naming it", async () => {
  await withPlace({}, async (place) => {
    const { cache } = await writeInstallRecords(place.home, `${place.root}/market`, {
      enabled: true,
      source: "url",
    });
    const { loaded } = await load(place, {});
    assertEquals(loaded.diagnostics.map((d) => [d.code, d.file]), [
      ["PLUGIN_SOURCE_MISSING", cache],
    ]);
    assertStringIncludes(loaded.diagnostics[0]!.message, 'Cannot load plugin "t2plug@t2market"');
    assertEquals(loaded.plugins.map((p) => p.status), ["missing"]);
  });
});

Deno.test("a disabled installed plugin is not read at all", async () => {
  await withPlace({}, async (place) => {
    await installGuardPlugin(place, false);
    const { loaded } = await load(place, {});
    assertEquals([loaded.plugins, loaded.diagnostics], [[], []]);
  });
});

Deno.test("the llama profile opens no plugin file: only the three settings files are read", async () => {
  await withPlace({}, async (place) => {
    await installGuardPlugin(place, true);
    const dir = await writePlugin(`${place.root}/inline`, "inline", { hooksJson: GUARD_HOOKS });
    const read: string[] = [];
    const spy = (path: string) => {
      read.push(path);
      return readConfigFile(path);
    };
    const { loaded } = await load(place, {
      profile: compatProfile("llama"),
      pluginDirs: [dir],
      readTextFile: spy,
    });
    assertEquals(loaded.enabledPlugins.map((p) => p.id), ["t2plug@t2market"]);
    assertEquals(read, [
      `${place.home}/.claude/settings.json`,
      `${place.cwd}/.claude/settings.json`,
      `${place.cwd}/.claude/settings.local.json`,
    ]);
  });
});

Deno.test("loading plugin hooks creates no data directory: only a hook that runs makes one", async () => {
  await withPlace({}, async (place) => {
    await installGuardPlugin(place, true);
    const dir = await writePlugin(`${place.root}/inline`, "inline", { hooksJson: GUARD_HOOKS });
    const { loaded } = await load(place, { pluginDirs: [dir] });
    assertEquals(loaded.plugins.map((p) => p.status), ["loaded", "loaded"]);
    const data = loaded.plugins.map((p) => p.location.dataDir);
    assertEquals(data, [
      `${place.home}/.claude/plugins/data/inline-inline`,
      `${place.home}/.claude/plugins/data/t2plug-t2market`,
    ]);
    assertEquals(await exists(`${place.home}/.claude/plugins/data`), false);
  });
});

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}
