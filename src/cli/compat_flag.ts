/**
 * `--compat PROFILE`, which every command that fires or reads hooks takes: how llama-agent
 * presents itself to hooks (src/profile/compat_profile.ts). Without the flag,
 * `LLAMA_AGENT_COMPAT` decides, then the default.
 */
import {
  chooseCompatProfile,
  COMPAT_ENV,
  COMPAT_PROFILE_IDS,
  type CompatProfile,
} from "../profile/compat_profile.ts";
import type { CliIo, FlagSpec } from "./command_spec.ts";

export const COMPAT_FLAG: FlagSpec = {
  name: "compat",
  type: "string",
  valueName: "PROFILE",
  choices: COMPAT_PROFILE_IDS,
  description: "How the agent presents itself to hooks: llama (its own tools: shell, fs_read, " +
    `...) or claude (Claude Code's: Bash, Read, ...) (default: $${COMPAT_ENV}, else llama)`,
};

export type ChosenProfile =
  | { readonly ok: true; readonly profile: CompatProfile }
  | { readonly ok: false; readonly message: string };

export function compatProfileFromFlags(
  flags: Readonly<Record<string, unknown>>,
  io: Pick<CliIo, "env">,
): ChosenProfile {
  const flag = flags["compat"];
  return chooseCompatProfile(typeof flag === "string" ? flag : undefined, io.env);
}
