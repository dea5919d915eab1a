/**
 * `if` rules that keep their hook from ever running under a profile: a rule written for Claude
 * Code (`Bash(git commit:*)`) under profile `llama`, llama-agent's own name under `claude`, a rule
 * that can never match (claude-compat.md §7: alternation, an unbalanced parenthesis, ...), a name
 * no tool has, a tool its group's matcher never lets through (matcher `Write`, `if` `Edit(...)`),
 * or any `if` on an event without a tool call. Pure: a parsed rule in, the problem (with the rule
 * in this profile's words, where there is one) out.
 */
import type { CompatProfile } from "../../profile/compat_profile.ts";
import { HOOK_EVENTS, type HookEventName } from "../event_table.ts";
import type { IfRule } from "../matching/if_rule.ts";
import { compileMatcher, matches } from "../matching/matcher.ts";
import { ProfileNames } from "./profile_name_lint.ts";

export interface IfRuleProblem {
  readonly code: "LINT_IF_FOREIGN_TOOL" | "LINT_IF_NEVER_MATCHES";
  readonly message: string;
  /** For `hooks list` and notices: one clause, lower case. */
  readonly reason: string;
  /** The same rule with this profile's tool name (`shell(git commit:*)`), for a foreign one. */
  readonly translated?: string;
}

/**
 * Why `rule` on `event` keeps its hook from running under `profile`, or undefined. `matcher` is
 * the source of the hook's group matcher: the rule is tested only on the calls it lets through.
 */
export function ifRuleProblem(
  rule: IfRule,
  event: HookEventName,
  profile: CompatProfile,
  matcher: string | undefined,
): IfRuleProblem | undefined {
  const shown = `"if": "${rule.source}"`;
  if (HOOK_EVENTS[event].matcherField !== "tool_name") {
    return never(
      `${shown} keeps this hook from ever running: "${event}" has no tool call to test it ` +
        `against, so Claude Code and llama-agent skip the hook; remove the "if"`,
      `"if" is never true on "${event}", which has no tool call`,
    );
  }
  if ("invalid" in rule) {
    return never(
      `${shown} never matches, so this hook never runs: ${lowerFirst(rule.invalid)}`,
      `if "${rule.source}" never matches`,
    );
  }
  const names = new ProfileNames(profile);
  const tool = rule.toolName;
  const passes = matcherPasses(matcher);
  if (names.isLive(tool)) {
    const here = names.capabilityHere(tool);
    if (rule.pattern === null || here === undefined || names.nameHere(here) === tool) {
      return passes(tool) ? undefined : notLetThrough(rule, tool, matcher);
    }
    // An alias is dispatched, but a pattern is tested only on the name the model is offered.
    const rewritten = names.nameHere(here) + rule.source.slice(tool.length);
    return never(
      `${shown} never matches, so this hook never runs: a pattern applies only to the name ` +
        `the model is offered, "${names.nameHere(here)}"; write "${rewritten}"`,
      `if "${rule.source}" never matches`,
    );
  }
  const foreign = names.foreign(tool);
  if (foreign?.capability) {
    const ours = names.nameHere(foreign.capability);
    // Neither name gets past the matcher: no profile runs it, and translating would not help.
    if (!passes(tool) && !passes(ours)) return notLetThrough(rule, tool, matcher);
    const translated = ours + rule.source.slice(tool.length);
    const describe = names.describeForeign([foreign]);
    const mine = names.profile.id === "llama";
    const tradeOff = mine
      ? "Claude Code would then not run it"
      : "llama-agent without --compat claude would then not run it";
    const keep = mine
      ? "or run llama-agent with --compat claude, which keeps this file as it is"
      : "or run llama-agent without --compat claude";
    return {
      code: "LINT_IF_FOREIGN_TOOL",
      message: `${shown} names ${names.ownerWords([foreign])}, so this hook never runs here ` +
        `(${describe}): write "${translated}" ` +
        `(${tradeOff}), ${keep}`,
      reason: `if "${rule.source}" names ${names.ownerWords([foreign])}; ` +
        (mine ? "run with --compat claude" : "run without --compat claude"),
      translated,
    };
  }
  const near = names.nearMiss(tool);
  const why = near !== undefined
    ? `did you mean "${near}"? (tool names are case-sensitive)`
    : `llama-agent has no "${tool}" tool; ${names.ourTools}`;
  return never(
    `${shown} never matches ${names.aTool}, so this hook never runs: ${why}`,
    `if "${rule.source}" never matches ${names.aTool}`,
  );
}

/** Whether the group matcher lets a call of the named tool through to the `if`. */
function matcherPasses(source: string | undefined): (tool: string) => boolean {
  const compiled = compileMatcher(source);
  // A matcher that does not compile loads no hook, so there is no `if` to judge here.
  if (!compiled.ok) return () => true;
  return (tool) => matches(compiled.matcher, tool);
}

function notLetThrough(rule: IfRule, tool: string, matcher: string | undefined): IfRuleProblem {
  return never(
    `"if": "${rule.source}" never matches, so this hook never runs: the "if" is tested only on ` +
      `the calls its group's matcher "${matcher ?? ""}" lets through, and that matcher never ` +
      `lets "${tool}" through; make the matcher accept "${tool}", or move the hook to a group ` +
      `whose matcher does`,
    `if "${rule.source}" names "${tool}", which matcher "${matcher ?? ""}" never lets through`,
  );
}

function never(message: string, reason: string): IfRuleProblem {
  return { code: "LINT_IF_NEVER_MATCHES", message, reason };
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
