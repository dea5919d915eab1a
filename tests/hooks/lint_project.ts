/**
 * Builds a real settings chain in a temp directory (HOME in `home/`, the project in `project/`),
 * loads it and lints it, for the `hooks lint` tests. Programs are looked up through `commands`
 * (every name a program file unless listed), never on the machine's PATH.
 */
import { withTempProject } from "../helpers/run_cli.ts";
import type { Diagnostic, DiagnosticCode } from "../../src/hooks/diagnostic.ts";
import { loadSettingsChain } from "../../src/hooks/settings/settings_chain.ts";
import {
  type CommandKind,
  type FindCommands,
  type LintOptions,
  lintSettings,
} from "../../src/hooks/lint/settings_lint.ts";
import { compatProfile, type CompatProfileId } from "../../src/profile/compat_profile.ts";

export const USER = "home/.claude/settings.json";
export const PROJECT = "project/.claude/settings.json";
export const LOCAL = "project/.claude/settings.local.json";
export const SCRIPT = "#!/bin/sh\nexit 0\n";

export type Files = Readonly<Record<string, string | { text: string; mode: number }>>;

export interface LintProjectOptions extends Partial<Omit<LintOptions, "cwd" | "profile">> {
  readonly profile?: CompatProfileId;
  /** What the shell finds for a name; names not listed are program files. */
  readonly commands?: Readonly<Record<string, CommandKind>>;
  /** Receives every list of names looked up. */
  readonly asked?: string[][];
}

export function lintProject(
  files: Files,
  check: (diagnostics: Diagnostic[], dir: string) => void | Promise<void>,
  options: LintProjectOptions = {},
): Promise<void> {
  return withTempProject({ "home/.keep": "", "project/.keep": "", ...files }, async (dir) => {
    const cwd = `${dir}/project`;
    const loaded = await loadSettingsChain({ cwd, home: `${dir}/home` });
    const findCommands: FindCommands = (names) => {
      options.asked?.push([...names]);
      return Promise.resolve(new Map(names.map((n) => [n, options.commands?.[n] ?? "file"])));
    };
    const diagnostics = await lintSettings(loaded, {
      findCommands,
      ...options,
      cwd,
      profile: compatProfile(options.profile),
    });
    await check(diagnostics, dir);
  });
}

export function settings(hooks: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return JSON.stringify({ ...extra, hooks }, null, 2);
}

export function group(matcher: string | undefined, ...hooks: Record<string, unknown>[]) {
  return { ...(matcher === undefined ? {} : { matcher }), hooks };
}

export const run = (command: string, extra: Record<string, unknown> = {}) => ({
  type: "command",
  command,
  ...extra,
});

export function only(diagnostics: readonly Diagnostic[], code: DiagnosticCode): Diagnostic[] {
  return diagnostics.filter((d) => d.code === code);
}

export function summary(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.severity} ${d.code} ${d.pointer}: ${d.message}`);
}
