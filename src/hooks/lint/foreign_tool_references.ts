/**
 * Hooks that name the other profile's tools, so that under the chosen profile they silently do
 * nothing: a tool matcher or an `if` rule that can never match (Claude Code's `Bash` under
 * `llama`, `shell` under `claude`), and command hooks whose script or inline text checks
 * `tool_name` against the other world's names (`if tool_name != "Bash"`). Pure: files are read
 * through the function passed in.
 */
import type { CompatProfile } from "../../profile/compat_profile.ts";
import { HOOK_EVENTS, type HookEventName } from "../event_table.ts";
import type { CommandHandlerConfig, HandlerConfig } from "../handler_config.ts";
import type { IfRule } from "../matching/if_rule.ts";
import { ifRuleProblem } from "./if_rule_lint.ts";
import { andList, orList, ProfileNames } from "./profile_name_lint.ts";
import type { Registration } from "../registration.ts";
import type { Registry } from "../registry.ts";
import { scriptReferences } from "./script_path_lint.ts";
import { toolMatcherProblem } from "./tool_matcher_lint.ts";

/** What this module needs of a hook: a registration and a loaded handler both are one. */
export interface HookEntry {
  readonly event: HookEventName;
  readonly matcherSource: string | undefined;
  readonly ifRule: IfRule | null;
  readonly handler: HandlerConfig;
}

export interface NeverRuns {
  /** What keeps the hook from running: its group's matcher, or its own `if`. */
  readonly cause: "matcher" | "if";
  /** It names the other profile's tools (switching profile, or `--fix`, would help). */
  readonly foreign: boolean;
  /** One lower-case clause: `matcher "Bash" names Claude Code's tool; run with ...`. */
  readonly reason: string;
  /** `hooks lint --fix` rewrites its matcher (a list) so that the hook runs. */
  readonly fixable: boolean;
  /** For a foreign `if`: the rule in this profile's words (`shell(git push:*)`). */
  readonly translated?: string;
}

/**
 * Why a hook of a fired event never runs under `profile` because of what its matcher or `if`
 * names, or undefined when it can run.
 */
export function neverRuns(entry: HookEntry, profile: CompatProfile): NeverRuns | undefined {
  if (HOOK_EVENTS[entry.event].matcherField === "tool_name") {
    const problem = toolMatcherProblem(entry.matcherSource, profile);
    if (problem?.neverMatches) {
      // `fixed` is offered for list matchers only, exactly those `--fix` rewrites.
      const fixable = problem.fixed !== undefined;
      return { cause: "matcher", foreign: problem.foreign, reason: problem.reason, fixable };
    }
  }
  if (entry.ifRule === null) return undefined;
  const problem = ifRuleProblem(entry.ifRule, entry.event, profile, entry.matcherSource);
  if (problem === undefined) return undefined;
  return {
    cause: "if",
    foreign: problem.code === "LINT_IF_FOREIGN_TOOL",
    reason: problem.reason,
    fixable: false,
    ...(problem.translated === undefined ? {} : { translated: problem.translated }),
  };
}

/**
 * The registrations of fired events that never run under `profile`: what `hooks list` marks,
 * `hooks lint` counts and a new session warns about, so that all three agree.
 */
export function neverRunningRegistrations(
  registry: Pick<Registry, "registrations">,
  profile: CompatProfile,
): { readonly entry: Registration; readonly why: NeverRuns }[] {
  return registry.registrations.flatMap((entry) => {
    if (HOOK_EVENTS[entry.event].group !== "fired") return [];
    const why = neverRuns(entry, profile);
    return why === undefined ? [] : [{ entry, why }];
  });
}

/**
 * The other world's tool names (of tools this profile has) that `text` compares `tool_name`
 * with, leaving out those whose name here is compared too (a script that accepts both). A
 * heuristic: the text mentions `tool_name`, and a name stands where a comparison puts it —
 * quoted (`"Bash"`), after `=`/`==`/`!=`, inside `(...|...)`, or as a `case` pattern (`Bash)`).
 */
