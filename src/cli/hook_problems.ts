/**
 * The problems of the hooks a `hooks` command loaded, as `hooks lint` finds them: what loading
 * found (an invalid entry, a file that cannot be read) and what lint then looks for (a missing or
 * non-executable script, a command not on PATH, a matcher that never matches, ...). `lint` prints
 * them, and `list` and `run` count and show these same ones, so no command says "0 problems"
 * beside one another calls an error.
 */
import { shellCommandLookup } from "../hooks/lint/command_path_lint.ts";
import type { Diagnostic } from "../hooks/diagnostic.ts";
import { type LintedHooks, lintSettings } from "../hooks/lint/settings_lint.ts";
import type { CompatProfile } from "../profile/compat_profile.ts";

export interface HookProblemsOptions {
  /** The directory the hooks were loaded for. */
  readonly cwd: string;
  /** The profile the hooks run under. */
  readonly profile: CompatProfile;
  /** The command's environment: `PATH` is where bare command names are looked up. */
  readonly env: (name: string) => string | undefined;
}

export function hookProblems(
  loaded: LintedHooks,
  { cwd, profile, env }: HookProblemsOptions,
): Promise<Diagnostic[]> {
  return lintSettings(loaded, {
    cwd,
    profile,
    findCommands: shellCommandLookup({ path: env("PATH"), cwd }),
  });
}

/** `1 error, 2 warnings`, the totals `hooks lint` ends with; `0 problems` when there are none. */
export function problemCounts(problems: readonly Diagnostic[]): string {
  if (problems.length === 0) return "0 problems";
  const errors = problems.filter((d) => d.severity === "error").length;
  const warnings = problems.length - errors;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `${plural(errors, "error")}, ${plural(warnings, "warning")}`;
}
