/**
 * The plugins of a `hooks test` case must load: a case whose guard plugin silently failed to load
 * would pass every expectation that nothing was blocked. A plugin directory the case names that
 * did not load (no manifest, a flat `hooks.json`, an id another plugin has) makes the case an
 * error naming the real directory, not its copy.
 */
import type { LoadedHooks } from "../../hooks/session_hooks.ts";
import { loadProfileChoice } from "../../hooks/profile_choice.ts";
import type { ProfileSetting } from "../../profile/compat_profile.ts";
import type { HermeticPlace } from "./hermetic_env.ts";
import { describeDecision, type ProfileDecision } from "../../hooks/profile_decision.ts";

/** What a case with plugin dirs under a profile that reads none reports. */
export const PLUGINS_NEED_CLAUDE =
  '"pluginDirs" names plugins, which load only under the claude profile: add "compat": ' +
  '"claude" to the case or its file, or run with --compat claude';

/**
 * What a case with plugin dirs reports when its hooks decided the llama profile (`auto`): they
 * name both tool worlds, so the plugins' vote for claude did not carry it.
 */
export function pluginsIgnored(decision: ProfileDecision): string {
  return `${PLUGINS_NEED_CLAUDE} (the profile is ${describeDecision(decision)})`;
}

/** Why one of the place's plugins did not load, or null when all of them did. */
export function pluginLoadFailure(loaded: LoadedHooks, place: HermeticPlace): string | null {
  for (const copy of place.pluginDirs) {
    const plugin = loaded.plugins.find((p) => p.location.root === copy);
    if (plugin !== undefined && (plugin.status === "loaded" || plugin.status === "no_hooks")) {
      continue;
    }
    const inside = (file: string) => file === copy || file.startsWith(`${copy}/`);
    const why = loaded.diagnostics.find((d) => d.severity === "error" && inside(d.file));
    const real = place.originalPath(copy);
    const detail = why === undefined
      ? `its hooks did not load (${plugin?.status ?? "not found"})`
      : `${why.message.replaceAll(copy, real)}` +
        (why.line === undefined ? "" : ` (${place.originalPath(why.file)}:${why.line})`);
    return `Cannot use plugin directory "${real}": ${detail}`;
  }
  return null;
}

/**
 * Loads the place's hooks to see that its plugins load (a session loads them itself later),
 * under the profile the session will have: the one set, or the one its hooks decide.
 */
export async function placePluginsFailure(
  place: HermeticPlace,
  profile: ProfileSetting,
): Promise<string | null> {
  if (place.pluginDirs.length === 0) return null;
  const { hooks, decision } = await loadProfileChoice(profile, place.cwd, place.home, {
    pluginDirs: place.pluginDirs,
    origin: '"compat"',
  });
  if (!decision.profile.readsPlugins) return pluginsIgnored(decision);
  return pluginLoadFailure(hooks.loaded, place);
}
