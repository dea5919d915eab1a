/**
 * The steps every `hooks` command starts with: parse its flags, answer `--help`, and resolve
 * `--cwd` and `--compat`. A command gets either a ready invocation or the exit code to return at
 * once.
 */
import { type CliIo, type CommandSpec, EXIT, type FlagSpec } from "./command_spec.ts";
import { compatProfileFromFlags } from "./options/compat_flag.ts";
import type { ProfileSetting } from "../profile/compat_profile.ts";
import { parseCommandLine, type ParsedCommandLine, renderHelp } from "./parse_command_line.ts";
import { resolveCwd } from "./resolve_cwd.ts";

/** The `--cwd DIR` flag every command started here takes, and resolves. */
export const CWD_FLAG: FlagSpec = {
  name: "cwd",
  type: "string",
  valueName: "DIR",
  description: "The session directory whose settings chain is read (default: .)",
};

export interface Invocation extends ParsedCommandLine {
  /** `--cwd`, resolved to an existing, readable, absolute real path. */
  readonly cwd: string;
  /**
   * `--compat` (COMPAT_FLAG, which every command started here takes), else $LLAMA_AGENT_COMPAT,
   * else `auto`: the command decides from the directory's hooks (src/hooks/profile_choice.ts).
   */
  readonly compat: ProfileSetting;
  /** Where `compat` came from: `--compat`, the variable, or `default`. */
  readonly compatOrigin: string;
}

export type Started =
  | { readonly ok: true; readonly invocation: Invocation }
  | { readonly ok: false; readonly exitCode: number };

export async function startCommand(
  spec: CommandSpec,
  args: readonly string[],
  io: CliIo,
): Promise<Started> {
  const parsed = parseCommandLine(spec, args);
  if (!parsed.ok) return fail(io, parsed.error);
  if (parsed.value.help) {
    io.stdout(renderHelp(spec));
    return { ok: false, exitCode: EXIT.ok };
  }
  const flag = parsed.value.flags["cwd"];
  const cwd = await resolveCwd(typeof flag === "string" ? flag : undefined, io.cwd, io.env);
  if (!cwd.ok) return fail(io, cwd.error);
  const chosen = compatProfileFromFlags(parsed.value.flags, io);
  if (!chosen.ok) return fail(io, chosen.message);
  return {
    ok: true,
    invocation: {
      ...parsed.value,
      cwd: cwd.path,
      compat: chosen.setting,
      compatOrigin: chosen.origin,
    },
  };
}

/** A usage error: the message on stderr, exit 2. */
export function fail(io: CliIo, message: string): { ok: false; exitCode: number } {
  io.stderr(message + "\n");
  return { ok: false, exitCode: EXIT.usage };
}
