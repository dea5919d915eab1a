/**
 * Handler-level `if` rules (claude-compat.md §7): one permission-rule-shaped condition per hook,
 * `Tool` or `Tool(pattern)`, tested against the tool call a firing is about. A rule that can
 * never match (unbalanced parenthesis, an alternation of rules, a regular expression, ...) is
 * kept as `invalid` with the reason, so the loader can run nothing for it and `hooks lint` can
 * say why.
 *
 * What Claude Code 2.1.332 does, and so what this does: the tool name is exact and
 * case-sensitive (the name the profile offers; a call under an alias is tested as the offered
 * tool); a command pattern is a prefix rule (`git commit:*` ≡ `git commit *`, which also matches
 * the bare `git commit`) or a glob over the whole command, tested against each sub-command the
 * shell would run (command_split.ts); a path pattern is a glob relative to the project (`//`
 * starts an absolute one) and anchored at its root when it has a `/` anywhere, and one without
 * `/` is tested against the file name at any depth.
 */
import { normalizePath } from "./path_text.ts";
import { compileGlob, type GlobMatcher } from "../../glob_pattern.ts";
import {
  type CompatProfile,
  type CompatProfileId,
  profileTool,
} from "../../profile/compat_profile.ts";
import { CAPABILITIES, isMcpToolName } from "../../profile/tool_identity.ts";
import { commandMatches } from "./command_pattern.ts";
import { splitCommand } from "./command_split.ts";

export type IfRule =
  | {
    readonly source: string;
    readonly toolName: string;
    /** The text inside the parentheses; null when the rule covers every call of the tool. */
    readonly pattern: string | null;
  }
  | {
    readonly source: string;
    /** Why the rule can never match, in words for a diagnostic. */
    readonly invalid: string;
  };

export interface IfRuleCall {
  readonly toolName: string;
  readonly toolInput: unknown;
}

export interface IfRuleContext {
  readonly profile: CompatProfile;
  /** The session's directory: relative path patterns and relative input paths start there. */
  readonly projectDir: string;
}

const TOOL_NAME = /^[A-Za-z0-9_-]+$/;
const ONE_RULE = `an "if" is one rule such as "Bash(git *)"`;

/** A rule as written in a handler's `if`; null for `""`, which behaves like no `if`. */
export function parseIfRule(source: string): IfRule | null {
  if (source === "") return null;
  const invalid = (why: string): IfRule => ({ source, invalid: why });
  const trimmed = source.trim();
  if (trimmed !== source && trimmed !== "") {
    const where = source.startsWith(trimmed) ? "Trailing space after" : "Leading space before";
    return invalid(`${where} the rule: write "${trimmed}"`);
  }
  const open = source.indexOf("(");
  const name = open === -1 ? source : source.slice(0, open);
  if (/\|\||[|,]/.test(name)) return invalid(`Alternation is not supported: ${ONE_RULE}`);
  if (!TOOL_NAME.test(name)) {
    return invalid(`"${name}" is not a tool name: ${ONE_RULE}, or "Bash" for every call`);
  }
  if (isMcpToolName(name) && !/^mcp__[^_].*__./.test(name)) {
    return invalid(`"${name}" names no MCP tool: write "mcp__<server>__<tool>"`);
  }
  if (open === -1) return { source, toolName: name, pattern: null };

  const close = matchingParenthesis(source, open);
  if (close === -1) return invalid(`Unbalanced parenthesis: close the pattern with ")"`);
  if (close !== source.length - 1) {
    const rest = source.slice(close + 1).trim();
    return /^(\|\||\||,)/.test(rest)
      ? invalid(`Alternation is not supported: ${ONE_RULE}; use one hook per rule`)
      : invalid(`Unexpected text after the pattern: "${rest}"`);
  }
  const pattern = source.slice(open + 1, close);
  if (pattern === "" || pattern === "*") return { source, toolName: name, pattern: null };
  if (isMcpToolName(name)) {
    return invalid(`An MCP tool takes no pattern: write "${name}" alone`);
  }
  if (pattern.startsWith("^") || /(^|[^\\])\$$/.test(pattern)) {
    return invalid(
      `"${pattern}" looks like a regular expression: patterns are globs, e.g. "echo *"`,
    );
  }
  return { source, toolName: name, pattern };
}

