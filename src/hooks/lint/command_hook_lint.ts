/**
 * Findings about what one hook does when it runs, rather than how it is written: an `if` rule
 * that keeps it from ever running, and for command hooks a program not on `PATH`, bash-only
 * syntax under `/bin/sh`, and a `tool_name` check against the other profile's tool names. The
 * shell and the files are reached only through the functions passed in.
 */
import type { CompatProfile } from "../../profile/compat_profile.ts";
import { bashOnlyMessage, bashOnlySyntax } from "./bash_syntax_lint.ts";
import { bareProgramNames, commandProblem, type FindCommands } from "./command_path_lint.ts";
import { type Diagnostic, jsonPointer } from "../diagnostic.ts";
import { HOOK_EVENTS } from "../event_table.ts";
import {
  comparisonMessage,
  type ReadScript,
  toolNameComparisons,
} from "./foreign_tool_references.ts";
import { ifRuleProblem } from "./if_rule_lint.ts";
import { finding } from "./lint_finding.ts";
import type { LoadedHandler } from "../settings/settings_chain.ts";
import type { SettingsFile } from "../settings/settings_file.ts";

/** The `if` of a handler, when it keeps the hook from running under `profile`. */
export function ifRuleFindings(
  entry: LoadedHandler,
  settings: SettingsFile,
  profile: CompatProfile,
): Diagnostic[] {
  if (entry.ifRule === null) return [];
  const problem = ifRuleProblem(entry.ifRule, entry.event, profile, entry.matcherSource);
  if (problem === undefined) return [];
  return [finding(settings, entry.source.pointer + "/if", problem.code, problem.message)];
}

export interface CommandLintContext {
  readonly cwd: string;
  readonly profile: CompatProfile;
  /** Absent: programs are not looked up. */
  readonly findCommands?: FindCommands;
  readonly readScript: ReadScript;
}

/** Every command hook's run-time findings, in hook order. */
export async function commandHookFindings(
  hooks: readonly { readonly entry: LoadedHandler; readonly settings: SettingsFile }[],
  context: CommandLintContext,
): Promise<Diagnostic[]> {
  const commands = hooks.flatMap(({ entry, settings }) =>
    entry.handler.type === "command" ? [{ entry, settings, handler: entry.handler }] : []
  );
  const programs = commands.map(({ handler }) => bareProgramNames(handler));
  const allNames = [...new Set(programs.flatMap((p) => p.names))];
  // One shell for the whole chain, however many hooks name a program.
  const kinds = context.findCommands && allNames.length > 0
    ? await context.findCommands(allNames)
    : new Map();
  const perHook = await Promise.all(commands.map(async ({ entry, settings, handler }, index) => {
    const out: Diagnostic[] = [];
    const at = (field: readonly (string | number)[]) => entry.source.pointer + jsonPointer(field);
    const { exec, names } = programs[index]!;
    for (const name of names) {
      const message = commandProblem(name, kinds.get(name), exec);
      if (message) out.push(finding(settings, at(["command"]), "LINT_COMMAND_NOT_FOUND", message));
    }
    if (handler.args === undefined) {
      const constructs = bashOnlySyntax(handler.command);
      if (constructs.length > 0) {
        const message = bashOnlyMessage(constructs, entry.event);
        out.push(finding(settings, at(["command"]), "LINT_BASH_ONLY_SYNTAX", message));
      }
    }
    if (HOOK_EVENTS[entry.event].matcherField === "tool_name") {
      const found = await toolNameComparisons(
        handler,
        context.cwd,
        context.profile,
        context.readScript,
      );
      for (const comparison of found) {
        const message = comparisonMessage(comparison, context.profile);
        out.push(finding(settings, at(comparison.field), "LINT_TOOL_NAME_CHECK_FOREIGN", message));
      }
    }
    return out;
  }));
  return perHook.flat();
}