export function comparedForeignNames(text: string, profile: CompatProfile): string[] {
  if (!/tool_name/.test(text)) return [];
  const names = new ProfileNames(profile);
  const compared = (name: string) => comparison(name).test(text);
  const found = names.foreignNames().filter((name) => {
    const foreign = names.foreign(name);
    if (!foreign?.capability || !compared(name)) return false;
    const capability = foreign.capability;
    const ours = names.accepted.filter((n) => names.capabilityHere(n) === capability);
    return !ours.some(compared);
  });
  return found;
}

/** Built once per name: every script and inline command of a chain is tested with them. */
const comparisons = new Map<string, RegExp>();

/** Where a name stands when something compares with it rather than merely mentions it. */
function comparison(name: string): RegExp {
  let regex = comparisons.get(name);
  if (regex === undefined) comparisons.set(name, regex = comparisonRegex(name));
  return regex;
}

function comparisonRegex(name: string): RegExp {
  const n = name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  // `^`/`$` too: a regex test such as `grep -q "^Bash$"`.
  const before = String.raw`(?:["'(|]|[=!]=?|\bin|^|;;)[ \t]*\^?`;
  const after = String.raw`\$?[ \t]*(?:["'|)\]]|$)`;
  const word = String.raw`(?<![A-Za-z0-9_/.-])${n}(?![A-Za-z0-9_/.-])`;
  return new RegExp(`(?<=${before})${word}(?=${after})`, "m");
}

/** Reads a script; throws when it cannot (then it is left alone). */
export type ReadScript = (path: string) => Promise<string>;

export interface ToolNameComparison {
  /** The field of the handler that holds the command or the script: `["command"]`, `["args", 1]`. */
  readonly field: readonly (string | number)[];
  /** `"$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh"`, or undefined for the inline command. */
  readonly script: string | undefined;
  readonly names: readonly string[];
}

/** Where a command hook compares `tool_name` with the other world's names: inline or in scripts. */
export async function toolNameComparisons(
  handler: CommandHandlerConfig,
  cwd: string,
  profile: CompatProfile,
  readScript: ReadScript,
): Promise<ToolNameComparison[]> {
  const out: ToolNameComparison[] = [];
  const inline = [handler.command, ...(handler.args ?? [])].join(" ");
  const inlineNames = comparedForeignNames(inline, profile);
  if (inlineNames.length > 0) {
    out.push({ field: ["command"], script: undefined, names: inlineNames });
  }
  for (const reference of scriptReferences(handler)) {
    let text: string;
    try {
      text = await readScript(cwd.replace(/\/+$/, "") + reference.rest);
    } catch {
      // Missing or unreadable: the script lint says so; there is nothing to read here.
      continue;
    }
    const names = comparedForeignNames(text, profile);
    if (names.length > 0) {
      out.push({ field: reference.field, script: `"$CLAUDE_PROJECT_DIR${reference.rest}"`, names });
    }
  }
  return out;
}

/** The lint message of one comparison. */
export function comparisonMessage(found: ToolNameComparison, profile: CompatProfile): string {
  const names = new ProfileNames(profile);
  const foreign = found.names.map((n) => names.foreign(n)).filter((f) => f !== undefined);
  const theirs = foreign.map((f) => `"${f.name}"`);
  const ours = [
    ...new Set(foreign.flatMap((f) => f.capability ? [names.nameHere(f.capability)] : [])),
  ]
    .map((n) => `"${n}"`);
  const what = found.script === undefined ? "This command" : `Script ${found.script}`;
  const whose = names.ownerWords(foreign).replace(/ tools?$/, "");
  const sends = profile.id === "llama" ? "llama-agent sends" : "under --compat claude it is";
  const fix = profile.id === "llama"
    ? "run llama-agent with --compat claude, which sends Claude Code's names"
    : "run llama-agent without --compat claude";
  return `${what} compares tool_name with ${whose} ${andList(theirs)}, but ${sends} ` +
    `${orList(ours)} as tool_name, so its check never sees the tool: ${fix}, or make it ` +
    `accept ${andList(ours)} too`;
}
