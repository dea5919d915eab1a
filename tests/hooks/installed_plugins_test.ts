import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { readConfigFile } from "../../src/config_file.ts";
import {
  type EnabledPlugin,
  findInstalledPlugins,
  type FindInstalledPluginsOptions,
  type InstalledPluginsResult,
} from "../../src/hooks/plugins/installed_plugins.ts";

/** A HOME, a project cwd and a marketplace dir, laid out as claude-compat.md §6b shows. */
interface Layout {
  /** The temp dir the others are in. */
  readonly root: string;
  readonly home: string;
  readonly cwd: string;
  readonly market: string;
  readonly userSettings: string;
  readonly installedFile: string;
  readonly knownFile: string;
  readonly marketFile: string;
  cache(plugin: string, market?: string): string;
  write(path: string, content: unknown): Promise<void>;
  enabled(id: string): EnabledPlugin;
  find(ids: readonly string[], extra?: Partial<FindInstalledPluginsOptions>): Promise<
    InstalledPluginsResult
  >;
}

async function withLayout(fn: (layout: Layout) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "installed_plugins_test_" });
  try {
    const home = `${root}/home`;
    const plugins = `${home}/.claude/plugins`;
    const layout: Layout = {
      root,
      home,
      cwd: `${root}/project`,
      market: `${root}/market`,
      userSettings: `${home}/.claude/settings.json`,
      installedFile: `${plugins}/installed_plugins.json`,
      knownFile: `${plugins}/known_marketplaces.json`,
      marketFile: `${root}/market/.claude-plugin/marketplace.json`,
      cache: (plugin, market = "t2market") => `${plugins}/cache/${market}/${plugin}/0.1.0`,
      async write(path, content) {
        await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
        await Deno.writeTextFile(
          path,
          typeof content === "string" ? content : JSON.stringify(content, null, 2),
        );
      },
      enabled: (id) => ({ id, file: layout.userSettings, pointer: `/enabledPlugins/${id}` }),
      find: (ids, extra = {}) =>
        findInstalledPlugins({
          home,
          cwd: layout.cwd,
          enabled: ids.map(layout.enabled),
          ...extra,
        }),
    };
    await Deno.mkdir(layout.cwd, { recursive: true });
    await fn(layout);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function userRecord(installPath: string): Record<string, unknown> {
  return {
    scope: "user",
    installPath,
    version: "0.1.0",
    installedAt: "2026-12-01T09:17:23.000Z",
    lastUpdated: "2026-12-01T09:17:23.000Z",
  };
}

/** `claude plugin marketplace add <MARKET>` then `claude plugin install <each>@t2market`. */
async function installFromDirectoryMarketplace(
  layout: Layout,
  entries: readonly Record<string, unknown>[],
): Promise<void> {
  await layout.write(layout.marketFile, {
    name: "t2market",
    owner: { name: "t2 owner" },
    plugins: entries,
  });
  await layout.write(layout.knownFile, {
    t2market: {
      source: { source: "directory", path: layout.market },
      installLocation: layout.market,
      lastUpdated: "2026-12-01T09:17:22.552Z",
    },
  });
  const plugins: Record<string, unknown> = {};
  for (const entry of entries) {
    plugins[`${entry.name}@t2market`] = [userRecord(layout.cache(String(entry.name)))];
  }
  await layout.write(layout.installedFile, { version: 2, plugins });
}

const T2PLUG = { name: "t2plug", source: "./plugins/t2plug", description: "t2", version: "0.1.0" };

Deno.test("a directory marketplace's plugin with a relative source is read from the marketplace's source dir, not the cache", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.diagnostics, []);
    assertEquals(result.plugins, [{
      id: "t2plug@t2market",
      name: "t2plug",
      root: `${layout.market}/plugins/t2plug`,
      dataDir: `${layout.home}/.claude/plugins/data/t2plug-t2market`,
      origin: "installed",
    }]);
  });
});

Deno.test("a marketplace added by its marketplace.json file reads relative sources against the marketplace dir", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await layout.write(layout.knownFile, {
      t2market: {
        source: { source: "file", path: layout.marketFile },
        installLocation: layout.market,
      },
    });
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.diagnostics, []);
    assertEquals(result.plugins.map((p) => p.root), [`${layout.market}/plugins/t2plug`]);
  });
});

