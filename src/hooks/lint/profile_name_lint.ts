/**
 * What a tool name written in a settings file means under one compatibility profile: a name the
 * profile's dispatcher accepts (so matchers and `if` rules can see it), a name of the other
 * world (Claude Code's `Bash` under `llama`, llama-agent's own `shell` under `claude`) with the
 * capability it stands for, or neither. And the words every lint uses for the two worlds, so a
 * matcher, an `if` rule and a script get the same advice.
 */
import { CLAUDE_CODE_TOOLS, claudeCodeCapability } from "../../profile/claude_code_tools.ts";
import {
  acceptedToolNames,
  capabilityOf,
  type CompatProfile,
  compatProfile,
  toolNameOf,
} from "../../profile/compat_profile.ts";
import type { ToolCapability } from "../../profile/tool_identity.ts";

/** Whose name a foreign one is: Claude Code's, or llama-agent's own (profile `llama`). */
export type NameOwner = "claude-code" | "llama";

export interface ForeignName {
  readonly name: string;
  readonly owner: NameOwner;
  /** The capability it stands for; null for a Claude Code tool llama-agent does not have. */
  readonly capability: ToolCapability | null;
}

/** A list name that is an MCP tool name: `mcp__<server>__<tool>`. */
const MCP_TOOL_NAME = /^mcp__.+__.+$/;

const LLAMA = compatProfile("llama");

export class ProfileNames {
  readonly accepted: readonly string[];

  constructor(readonly profile: CompatProfile) {
    this.accepted = acceptedToolNames(profile);
  }

  /** Whether a matcher list name can equal an emitted tool name here. */
  isLive(name: string): boolean {
    return this.accepted.includes(name) || MCP_TOOL_NAME.test(name);
  }

  /** The capability a name accepted here calls. */
  capabilityHere(name: string): ToolCapability | undefined {
    return capabilityOf(this.profile, name);
  }

  /** The name this profile offers for a capability. */
  nameHere(capability: ToolCapability): string {
    return toolNameOf(this.profile, capability);
  }

  /** A name of the other world, or undefined when the name is live here or nobody's. */
  foreign(name: string): ForeignName | undefined {
    if (this.isLive(name)) return undefined;
    if (this.profile.id === "claude") {
      const ours = capabilityOf(LLAMA, name);
      if (ours !== undefined) return { name, owner: "llama", capability: ours };
    }
    const claude = claudeCodeCapability(name);
    return claude === undefined ? undefined : { name, owner: "claude-code", capability: claude };
  }

  /** Every name of the other world (Claude Code's tools we lack included). */
  foreignNames(): string[] {
    const claudeNames = Object.keys(CLAUDE_CODE_TOOLS);
    const candidates = this.profile.id === "llama"
      ? claudeNames
      : [...acceptedToolNames(LLAMA), ...claudeNames];
    return candidates.filter((name) => this.foreign(name) !== undefined);
  }

  /** A name accepted here that differs from `name` only in case. */
  nearMiss(name: string): string | undefined {
    return this.accepted.find((tool) => tool.toLowerCase() === name.toLowerCase());
  }

  /** "a llama-agent tool" / "a tool of llama-agent --compat claude". */
  get aTool(): string {
    return this.profile.id === "llama" ? "a llama-agent tool" : "a tool of --compat claude";
  }

  /** What switching profile does, as the last clause of an advice. */
  get switchAdvice(): string {
    return this.profile.id === "llama"
      ? "or run llama-agent with --compat claude, which offers Claude Code's tool names"
      : "or run llama-agent without --compat claude";
  }

  /**
   * Where a matcher that lists both names works, or "" when the foreign names are not the other
   * profile's (an old Claude Code name such as `MultiEdit` under `claude`).
   */
  bothPlaces(foreign: readonly ForeignName[]): string {
    const other: NameOwner = this.profile.id === "llama" ? "claude-code" : "llama";
    if (!foreign.every((name) => name.owner === other)) return "";
    return this.profile.id === "llama"
      ? "to match in both Claude Code and llama-agent"
      : "to match with and without --compat claude";
  }

  /** The profile's own tools, for "its tools are ...". */
  get ourTools(): string {
    const names = this.profile.tools.map((tool) => `"${tool.name}"`).join(", ");
    const whose = this.profile.id === "llama"
      ? "its tools are"
      : "its tools under --compat claude are";
    return `${whose} ${names} and "mcp__<server>__<tool>"`;
  }

  /** `"Bash" is Claude Code's name for "shell"`, for one or more foreign names. */
  describeForeign(names: readonly ForeignName[]): string {
    const known = names.filter((n) => n.capability !== null);
    const subject = andList(known.map((n) => `"${n.name}"`));
    const capabilities = unique(known.flatMap((n) => n.capability === null ? [] : [n.capability]));
    const targets = andList(capabilities.map((c) => `"${this.nameHere(c)}"`));
    const plural = known.length > 1;
    const owner = known.every((n) => n.owner === "llama")
      ? "llama-agent's own"
      : this.profile.id === "claude"
      ? "old Claude Code"
      : "Claude Code's";
    const article = owner === "old Claude Code" ? (plural ? "" : "an ") : "";
    return `${subject} ${plural ? "are" : "is"} ${article}${owner} ${plural ? "names" : "name"} ` +
      `for ${targets}`;
  }

  /** "Claude Code's tool" / "llama-agent's own tools", for short reasons. */
  ownerWords(names: readonly ForeignName[]): string {
    const tools = names.length === 1 ? "tool" : "tools";
    return names.every((n) => n.owner === "llama")
      ? `llama-agent's own ${tools}`
      : `Claude Code's ${tools}`;
  }

  /** The advice of a short reason: switch profile (where that helps), fix or change it. */
  shortAdvice(foreign: readonly ForeignName[], fixable: boolean): string {
    const fix = fixable ? "hooks lint --fix" : "change it";
    if (this.bothPlaces(foreign) === "") return fixable ? `run ${fix}` : fix;
    const run = this.profile.id === "llama"
      ? "run with --compat claude"
      : "run without --compat claude";
    return `${run} or ${fix}`;
  }
}

export function andList(words: readonly string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

export function orList(words: readonly string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

export function quoteAll(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
