/**
 * `--plugin-dir DIR`, as Claude Code's flag (claude-compat.md §6a): a plugin directory whose
 * hooks load beside the settings chain's, repeatable, read only under a profile that reads
 * plugins (under `--compat auto`, plugin dirs count for the claude profile:
 * src/hooks/profile_decision.ts). Each one is checked once at startup, so a typo is a usage
 * error, not a session that silently runs without its guard.
 */
import { resolve } from "node:path";
import { errorMessage } from "../../error.ts";
import { outsidePathStatus } from "../outside_path_status.ts";
import { describePermissionError, isOutsideGrant } from "../permission_error.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";
import type { FlagSpec } from "../command_spec.ts";

export const PLUGIN_DIR_FLAG: FlagSpec = {
  name: "plugin-dir",
  type: "string",
  valueName: "DIR",
  repeatable: true,
  description: "Load the hooks of the Claude Code plugin in DIR, which llama-agent reads only " +
    "under the directory it starts in or your home directory (repeatable; under the claude " +
    "profile, which --compat auto chooses for plugin dirs unless the hooks name llama-agent's " +
    "tools)",
};

export type PluginDirs =
  | { readonly ok: true; readonly dirs: readonly string[] }
  | { readonly ok: false; readonly message: string };

/** The flag's values as absolute paths (relative ones against `cwd`), each an existing directory. */
export async function resolvePluginDirs(
  values: readonly string[],
  cwd: string,
): Promise<PluginDirs> {
  const dirs: string[] = [];
  for (const value of values) {
    const dir = resolve(cwd, value);
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(dir);
    } catch (error) {
      // Outside what llama-agent may read, a directory that is not there is missing all the same.
      const missing = error instanceof Deno.errors.NotFound ||
        (isOutsideGrant(error) && await outsidePathStatus(dir) === "missing");
      const detail = missing
        ? "no such directory"
        : describePermissionError(error, cwd) ?? `cannot be read: ${errorMessage(error)}`;
      return { ok: false, message: `Cannot load --plugin-dir "${value}": ${detail}` };
    }
    if (!info.isDirectory) {
      return {
        ok: false,
        message: `Cannot load --plugin-dir "${value}": not a directory (give the plugin's ` +
          `directory, the one holding .claude-plugin/plugin.json)`,
      };
    }
    dirs.push(dir);
  }
  return { ok: true, dirs };
}

/** What to say once when plugin dirs are given to a profile that reads no plugins; else null. */
export function ignoredPluginDirsWarning(
  dirs: readonly string[],
  profile: Pick<CompatProfile, "id" | "readsPlugins">,
): string | null {
  if (dirs.length === 0 || profile.readsPlugins) return null;
  return `--plugin-dir is ignored: plugins load only with --compat claude ` +
    `(the "${profile.id}" profile reads no plugins)`;
}