Deno.test("a relative source of './' is the marketplace dir itself", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [{ name: "t2plug", source: "./" }]);
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.diagnostics, []);
    assertEquals(result.plugins.map((p) => p.root), [layout.market]);
  });
});

Deno.test("a url-sourced plugin of a directory marketplace is read from the cache installPath", async () => {
  await withLayout(async (layout) => {
    const source = { source: "url", url: "file:///elsewhere/t2plug.git" };
    await installFromDirectoryMarketplace(layout, [{ name: "t2plug", source }]);
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.diagnostics, []);
    assertEquals(result.plugins.map((p) => p.root), [layout.cache("t2plug")]);
  });
});

Deno.test("a plugin of a git marketplace is read from the cache installPath, and no marketplace.json is read", async () => {
  await withLayout(async (layout) => {
    await layout.write(layout.knownFile, {
      t2market: {
        source: { source: "git", url: "file:///elsewhere/market.git" },
        installLocation: `${layout.home}/.claude/plugins/marketplaces/t2market`,
      },
    });
    const record = { ...userRecord(layout.cache("t2plug")), gitCommitSha: "a".repeat(40) };
    await layout.write(layout.installedFile, {
      version: 2,
      plugins: { "t2plug@t2market": [record] },
    });
    const reads: string[] = [];
    const readTextFile = (path: string) => {
      reads.push(path);
      return readConfigFile(path);
    };
    const result = await layout.find(["t2plug@t2market"], { readTextFile });
    assertEquals(result.diagnostics, []);
    assertEquals(result.plugins.map((p) => p.root), [layout.cache("t2plug")]);
    assertEquals(reads.sort(), [layout.installedFile, layout.knownFile].sort());
  });
});

Deno.test("with no installed_plugins.json each enabled plugin is one PLUGIN_NOT_INSTALLED diagnostic at its enabledPlugins entry", async () => {
  await withLayout(async (layout) => {
    const result = await layout.find(["a@m", "b@m"]);
    assertEquals(result.plugins, []);
    assertEquals(
      result.diagnostics.map((d) => [d.code, d.severity, d.file, d.pointer]),
      [
        ["PLUGIN_NOT_INSTALLED", "error", layout.userSettings, "/enabledPlugins/a@m"],
        ["PLUGIN_NOT_INSTALLED", "error", layout.userSettings, "/enabledPlugins/b@m"],
      ],
    );
    assertStringIncludes(result.diagnostics[0]!.message, layout.installedFile);
  });
});

Deno.test("an enabled plugin absent from installed_plugins.json is not installed, and the message says how to install it", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    const result = await layout.find(["other@t2market"]);
    assertEquals(result.plugins, []);
    assertEquals(result.diagnostics.length, 1);
    const [d] = result.diagnostics;
    assertEquals(d?.code, "PLUGIN_NOT_INSTALLED");
    assertEquals(
      d?.message,
      `Plugin "other@t2market" is enabled in "${layout.userSettings}" but not installed: no ` +
        `entry for it in "${layout.installedFile}"; install it with Claude Code ("claude plugin ` +
        `install other@t2market") or remove it from enabledPlugins`,
    );
  });
});

Deno.test("installed_plugins.json that is not JSON is PLUGIN_REGISTRY_INVALID for each plugin, naming it and the file", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await layout.write(layout.installedFile, '{"version":2,');
    const result = await layout.find(["t2plug@t2market", "x@t2market"]);
    assertEquals(result.plugins, []);
    assertEquals(result.diagnostics.map((d) => [d.code, d.file, d.pointer]), [
      ["PLUGIN_REGISTRY_INVALID", layout.installedFile, ""],
      ["PLUGIN_REGISTRY_INVALID", layout.installedFile, ""],
    ]);
    assertStringIncludes(result.diagnostics[0]!.message, '"t2plug@t2market"');
    assertStringIncludes(result.diagnostics[1]!.message, '"x@t2market"');
  });
});

Deno.test("installed_plugins.json of a version other than 2 is PLUGIN_REGISTRY_INVALID at /version", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await layout.write(layout.installedFile, {
      version: 1,
      plugins: { "t2plug@t2market": userRecord(layout.cache("t2plug")) },
    });
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.plugins, []);
    assertEquals(result.diagnostics.map((d) => [d.code, d.pointer, d.line]), [
      ["PLUGIN_REGISTRY_INVALID", "/version", 2],
    ]);
    assertStringIncludes(result.diagnostics[0]!.message, "version 2");
  });
});

