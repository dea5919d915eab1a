/**
 * Tool matchers that can never fire under a profile: a settings file written for Claude Code
 * names `Bash`, `Edit|Write` or `Read`, none of which is a tool of profile `llama`, so the hook
 * silently never runs (and `shell` never fires under `claude`). Pure: a matcher as written in,
 * what is wrong with it out, with the list matcher that works in both worlds when there is one.
 */
import type { CompatProfile } from "../../profile/compat_profile.ts";
import { isMcpToolName, type ToolCapability } from "../../profile/tool_identity.ts";
import { compileMatcher } from "../matching/matcher.ts";
import { andList, type ForeignName, orList, ProfileNames, quoteAll } from "./profile_name_lint.ts";

export interface MatcherProblem {
  readonly message: string;
  /** No tool of the profile can match: every hook of the group is dead. */
  readonly neverMatches: boolean;
  /** The dead names include the other world's names of tools this profile has. */
  readonly foreign: boolean;
  /** For `hooks list` and notices, when `neverMatches`: one clause, lower case. */
  readonly reason: string;
  /**
   * The list matcher that keeps every name written and adds this profile's names for the other
   * world's (`Bash` → `Bash|shell`): what `hooks lint --fix` writes. Absent for a regex.
   */
  readonly fixed?: string;
}

/**
 * What is wrong with a matcher of a tool event (PreToolUse, PostToolUse, PostToolUseFailure)
 * under `profile`, or undefined when every name in it can match. An invalid regex is the
 * loader's diagnostic, not ours.
 */
export function toolMatcherProblem(
  source: string | undefined,
  profile: CompatProfile,
): MatcherProblem | undefined {
  const compiled = compileMatcher(source);
  if (!compiled.ok) return undefined;
  const { matcher } = compiled;
  const names = new ProfileNames(profile);
  switch (matcher.kind) {
    case "all":
      return undefined;
    case "list":
      return listProblem(source ?? "", matcher.names, names);
    case "regex":
      return regexProblem(source ?? "", matcher.regex, names);
    default:
      return matcher satisfies never;
  }
}

function listProblem(
  source: string,
  list: readonly string[],
  names: ProfileNames,
): MatcherProblem | undefined {
  if (list.length === 0) {
    return {
      message: `Matcher "${source}" names no tool, so its hooks never run: name the tools, ` +
        `or use "*" for every tool`,
      neverMatches: true,
      foreign: false,
      reason: `matcher "${source}" names no tool`,
    };
  }
  const live = list.filter((name) => names.isLive(name));
  const dead = list.filter((name) => !names.isLive(name));
  if (dead.length === 0) return undefined;
  // A file shared by both worlds legitimately lists both names (`Bash|shell`): only a foreign
  // name whose equivalent is missing, or a name nobody knows, is worth a word.
  const covered = new Set(live.map((n) => names.capabilityHere(n)).filter((c) => c !== undefined));
  const worth = live.length === 0 ? dead : dead.filter((name) => {
    const foreign = names.foreign(name);
    return foreign === undefined ||
      (foreign.capability !== null && !covered.has(foreign.capability));
  });
  if (worth.length === 0) return undefined;
  const foreign = worth.map((n) => names.foreign(n)).filter(standsForOurs);
  const additions = [...new Set(foreign.map((f) => names.nameHere(f.capability)))];
  const fixed = additions.length > 0 ? withNames(source, additions) : undefined;
  const neverMatches = live.length === 0;
  const clauses = advice(worth, names, covered, fixed, neverMatches);
  const head = neverMatches
    ? `Matcher "${source}" never matches ${names.aTool}`
    : `${quoteAll(worth)} in matcher "${source}" ${
      worth.length === 1 ? "never matches" : "never match"
    } ${names.aTool}`;
  return {
    message: `${head}: ${clauses}`,
    neverMatches,
    foreign: foreign.length > 0,
    reason: foreign.length > 0
      ? `matcher "${source}" names ${names.ownerWords(foreign)}; ${
        names.shortAdvice(foreign, true)
      }`
      : `matcher "${source}" never matches ${names.aTool}`,
    ...(fixed === undefined ? {} : { fixed }),
  };
}

/** A foreign name of a tool this profile has too. */
type Mapped = ForeignName & { readonly capability: ToolCapability };
function standsForOurs(name: ForeignName | undefined): name is Mapped {
  return name !== undefined && name.capability !== null;
}

/** `source` with `additions` appended in the separator style it already uses. */
function withNames(source: string, additions: readonly string[]): string {
  const separator = source.includes("|") ? "|" : source.includes(",") ? ", " : "|";
  return `${source.replace(/[\s|,]+$/, "")}${separator}${additions.join(separator)}`;
}

