/**
 * The hooks of one directory together with the profile they are loaded under: a forced profile
 * as asked, or `auto`'s decision (profile_decision.ts). Sessions, `hooks list|lint|run|init|test`
 * and `acp --print-config` all decide here, so they decide alike.
 *
 * What loads depends on the profile (plugins load only under `claude`, and so do its extra
 * events), and `auto` decides from what loads. So `auto` loads the hooks as `claude` would (the
 * settings chain, the plugins and every event), decides from all of them, and keeps that load
 * when the decision is `claude`; when it is `llama`, the chain is loaded again as `llama` would,
 * from the same texts (the file reads are remembered), so what is decided and what runs agree.
 */
import { readConfigFile } from "../config_file.ts";
import {
  type CompatProfile,
  compatProfile,
  type ProfileSetting,
} from "../profile/compat_profile.ts";
import {
  decideProfile,
  forcedDecision,
  type ProfileDecision,
  profileEvidence,
} from "./profile_decision.ts";
import type { ReadScript } from "./lint/foreign_tool_references.ts";
import { loadSessionHooks, type SessionHooks } from "./session_hooks.ts";
import type { ReadTextFile } from "./settings/settings_chain.ts";
import { readScriptFile } from "./lint/settings_lint.ts";

export type { ProfileDecision } from "./profile_decision.ts";

export interface ProfileChoice {
  readonly hooks: SessionHooks;
  readonly decision: ProfileDecision;
}

export interface ChoiceContext {
  /** The hooks' directory (`$CLAUDE_PROJECT_DIR`). */
  readonly cwd: string;
  /** Plugin directories asked for by name (`--plugin-dir`); they vote for `claude`. */
  readonly pluginDirs?: readonly string[];
  /** Where a forced setting came from, for its reason (default: `--compat`). */
  readonly origin?: string;
  /** How scripts are read for `tool_name` checks (the bounded reader `hooks lint` uses). */
  readonly readScript?: ReadScript;
}

/** The hooks under the setting's profile, loaded through `load` (a cache, or the files). */
export async function chooseProfile(
  setting: ProfileSetting,
  load: (profile: CompatProfile) => Promise<SessionHooks>,
  context: ChoiceContext,
): Promise<ProfileChoice> {
  if (setting !== "auto") {
    const decision = forcedDecision(setting, context.origin ?? "--compat");
    return { hooks: await load(setting), decision };
  }
  const claude = await load(compatProfile("claude"));
  const evidence = await profileEvidence(claude.registry.registrations, {
    cwd: context.cwd,
    // Each script is searched for both profiles' names, and several hooks may name it.
    readScript: remembered(context.readScript ?? readScriptFile),
    pluginDirs: context.pluginDirs,
  });
  const decision = decideProfile(evidence);
  if (decision.profile.id === "claude") return { hooks: claude, decision };
  return { hooks: await load(decision.profile), decision };
}

export interface LoadChoiceOptions extends Omit<ChoiceContext, "cwd"> {
  readonly readTextFile?: ReadTextFile;
}

/** `chooseProfile` over the files of `cwd`'s settings chain and the plugins. */
export function loadProfileChoice(
  setting: ProfileSetting,
  cwd: string,
  home: string | undefined,
  options: LoadChoiceOptions = {},
): Promise<ProfileChoice> {
  const read = remembered(options.readTextFile ?? readConfigFile);
  const pluginDirs = options.pluginDirs ?? [];
  return chooseProfile(
    setting,
    (profile) => loadSessionHooks(cwd, home, { profile, pluginDirs, readTextFile: read }),
    { ...options, cwd, pluginDirs },
  );
}

/** Each path read once: a second load sees the texts the first did. */
function remembered(read: ReadTextFile): ReadTextFile {
  const texts = new Map<string, Promise<string>>();
  return (path) => {
    let text = texts.get(path);
    if (text === undefined) texts.set(path, text = read(path));
    return text;
  };
}