Deno.test("an install record without installPath is PLUGIN_REGISTRY_INVALID at its pointer and line", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await layout.write(layout.installedFile, {
      version: 2,
      plugins: { "t2plug@t2market": [{ scope: "user", version: "0.1.0" }] },
    });
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.plugins, []);
    assertEquals(result.diagnostics.map((d) => [d.code, d.file, d.pointer, d.line]), [
      [
        "PLUGIN_REGISTRY_INVALID",
        layout.installedFile,
        "/plugins/t2plug@t2market/0/installPath",
        5,
      ],
    ]);
    assertStringIncludes(result.diagnostics[0]!.message, '"installPath" is required');
  });
});

Deno.test("an unreadable installed_plugins.json (a directory) is PLUGIN_REGISTRY_UNREADABLE", async () => {
  await withLayout(async (layout) => {
    await Deno.mkdir(layout.installedFile, { recursive: true });
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.plugins, []);
    assertEquals(result.diagnostics.map((d) => [d.code, d.file]), [
      ["PLUGIN_REGISTRY_UNREADABLE", layout.installedFile],
    ]);
    assertStringIncludes(result.diagnostics[0]!.message, "directory");
  });
});

Deno.test("a relative source that leaves the marketplace dir is refused with PLUGIN_SOURCE_OUTSIDE_MARKETPLACE", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [{ name: "t2plug", source: "./../outside" }]);
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.plugins, []);
    assertEquals(result.diagnostics.map((d) => [d.code, d.file, d.pointer]), [
      ["PLUGIN_SOURCE_OUTSIDE_MARKETPLACE", layout.marketFile, "/plugins/0/source"],
    ]);
    assertStringIncludes(result.diagnostics[0]!.message, '"./../outside"');
  });
});

Deno.test("a project-scoped install record for another project is ignored: the plugin is not installed here", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await layout.write(layout.installedFile, {
      version: 2,
      plugins: {
        "t2plug@t2market": [{
          scope: "project",
          projectPath: "/somewhere/else",
          installPath: layout.cache("t2plug"),
        }],
      },
    });
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.plugins, []);
    assertEquals(result.diagnostics.map((d) => d.code), ["PLUGIN_NOT_INSTALLED"]);
    assertStringIncludes(result.diagnostics[0]!.message, '"/somewhere/else"');
  });
});

Deno.test("a project-scoped install record for the session cwd applies", async () => {
  await withLayout(async (layout) => {
    const source = { source: "url", url: "file:///elsewhere/t2plug.git" };
    await installFromDirectoryMarketplace(layout, [{ name: "t2plug", source }]);
    const elsewhere = { scope: "local", projectPath: "/other", installPath: "/other/cache" };
    const here = { scope: "project", projectPath: layout.cwd, installPath: layout.cache("t2plug") };
    await layout.write(layout.installedFile, {
      version: 2,
      plugins: { "t2plug@t2market": [elsewhere, here] },
    });
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.diagnostics, []);
    assertEquals(result.plugins.map((p) => p.root), [layout.cache("t2plug")]);
  });
});

Deno.test("of two enabled plugins, a broken one costs only itself: the other resolves", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [
      { name: "broken", source: "../../etc" },
      T2PLUG,
    ]);
    const result = await layout.find(["broken@t2market", "t2plug@t2market"]);
    assertEquals(result.plugins.map((p) => [p.id, p.root]), [
      ["t2plug@t2market", `${layout.market}/plugins/t2plug`],
    ]);
    assertEquals(result.diagnostics.length, 1);
    assertStringIncludes(result.diagnostics[0]!.message, '"broken@t2market"');
  });
});

Deno.test("an enabledPlugins id without a marketplace is PLUGIN_ID_INVALID, and the others still resolve", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    const result = await layout.find(["t2plug", "t2plug@t2market", "@t2market"]);
    assertEquals(result.plugins.map((p) => p.id), ["t2plug@t2market"]);
    assertEquals(result.diagnostics.map((d) => [d.code, d.pointer]), [
      ["PLUGIN_ID_INVALID", "/enabledPlugins/t2plug"],
      ["PLUGIN_ID_INVALID", "/enabledPlugins/@t2market"],
    ]);
  });
});

