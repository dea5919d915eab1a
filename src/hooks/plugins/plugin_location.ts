/**
 * A Claude Code plugin whose hooks a session runs (claude-compat.md §6): where its files are, and
 * what its hooks get in their environment. Found from `--plugin-dir DIR` or from the plugins the
 * settings chain enables; read only, never installed.
 */

/** How a plugin came to be loaded. */
export type PluginOrigin =
  /** `--plugin-dir DIR` (Claude Code's "inline" plugin). */
  | "plugin_dir"
  /** `enabledPlugins` in the settings chain, recorded in `installed_plugins.json`. */
  | "installed";

export interface PluginLocation {
  /** `<name>@<marketplace>`, or `<name>@inline` for `--plugin-dir`: how Claude Code tags it. */
  readonly id: string;
  /** The plugin's name (its `plugin.json` `name`, else the id before `@`). */
  readonly name: string;
  /**
   * The directory its hooks see as `CLAUDE_PLUGIN_ROOT`; `hooks/hooks.json` lies under it, links
   * followed (plugin_containment.ts). A local marketplace's plugin has its real path here, the
   * one found inside the marketplace, so its scripts run from where the check looked.
   */
  readonly root: string;
  /** `CLAUDE_PLUGIN_DATA`: `$HOME/.claude/plugins/data/<name>-<marketplace|inline>`, created. */
  readonly dataDir: string;
  readonly origin: PluginOrigin;
}

/**
 * `$HOME/.claude/plugins/data/<name>-<marketplace>` (`-inline` for `--plugin-dir`), as Claude
 * Code names it. Without a HOME the directory is relative to the working directory, as the
 * transcript's is.
 */
export function pluginDataDir(home: string | undefined, id: string): string {
  const at = id.lastIndexOf("@");
  const [name, marketplace] = at < 0 ? [id, "inline"] : [id.slice(0, at), id.slice(at + 1)];
  const base = home !== undefined && home !== "" ? home.replace(/\/+$/, "") : ".";
  return `${base}/.claude/plugins/data/${safeSegment(name)}-${safeSegment(marketplace)}`;
}

/** A name from a file made safe as one path segment: no separators, no `..`. */
function safeSegment(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9._-]/g, "-");
  return cleaned === "" || /^\.+$/.test(cleaned) ? "-" : cleaned;
}
