/**
 * Handler-level `if` rules (claude-compat.md §7): one permission-rule-shaped condition per hook,
 * `Tool` or `Tool(pattern)`, tested against the tool call a firing is about. A rule that can
 * never match (unbalanced parenthesis, an alternation of rules, a regular expression, ...) is
 * kept as `invalid` with the reason, so the loader can run nothing for it and `hooks lint` can
 * say why.
 *
 * What Claude Code 2.1.332 does, and so what this does: the tool name is exact and
 * case-sensitive (the name the profile offers, never an alias); a command pattern is a prefix
 * rule (`git commit:*` ≡ `git commit *`, which also matches the bare `git commit`) or a glob over
 * the whole command, tested against each sub-command of a compound command; a path pattern is a
 * glob relative to the project (`//` starts an absolute one), and one without `/` is tested
 * against the file name at any depth.
 */
import { globToRegExp } from "../glob_pattern.ts";
import { type CompatProfile, profileTool } from "../profile/compat_profile.ts";
import { CAPABILITIES, isMcpToolName } from "../profile/tool_identity.ts";

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

/** Whether a rule holds for one tool call. */
export function ifRuleMatches(rule: IfRule, call: IfRuleCall, context: IfRuleContext): boolean {
  if ("invalid" in rule) return false;
  if (rule.toolName !== call.toolName) return false;
  if (rule.pattern === null) return true;
  const tool = profileTool(context.profile, call.toolName);
  // A pattern names part of a built-in tool's input; aliases are other names, not rule names.
  if (tool === undefined || tool.name !== call.toolName) return false;
  const subject = CAPABILITIES[tool.capability].ruleSubject;
  const value = fieldOf(call.toolInput, subject.field);
  if (value === undefined) return false;
  switch (subject.kind) {
    case "command":
      return splitOnce(value).some((part) => commandMatches(rule.pattern ?? "", part));
    case "path":
      return pathMatches(rule.pattern, value, context.projectDir);
    default:
      return subject satisfies never;
  }
}

function fieldOf(input: unknown, field: string): string | undefined {
  if (typeof input !== "object" || input === null || !Object.hasOwn(input, field)) return undefined;
  const value: unknown = Reflect.get(input, field);
  return typeof value === "string" ? value : undefined;
}

/**
 * Compiled patterns, kept: selection runs on every tool call, and each gated hook's rule would
 * otherwise be compiled again for every call. Bounded, since patterns come from settings files.
 */
const compiled = new Map<string, RegExp>();
const MAX_COMPILED = 1024;

function cachedRegExp(key: string, build: () => RegExp): RegExp {
  let regex = compiled.get(key);
  if (regex === undefined) {
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, regex = build());
  }
  return regex;
}

function matchesGlob(pattern: string, path: string): boolean {
  return cachedRegExp(`glob:${pattern}`, () => globToRegExp(pattern)).test(path);
}

/** One firing tests every gated hook against the same command: it is split once. */
let lastSplit: { readonly command: string; readonly parts: readonly string[] } | undefined;

function splitOnce(command: string): readonly string[] {
  if (lastSplit?.command !== command) lastSplit = { command, parts: splitCommand(command) };
  return lastSplit.parts;
}

/**
 * The sub-commands of a command line, split on `&&`, `||`, `;`, `|` and newlines outside quotes,
 * trimmed, empty ones dropped.
 */
export function splitCommand(command: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < command.length; i++) {
    const char = command[i] ?? "";
    if (quote === "'") {
      if (char === "'") quote = null;
      current += char;
    } else if (char === "\\" && i + 1 < command.length) {
      current += char + command[i + 1];
      i += 1;
    } else if (quote === '"') {
      if (char === '"') quote = null;
      current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      current += char;
    } else if (char === ";" || char === "\n" || char === "|" || char === "&") {
      const pair = command[i + 1] === char && (char === "|" || char === "&");
      if (char === "&" && !pair) {
        current += char;
        continue;
      }
      parts.push(current);
      current = "";
      if (pair) i += 1;
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

/**
 * One sub-command against a command pattern: `prefix:*` and `prefix *` match the prefix alone
 * or followed by a space and anything; any other `*` matches any text; no `*` means the exact
 * command.
 */
function commandMatches(pattern: string, command: string): boolean {
  return cachedRegExp(`command:${pattern}`, () => commandRegExp(pattern)).test(command);
}

function commandRegExp(pattern: string): RegExp {
  const glob = pattern.endsWith(":*") ? `${pattern.slice(0, -2)} *` : pattern;
  let body = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? "";
    if (char === "\\" && (glob[i + 1] === "*" || glob[i + 1] === "\\")) {
      body += escapeRegExp(glob[i + 1] ?? "");
      i += 1;
    } else if (char === " " && glob[i + 1] === "*" && i + 2 === glob.length) {
      body += "(?: [\\s\\S]*)?";
      i += 1;
    } else if (char === "*") {
      body += "[\\s\\S]*";
    } else {
      body += escapeRegExp(char);
    }
  }
  return new RegExp(`^${body}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * A path pattern against an input path. `//x` is the absolute `/x`; every other pattern is
 * relative to the project (`./` and a single leading `/` say so explicitly) and never matches a
 * path outside it; a pattern without `/` is tested against the file name at any depth.
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
  if (!projectPattern.includes("/")) {
    return matchesGlob(projectPattern, relative.slice(relative.lastIndexOf("/") + 1));
  }
  return matchesGlob(projectPattern, relative);
}

/** An absolute path with `.`, `..` and repeated or trailing `/` resolved. */
function normalizePath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`;
}
