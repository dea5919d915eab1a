/**
 * Claude Code plugins written as real directories (claude-compat.md §6a layout): a manifest
 * naming the plugin, a `hooks/hooks.json`, and any scripts beside them (`.sh` files executable).
 */

export interface PluginFiles {
  /** `.claude-plugin/plugin.json` as text; omitted: `{"name": <name>, "version": "0.1.0"}`. */
  readonly manifest?: string;
  /** `hooks/hooks.json` as text (omitted: the plugin has none). */
  readonly hooksJson?: string;
  /** Other files under the plugin dir, e.g. `hooks/guard.sh`. */
  readonly files?: Readonly<Record<string, string>>;
}

/** Writes a plugin named `name` into `dir` (created) and returns `dir`. */
export async function writePlugin(dir: string, name: string, plugin: PluginFiles): Promise<string> {
  const manifest = plugin.manifest ??
    JSON.stringify({ name, version: "0.1.0", description: `${name} test plugin` });
  await writeFiles(dir, {
    ".claude-plugin/plugin.json": manifest,
    ...(plugin.hooksJson === undefined ? {} : { "hooks/hooks.json": plugin.hooksJson }),
    ...plugin.files,
  });
  return dir;
}

/** Writes files under `base`, making their directories; `.sh` files are made executable. */
export async function writeFiles(
  base: string,
  files: Readonly<Record<string, string>>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = `${base}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, content);
    if (path.endsWith(".sh")) await Deno.chmod(full, 0o755);
  }
}

/** A `hooks.json` as Claude Code plugins write it: a description beside the `hooks` object. */
export function pluginHooksJson(hooks: Record<string, unknown>): string {
  return JSON.stringify({ description: "test plugin hooks", hooks }, null, 2);
}

/** A temp dir (real path) for the test's plugins, HOME and project, removed afterwards. */
export async function withTempRoot<T>(fn: (root: string) => Promise<T>): Promise<T> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "plugin_test_" }));
  try {
    return await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

export interface InstallOptions {
  /** `enabledPlugins["t2plug@t2market"]` in the user settings. */
  readonly enabled: boolean;
  /** The marketplace entry's source: a path inside it, or a fetched one (runs from the cache). */
  readonly source: "directory" | "url";
  readonly disableAllHooks?: boolean;
}

export interface InstalledLayout {
  /** `<market>/plugins/t2plug`: where a directory marketplace's plugin is read from. */
  readonly sourceDir: string;
  /** `$HOME/.claude/plugins/cache/t2market/t2plug/0.1.0`: the install record's `installPath`. */
  readonly cache: string;
}

/**
 * The files Claude Code leaves after `plugin marketplace add <market>` and `plugin install
 * t2plug@t2market` (claude-compat.md §6b): the marketplace file, the user settings, and the two
 * registries. The plugin's own files (source dir, cache copy) are the caller's to write.
 */
export async function writeInstallRecords(
  home: string,
  market: string,
  options: InstallOptions,
): Promise<InstalledLayout> {
  const cache = `${home}/.claude/plugins/cache/t2market/t2plug/0.1.0`;
  const marketplaceSource = { source: "directory", path: market };
  const source = options.source === "directory"
    ? "./plugins/t2plug"
    : { source: "url", url: `file://${market}/../t2plug.git` };
  await writeFiles(market, {
    ".claude-plugin/marketplace.json": JSON.stringify({
      name: "t2market",
      owner: { name: "t2 owner" },
      plugins: [{ name: "t2plug", source, description: "t2 test plugin", version: "0.1.0" }],
    }),
  });
  await writeFiles(home, {
    ".claude/settings.json": JSON.stringify({
      extraKnownMarketplaces: { t2market: { source: marketplaceSource } },
      enabledPlugins: { "t2plug@t2market": options.enabled },
      ...(options.disableAllHooks ? { disableAllHooks: true } : {}),
    }),
    ".claude/plugins/known_marketplaces.json": JSON.stringify({
      t2market: {
        source: marketplaceSource,
        installLocation: market,
        lastUpdated: "2026-12-01T09:17:22.552Z",
      },
    }),
    ".claude/plugins/installed_plugins.json": JSON.stringify({
      version: 2,
      plugins: {
        "t2plug@t2market": [{
          scope: "user",
          installPath: cache,
          version: "0.1.0",
          installedAt: "2026-12-01T09:17:23.000Z",
          lastUpdated: "2026-12-01T09:17:23.000Z",
        }],
      },
    }),
  });
  return { sourceDir: `${market}/plugins/t2plug`, cache };
}