Deno.test("without HOME nothing can be found: one diagnostic per plugin, and no file is read", async () => {
  const reads: string[] = [];
  const result = await findInstalledPlugins({
    home: undefined,
    enabled: [{ id: "a@m", file: "/p/.claude/settings.json", pointer: "/enabledPlugins/a@m" }],
    readTextFile: (path) => {
      reads.push(path);
      return Promise.reject(new Deno.errors.NotFound(path));
    },
  });
  assertEquals(result.plugins, []);
  assertEquals(result.diagnostics.map((d) => [d.code, d.file]), [
    ["PLUGIN_NOT_INSTALLED", "/p/.claude/settings.json"],
  ]);
  assertStringIncludes(result.diagnostics[0]!.message, "HOME");
  assertEquals(reads, []);
});

Deno.test("no enabled plugins reads no file", async () => {
  const result = await findInstalledPlugins({
    home: "/nonexistent-home",
    enabled: [],
    readTextFile: () => Promise.reject(new Error("must not be read")),
  });
  assertEquals(result, { plugins: [], diagnostics: [] });
});

Deno.test("a marketplace absent from known_marketplaces.json is taken from extraKnownMarketplaces", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await Deno.remove(layout.knownFile);
    const extraKnownMarketplaces = {
      t2market: { source: { source: "directory", path: layout.market } },
    };
    const result = await layout.find(["t2plug@t2market"], { extraKnownMarketplaces });
    assertEquals(result.diagnostics, []);
    assertEquals(result.plugins.map((p) => p.root), [`${layout.market}/plugins/t2plug`]);
  });
});

Deno.test("a known_marketplaces.json that is not JSON is reported for the plugin, and extraKnownMarketplaces still finds its marketplace", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await layout.write(layout.knownFile, "not json");
    const alone = await layout.find(["t2plug@t2market"]);
    assertEquals(alone.plugins, []);
    assertEquals(alone.diagnostics.map((d) => [d.code, d.file]), [
      ["PLUGIN_REGISTRY_INVALID", layout.knownFile],
    ]);
    const extraKnownMarketplaces = {
      t2market: { source: { source: "directory", path: layout.market } },
    };
    const withExtra = await layout.find(["t2plug@t2market"], { extraKnownMarketplaces });
    assertEquals(withExtra.plugins.map((p) => p.root), [`${layout.market}/plugins/t2plug`]);
    assertEquals(withExtra.diagnostics.map((d) => d.code), ["PLUGIN_REGISTRY_INVALID"]);
  });
});

Deno.test("a user install record is preferred to a project record for the same cwd", async () => {
  await withLayout(async (layout) => {
    const source = { source: "url", url: "file:///elsewhere/t2plug.git" };
    await installFromDirectoryMarketplace(layout, [{ name: "t2plug", source }]);
    const project = { scope: "project", projectPath: layout.cwd, installPath: "/project/copy" };
    await layout.write(layout.installedFile, {
      version: 2,
      plugins: { "t2plug@t2market": [project, userRecord(layout.cache("t2plug"))] },
    });
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.diagnostics, []);
    assertEquals(result.plugins.map((p) => p.root), [layout.cache("t2plug")]);
  });
});

Deno.test("a marketplace known nowhere is PLUGIN_MARKETPLACE_UNKNOWN", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await layout.write(layout.knownFile, {});
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.plugins, []);
    assertEquals(result.diagnostics.map((d) => [d.code, d.file]), [
      ["PLUGIN_MARKETPLACE_UNKNOWN", layout.knownFile],
    ]);
    assertStringIncludes(result.diagnostics[0]!.message, '"t2market"');
  });
});

Deno.test("a local marketplace whose marketplace.json is gone or lacks the plugin is PLUGIN_SOURCE_MISSING", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await layout.write(layout.marketFile, { name: "t2market", plugins: [] });
    const lacking = await layout.find(["t2plug@t2market"]);
    assertEquals(lacking.diagnostics.map((d) => [d.code, d.file, d.pointer]), [
      ["PLUGIN_SOURCE_MISSING", layout.marketFile, "/plugins"],
    ]);
    await Deno.remove(layout.marketFile);
    const gone = await layout.find(["t2plug@t2market"]);
    assertEquals(gone.plugins, []);
    assertEquals(gone.diagnostics.map((d) => [d.code, d.file]), [
      ["PLUGIN_SOURCE_MISSING", layout.marketFile],
    ]);
  });
});

