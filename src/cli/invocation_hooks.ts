/**
 * The hooks a `hooks` command reads as a session in `--cwd` would (`list`, `lint`, `run`): the
 * `--plugin-dir` flag with the same rules as `acp` (relative to the launch directory, each an
 * existing directory), the profile `--compat` forces or `auto` decides from those hooks
 * (src/hooks/profile_choice.ts), and one warning on stderr when the plugin dirs are ignored
 * because that profile reads no plugins.
 */
import type { CliIo } from "./command_spec.ts";
import { ignoredPluginDirsWarning, resolvePluginDirs } from "./options/plugin_dir_flag.ts";
import { fail, type Invocation } from "./start_command.ts";
import { loadProfileChoice, type ProfileChoice } from "../hooks/profile_choice.ts";

export type InvocationHooks =
  | { readonly ok: true; readonly choice: ProfileChoice; readonly pluginDirs: readonly string[] }
  | { readonly ok: false; readonly exitCode: number };

export async function invocationHooks(
  invocation: Pick<Invocation, "lists" | "cwd" | "compat" | "compatOrigin">,
  io: CliIo,
): Promise<InvocationHooks> {
  const resolved = await resolvePluginDirs(invocation.lists["plugin-dir"] ?? [], io.cwd);
  if (!resolved.ok) return fail(io, resolved.message);
  const choice = await loadProfileChoice(invocation.compat, invocation.cwd, io.env("HOME"), {
    pluginDirs: resolved.dirs,
    origin: invocation.compatOrigin,
  });
  const ignored = ignoredPluginDirsWarning(resolved.dirs, choice.decision.profile);
  if (ignored !== null) io.stderr(`${ignored}\n`);
  return { ok: true, choice, pluginDirs: resolved.dirs };
}