/** What to do about the dead names, as clauses joined by "; ". */
function advice(
  dead: readonly string[],
  names: ProfileNames,
  covered: ReadonlySet<ToolCapability>,
  fixed: string | undefined,
  neverMatches: boolean,
): string {
  const foreign: ForeignName[] = [];
  const absent: string[] = [];
  const hints: string[] = [];
  let unknown = false;
  for (const name of dead) {
    const other = names.foreign(name);
    const near = names.nearMiss(name);
    if (other?.capability) {
      if (!covered.has(other.capability)) foreign.push(other);
    } else if (other !== undefined) {
      absent.push(name);
    } else if (near !== undefined) {
      hints.push(`did you mean "${near}"? (matchers are case-sensitive)`);
    } else if (isMcpToolName(name)) {
      hints.push(
        `"${name}" is not an MCP tool name ("mcp__<server>__<tool>"); ` +
          `use "${name}__.*" for every tool of that server`,
      );
    } else {
      absent.push(name);
      unknown = true;
    }
  }
  const clauses: string[] = [];
  if (foreign.length > 0 && fixed !== undefined) {
    const both = names.bothPlaces(foreign);
    const use = `${names.describeForeign(foreign)}; use "${fixed}"${both ? ` ${both}` : ""} ` +
      `("hooks lint --fix" does this)`;
    clauses.push(neverMatches && both ? `${use}, ${names.switchAdvice}` : use);
  }
  clauses.push(...hints);
  if (absent.length > 0) {
    clauses.push(`llama-agent has no ${orList(absent.map((n) => `"${n}"`))} tool`);
  }
  if (unknown || (clauses.length === 1 && absent.length > 0)) clauses.push(names.ourTools);
  return clauses.join("; ");
}

function regexProblem(
  source: string,
  regex: RegExp,
  names: ProfileNames,
): MatcherProblem | undefined {
  if (names.accepted.some((name) => regex.test(name))) return undefined;
  if (mcpSamples(source).some((name) => regex.test(name))) return undefined;
  const head = `Matcher "${source}" never matches ${names.aTool}`;
  const others = names.foreignNames().filter((n) => regex.test(n)).map((n) => names.foreign(n))
    .filter((f) => f !== undefined);
  const foreign = others.filter(standsForOurs);
  if (others.length === 0) {
    return {
      message: `${head}: ${names.ourTools}`,
      neverMatches: true,
      foreign: false,
      reason: `matcher "${source}" never matches ${names.aTool}`,
    };
  }
  const whose = names.ownerWords(others).replace(/ tools?$/, "");
  const clauses = [`it matches only ${whose} ${andList(others.map((f) => `"${f.name}"`))}`];
  if (foreign.length > 0) {
    const ours = [...new Set(foreign.map((f) => names.nameHere(f.capability)))];
    const change = `make it match ${orList(ours.map((n) => `"${n}"`))} too ("hooks lint --fix" ` +
      `leaves regular expressions to you)`;
    clauses.push(names.bothPlaces(foreign) ? `${change}, ${names.switchAdvice}` : change);
  }
  const absent = others.filter((f) => f.capability === null).map((f) => `"${f.name}"`);
  if (absent.length > 0) clauses.push(`llama-agent has no ${orList(absent)} tool`);
  return {
    message: `${head}: ${clauses.join("; ")}`,
    neverMatches: true,
    foreign: foreign.length > 0,
    reason: foreign.length > 0
      ? `matcher "${source}" matches only ${names.ownerWords(others)}; ` +
        names.shortAdvice(foreign, false)
      : `matcher "${source}" never matches ${names.aTool}`,
  };
}

/**
 * MCP names a regex might be written for. Fixed samples catch `.*` and `^mcp__`; samples built
 * from the regex's own words catch `mcp__sah__.*` or `mcp__.*__(read|write)`, which no fixed
 * list could, so a regex that mentions a server or tool is never called dead.
 */
function mcpSamples(source: string): string[] {
  const words = new Set<string>();
  for (const token of source.match(/[A-Za-z0-9_]+/g) ?? []) {
    words.add(token);
    for (const part of token.split("__")) if (part !== "") words.add(part);
  }
  const parts = [...words].slice(0, 24);
  const samples = ["mcp__server__tool", "mcp__github__create_issue", "mcp__memory__read_graph"];
  for (const p of parts) {
    samples.push(`mcp__${p}`, `mcp__${p}__tool`, `mcp__server__${p}`);
    for (const q of parts) samples.push(`mcp__${p}__${q}`);
  }
  return samples;
}