Deno.test("the files are only read: the marketplace and the cache are left as they were", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    const before = await snapshot(layout.home);
    const result = await layout.find(["t2plug@t2market"]);
    assert(result.plugins.length === 1);
    assertEquals(await snapshot(layout.home), before);
  });
});

async function snapshot(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    names.push(entry.name);
    if (entry.isDirectory) {
      names.push(...(await snapshot(`${dir}/${entry.name}`)).map((n) => `${entry.name}/${n}`));
    }
  }
  return names.sort();
}

Deno.test("a relative source that is a symlink out of the marketplace is refused with PLUGIN_SOURCE_OUTSIDE_MARKETPLACE, as ../outside is", async () => {
  await withLayout(async (layout) => {
    const outside = `${layout.home}/outside_plugin`;
    await layout.write(`${outside}/hooks/hooks.json`, { hooks: {} });
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await Deno.mkdir(`${layout.market}/plugins`, { recursive: true });
    await Deno.symlink(outside, `${layout.market}/plugins/t2plug`);
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.plugins, []);
    assertEquals(result.diagnostics.map((d) => [d.code, d.file, d.pointer, d.line]), [
      ["PLUGIN_SOURCE_OUTSIDE_MARKETPLACE", layout.marketFile, "/plugins/0/source", 9],
    ]);
    assertStringIncludes(
      result.diagnostics[0]!.message,
      `its source "./plugins/t2plug" is not inside the marketplace directory: it leads through ` +
        `a symlink to "${outside}", outside "${layout.market}"`,
    );
  });
});

Deno.test("a source below a directory of the marketplace that links out is refused too, even where it does not exist yet", async () => {
  await withLayout(async (layout) => {
    await Deno.mkdir(`${layout.root}/elsewhere`, { recursive: true });
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await Deno.symlink(`${layout.root}/elsewhere`, `${layout.market}/plugins`);
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.plugins, []);
    assertEquals(result.diagnostics.map((d) => d.code), ["PLUGIN_SOURCE_OUTSIDE_MARKETPLACE"]);
    assertStringIncludes(result.diagnostics[0]!.message, `"${layout.root}/elsewhere/t2plug"`);
  });
});

Deno.test("a symlink that stays inside the marketplace is followed: the plugin's root is where it really is", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    await layout.write(`${layout.market}/real/t2plug/hooks/hooks.json`, { hooks: {} });
    await Deno.mkdir(`${layout.market}/plugins`);
    await Deno.symlink("../real/t2plug", `${layout.market}/plugins/t2plug`);
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.diagnostics, []);
    assertEquals(result.plugins.map((p) => p.root), [`${layout.market}/real/t2plug`]);
  });
});

Deno.test("a marketplace reached through a symlink reads its plugins from where it really is", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    const linked = `${layout.root}/linked_market`;
    await Deno.symlink(layout.market, linked);
    await layout.write(layout.knownFile, {
      t2market: { source: { source: "directory", path: linked }, installLocation: linked },
    });
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.diagnostics, []);
    assertEquals(result.plugins.map((p) => p.root), [`${layout.market}/plugins/t2plug`]);
  });
});

Deno.test("a marketplace listing that links out of the marketplace is PLUGIN_LINK_OUTSIDE, and its plugins are not loaded", async () => {
  await withLayout(async (layout) => {
    await installFromDirectoryMarketplace(layout, [T2PLUG]);
    const elsewhere = `${layout.root}/elsewhere/marketplace.json`;
    await layout.write(elsewhere, await Deno.readTextFile(layout.marketFile));
    await Deno.remove(layout.marketFile);
    await Deno.symlink(elsewhere, layout.marketFile);
    const result = await layout.find(["t2plug@t2market"]);
    assertEquals(result.plugins, []);
    assertEquals(result.diagnostics.map((d) => [d.code, d.file]), [
      ["PLUGIN_LINK_OUTSIDE", layout.marketFile],
    ]);
    assertStringIncludes(result.diagnostics[0]!.message, `to "${elsewhere}", outside`);
  });
});
