/**
 * `--compat PROFILE`, which every command that fires or reads hooks takes: how llama-agent
 * presents itself to hooks (src/profile/compat_profile.ts). Without the flag,
 * `LLAMA_AGENT_COMPAT` decides, then the default, `auto`: each session directory's hooks decide
 * (src/hooks/profile_decision.ts).
 */
import {
  chooseCompatProfile,
  COMPAT_CHOICES,
  COMPAT_ENV,
  type ProfileSetting,
} from "../../profile/compat_profile.ts";
import type { CliIo, FlagSpec } from "../command_spec.ts";

export const COMPAT_FLAG: FlagSpec = {
  name: "compat",
  type: "string",
  valueName: "PROFILE",
  choices: COMPAT_CHOICES,
  description: "How the agent presents itself to hooks: auto (claude when the hooks name " +
    "Claude Code's tools and none of llama-agent's, else llama), llama (its own tools: shell, " +
    `fs_read, ...) or claude (Claude Code's: Bash, Read, ...) (default: $${COMPAT_ENV}, else auto)`,
};

export type ChosenProfile =
  | { readonly ok: true; readonly setting: ProfileSetting; readonly origin: string }
  | { readonly ok: false; readonly message: string };

export function compatProfileFromFlags(
  flags: Readonly<Record<string, unknown>>,
  io: Pick<CliIo, "env">,
): ChosenProfile {
  const flag = flags["compat"];
  return chooseCompatProfile(typeof flag === "string" ? flag : undefined, io.env);
}
