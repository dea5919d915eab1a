/**
 * `--plugin-dir` for the `hooks` commands that read a directory's hooks as a session would
 * (`list`, `lint`, `run`): the same flag and the same rules as `acp` (relative to the launch
 * directory, each an existing directory, read only under a profile that reads plugins; under
 * another the dirs are ignored with one warning on stderr).
 */
import type { CliIo } from "./command_spec.ts";
import type { ParsedCommandLine } from "./parse_command_line.ts";
import { ignoredPluginDirsWarning, resolvePluginDirs } from "./plugin_dir_flag.ts";
import { fail } from "./start_command.ts";
import type { CompatProfile } from "../profile/compat_profile.ts";

export type PluginDirsOption =
  | { readonly ok: true; readonly dirs: readonly string[] }
  | { readonly ok: false; readonly exitCode: number };

export async function pluginDirsOption(
  parsed: Pick<ParsedCommandLine, "lists">,
  profile: CompatProfile,
  io: CliIo,
): Promise<PluginDirsOption> {
  const resolved = await resolvePluginDirs(parsed.lists["plugin-dir"] ?? [], io.cwd);
  if (!resolved.ok) return fail(io, resolved.message);
  const ignored = ignoredPluginDirsWarning(resolved.dirs, profile);
  if (ignored !== null) io.stderr(`${ignored}\n`);
  return { ok: true, dirs: resolved.dirs };
}
