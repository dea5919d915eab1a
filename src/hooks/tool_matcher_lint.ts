/**
 * Tool matchers that can never fire in llama-agent: a settings file written for Claude Code
 * names `Bash`, `Edit|Write` or `Read`, and none of those is a tool of ours, so the hook silently
 * never runs. Pure: a matcher as written in, a warning message (or nothing) out.
 */
import {
  BUILT_IN_TOOL_NAMES,
  capabilityOf,
  CLAUDE_CODE_TOOLS,
  isMcpToolName,
  TOOL_ALIASES,
  type ToolCapability,
} from "../agent/tool_names.ts";
import { compileMatcher } from "./matcher.ts";

const OUR_TOOLS = `its tools are "shell", "fs_read", "fs_write" and "mcp__<server>__<tool>"`;

/** A list name that is an MCP tool name: `mcp__<server>__<tool>`. */
const MCP_TOOL_NAME = /^mcp__.+__.+$/;

/**
 * Why a matcher of a tool event (PreToolUse, PostToolUse, PostToolUseFailure) never matches a
 * tool llama-agent can call, or undefined when it can match one. An invalid regex is the
 * loader's diagnostic, not ours.
 */
export function toolMatcherProblem(source: string | undefined): string | undefined {
  const compiled = compileMatcher(source);
  if (!compiled.ok) return undefined;
  const { matcher } = compiled;
  switch (matcher.kind) {
    case "all":
      return undefined;
    case "list":
      return listProblem(source ?? "", matcher.names);
    case "regex":
      return regexProblem(source ?? "", matcher.regex);
    default:
      return matcher satisfies never;
  }
}

function listProblem(source: string, names: readonly string[]): string | undefined {
  if (names.length === 0) {
    return `Matcher "${source}" names no tool, so its hooks never run: name the tools, ` +
      `or use "*" for every tool`;
  }
  const live = names.filter(isLiveName);
  const dead = names.filter((name) => !isLiveName(name));
  if (dead.length === 0) return undefined;
  if (live.length === 0) {
    return `Matcher "${source}" never matches a llama-agent tool: ${advice(dead, new Set())}`;
  }
  // A file shared with Claude Code legitimately lists both names (`Bash|shell`): only a Claude
  // Code name whose equivalent is missing, or a name neither agent knows, is worth a word.
  const covered = new Set(live.map(capabilityOf).filter((c) => c !== undefined));
  const worth = dead.filter((name) => {
    const equivalent = claudeEquivalent(name);
    if (equivalent === undefined) return true;
    return equivalent !== null && !covered.has(equivalent);
  });
  if (worth.length === 0) return undefined;
  const verb = worth.length === 1 ? "never matches" : "never match";
  return `${quoteAll(worth)} in matcher "${source}" ${verb} a llama-agent tool: ` +
    advice(worth, covered, "add");
}

function isLiveName(name: string): boolean {
  return BUILT_IN_TOOL_NAMES.includes(name) || MCP_TOOL_NAME.test(name);
}

/**
 * The llama-agent capability a Claude Code tool maps to: a capability, null when llama-agent
 * has no such tool, undefined when the name is not a Claude Code tool at all.
 */
function claudeEquivalent(name: string): ToolCapability | null | undefined {
  if (!Object.hasOwn(CLAUDE_CODE_TOOLS, name)) return undefined;
  const equivalent = CLAUDE_CODE_TOOLS[name];
  return equivalent === null || equivalent === undefined ? null : capabilityOf(equivalent) ?? null;
}

/** What to write instead of the dead names, as clauses joined by "; ". */
function advice(
  dead: readonly string[],
  covered: ReadonlySet<ToolCapability>,
  verb: "use" | "add" = "use",
): string {
  const equivalents = new Set<ToolCapability>();
  const absent: string[] = [];
  let unknown = false;
  const hints: string[] = [];
  for (const name of dead) {
    const equivalent = claudeEquivalent(name);
    const near = BUILT_IN_TOOL_NAMES.find((tool) => tool.toLowerCase() === name.toLowerCase());
    if (equivalent) {
      if (!covered.has(equivalent)) equivalents.add(equivalent);
    } else if (equivalent === null) {
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
  const clauses = equivalents.size > 0 ? [useClause([...equivalents], verb)] : [];
  clauses.push(...hints);
  if (absent.length > 0) clauses.push(`llama-agent has no ${orList(absent)} tool`);
  if (unknown || (clauses.length === 1 && absent.length > 0)) clauses.push(OUR_TOOLS);
  return clauses.join("; ");
}

function useClause(capabilities: readonly ToolCapability[], verb: "use" | "add"): string {
  const canonical = capabilities.join("|");
  const withAliases = capabilities.flatMap((c) => [c, ...TOOL_ALIASES[c]]).join("|");
  return `${verb} "${canonical}" (or "${withAliases}")`;
}

function regexProblem(source: string, regex: RegExp): string | undefined {
  if (BUILT_IN_TOOL_NAMES.some((name) => regex.test(name))) return undefined;
  if (mcpSamples(source).some((name) => regex.test(name))) return undefined;
  const claude = Object.keys(CLAUDE_CODE_TOOLS).filter((name) => regex.test(name));
  const head = `Matcher "${source}" never matches a llama-agent tool`;
  if (claude.length === 0) return `${head}: ${OUR_TOOLS}`;
  return `${head}: it matches only Claude Code's ${quoteAll(claude)}; ` +
    advice(claude, new Set());
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

function quoteAll(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}

function orList(names: readonly string[]): string {
  const quoted = names.map((name) => `"${name}"`);
  if (quoted.length <= 1) return quoted.join("");
  return `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}