/** The index of the `)` that closes the `(` at `open`, or -1. */
function matchingParenthesis(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (char === "\\") i += 1;
    else if (char === "(") depth += 1;
    else if (char === ")" && --depth === 0) return i;
  }
  return -1;
}

/**
 * Whether a rule holds for one tool call. A rule names the tool the profile offers: a call
 * under an alias (`terminal` for `shell`) is the same tool, so a rule on `shell` holds for it
 * too; a rule on the alias holds only without a pattern, and only for that very name.
 */
export function ifRuleMatches(rule: IfRule, call: IfRuleCall, context: IfRuleContext): boolean {
  if ("invalid" in rule) return false;
  const tool = profileTool(context.profile, call.toolName);
  const offered = tool?.name ?? call.toolName;
  if (rule.pattern === null) return rule.toolName === offered || rule.toolName === call.toolName;
  if (rule.toolName !== offered || tool === undefined) return false;
  const pattern = rule.pattern;
  const subject = CAPABILITIES[tool.capability].ruleSubject;
  const values = fieldValues(call.toolInput, subject.field, context.profile.id);
  switch (subject.kind) {
    case "command":
      return values.some((value) => splitOnce(value).some((part) => commandMatches(pattern, part)));
    case "path":
      return values.some((value) => pathMatches(pattern, value, context.projectDir));
    default:
      return subject satisfies never;
  }
}

/**
 * The other input fields a profile's dispatcher reads for a rule's field: the llama profile
 * takes `path` for an absent `file_path`, so a path rule must see it too. Claude Code has none.
 */
const FIELD_ALIASES: Readonly<
  Record<CompatProfileId, Readonly<Record<string, readonly string[]>>>
> = {
  llama: { file_path: ["path"] },
  claude: {},
};

/** The string values of a field and its aliases (all of them, should a call give both). */
function fieldValues(input: unknown, field: string, profile: CompatProfileId): string[] {
  if (typeof input !== "object" || input === null) return [];
  const values: string[] = [];
  for (const name of [field, ...(FIELD_ALIASES[profile][field] ?? [])]) {
    const value: unknown = Object.hasOwn(input, name) ? Reflect.get(input, name) : undefined;
    if (typeof value === "string") values.push(value);
  }
  return values;
}

/**
 * Compiled path globs, kept: selection runs on every tool call, and each gated hook's rule would
 * otherwise be compiled again for every call. Bounded, since patterns come from settings files.
 */
const compiledGlobs = new Map<string, GlobMatcher>();
const MAX_COMPILED = 1024;

function matchesGlob(pattern: string, path: string): boolean {
  let regex = compiledGlobs.get(pattern);
  if (regex === undefined) {
    if (compiledGlobs.size >= MAX_COMPILED) compiledGlobs.clear();
    compiledGlobs.set(pattern, regex = compileGlob(pattern));
  }
  return regex.test(path);
}

/** One firing tests every gated hook against the same command: it is split once. */
let lastSplit: { readonly command: string; readonly parts: readonly string[] } | undefined;

function splitOnce(command: string): readonly string[] {
  if (lastSplit?.command !== command) lastSplit = { command, parts: splitCommand(command) };
  return lastSplit.parts;
}

/**
 * A path pattern against an input path. `//x` is the absolute `/x`; every other pattern is
 * relative to the project and never matches a path outside it. A pattern with a `/` anywhere
 * (`./` and a single leading `/` included) is anchored at the project's root; only one without
 * any `/` is tested against the file name at any depth.
 */
function pathMatches(pattern: string, inputPath: string, projectDir: string): boolean {
  const root = normalizePath(projectDir);
  const absolute = normalizePath(inputPath.startsWith("/") ? inputPath : `${root}/${inputPath}`);
  if (pattern.startsWith("//")) return matchesGlob(pattern.slice(1), absolute);
  const prefix = root === "/" ? "/" : `${root}/`;
  if (!absolute.startsWith(prefix)) return false;
  const relative = absolute.slice(prefix.length);
  const projectPattern = pattern.startsWith("./")
    ? pattern.slice(2)
    : pattern.startsWith("/")
    ? pattern.slice(1)
    : pattern;
  if (!pattern.includes("/")) {
    return matchesGlob(projectPattern, relative.slice(relative.lastIndexOf("/") + 1));
  }
  return matchesGlob(projectPattern, relative);
}
