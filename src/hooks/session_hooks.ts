/**
 * The hooks of one directory: its settings chain read once, the plugins the profile reads, and
 * the registry built from all of them. Sessions, `hooks list|lint|run` and `hooks test` all
 * start here.
 *
 * Load order (claude-compat.md §6a): settings hooks (user, project, local), then the
 * `--plugin-dir` plugins in flag order, then the installed plugins in `enabledPlugins` order;
 * each file's handlers in file order.
 */
import type { Diagnostic } from "./diagnostic.ts";
import type { EventProfile } from "./event_table.ts";
import { findInstalledPlugins } from "./plugins/installed_plugins.ts";
import { type LoadedPlugin, readPluginDir, readPluginHooks } from "./plugins/plugin_hooks.ts";
import type { PluginLocation } from "./plugins/plugin_location.ts";
import { buildRegistry, type Registry } from "./registry.ts";
import {
  type LoadedSettings,
  loadSettingsChain,
  type ReadTextFile,
} from "./settings/settings_chain.ts";
import type { EntrySink } from "./settings/settings_entries.ts";

export type { LoadedPlugin } from "./plugins/plugin_hooks.ts";

/** The settings chain and the plugins: handlers, skipped entries and diagnostics of both. */
export interface LoadedHooks extends LoadedSettings {
  /** Every plugin found, in load order, loaded or not (a broken one says why in `status`). */
  readonly plugins: readonly LoadedPlugin[];
}

export interface SessionHooks {
  readonly loaded: LoadedHooks;
  readonly registry: Registry;
}

/** Which events register, and whether plugin hooks load at all (`CompatProfile` is one). */
export type HooksProfile = EventProfile & { readonly readsPlugins?: boolean };

export interface SessionHooksOptions {
  readonly readTextFile?: ReadTextFile;
  /** Which events register, and whether plugins are read (default: the source document's). */
  readonly profile?: HooksProfile;
  /** `--plugin-dir` directories, in flag order; read only when the profile reads plugins. */
  readonly pluginDirs?: readonly string[];
}

export async function loadSessionHooks(
  cwd: string,
  home: string | undefined,
  options: SessionHooksOptions = {},
): Promise<SessionHooks> {
  const settings = await loadSettingsChain({ cwd, home, ...options });
  const loaded = options.profile?.readsPlugins === true
    ? await withPlugins(settings, cwd, home, options)
    : { ...settings, plugins: [] };
  return { loaded, registry: buildRegistry(loaded) };
}

async function withPlugins(
  settings: LoadedSettings,
  cwd: string,
  home: string | undefined,
  options: SessionHooksOptions,
): Promise<LoadedHooks> {
  const read = { readTextFile: options.readTextFile, profile: options.profile, home };
  const diagnostics: Diagnostic[] = [];
  const inline = await Promise.all(
    (options.pluginDirs ?? []).map((dir) => readPluginDir(dir, home, read)),
  );
  // Only the files Claude Code keeps are read (installed_plugins.json, ...): never an install.
  const installed = await findInstalledPlugins({
    home,
    cwd,
    enabled: settings.enabledPlugins,
    extraKnownMarketplaces: settings.extraKnownMarketplaces,
    ...(options.readTextFile === undefined ? {} : { readTextFile: options.readTextFile }),
  });
  const locations: PluginLocation[] = [];
  for (const found of inline) {
    diagnostics.push(...found.diagnostics);
    if (found.location !== undefined) locations.push(found.location);
  }
  diagnostics.push(...installed.diagnostics);
  locations.push(...installed.plugins);

  // Registration ids and dedup are per plugin id: a second plugin of the same id would alias
  // the first, so it is refused, and says which one it repeats.
  const distinct: PluginLocation[] = [];
  for (const location of locations) {
    const first = distinct.find(({ id }) => id === location.id);
    if (first === undefined) {
      distinct.push(location);
      continue;
    }
    diagnostics.push({
      code: "SETTINGS_INVALID",
      severity: "error",
      file: location.root,
      pointer: "",
      message: `Cannot load plugin "${location.id}" from "${location.root}": a plugin of the ` +
        `same id is already loaded from "${first.root}"`,
    });
  }

  // Each plugin reads into its own sink, in parallel; they are joined in load order.
  const sinks = distinct.map((): EntrySink => ({ handlers: [], skipped: [], diagnostics: [] }));
  const plugins = await Promise.all(
    distinct.map((location, i) => readPluginHooks(location, sinks[i]!, read)),
  );
  return {
    ...settings,
    handlers: [...settings.handlers, ...sinks.flatMap((s) => s.handlers)],
    skipped: [...settings.skipped, ...sinks.flatMap((s) => s.skipped)],
    diagnostics: [...settings.diagnostics, ...diagnostics, ...sinks.flatMap((s) => s.diagnostics)],
    plugins,
  };
}
