/**
 * Which tool call a tool hook's case makes: a tool its matcher lets through (the profile's own
 * tools first, then an MCP tool the matcher names) and, for a hook with an `if` rule, an input
 * the rule holds for. Pure; every choice is checked with the same matcher and rule code a
 * session uses, so a case never claims a hook runs when it would not.
 */
import { ifRuleMatches } from "../../hooks/matching/if_rule.ts";
import { matches } from "../../hooks/matching/matcher.ts";
import type { Registration } from "../../hooks/registration.ts";
import {
  acceptedToolNames,
  type CompatProfile,
  profileTool,
  toolNameOf,
} from "../../profile/compat_profile.ts";
import { isMcpToolName, type ToolCapability } from "../../profile/tool_identity.ts";
import { harmlessCall, type ToolCallExample } from "./scaffold_inputs.ts";

export interface ChosenTool {
  /** As the model would emit it (and as `tool_name` carries it). */
  readonly name: string;
  readonly capability: ToolCapability | "mcp";
}

export type ToolChoice =
  | { readonly ok: true; readonly tool: ChosenTool; readonly call: ToolCallExample }
  | { readonly ok: false; readonly why: string };

/** The tool and the harmless (or `if`-satisfying) call of a tool hook's case. */
export function chooseToolCall(
  registration: Registration,
  profile: CompatProfile,
  projectDir: string,
): ToolChoice {
  const tool = chooseTool(registration, profile);
  if (tool === undefined) {
    return {
      ok: false,
      why: `its matcher "${registration.matcherSource}" lets through no tool init can call`,
    };
  }
  const rule = registration.ifRule;
  if (rule === null) return { ok: true, tool, call: harmlessCall(tool.capability) };
  if ("invalid" in rule) return { ok: false, why: `its "if" never matches: ${rule.invalid}` };
  const candidates = [
    ...(rule.pattern === null
      ? []
      : [{ ...callForPattern(rule.pattern, tool.capability), forRule: rule.source }]),
    harmlessCall(tool.capability),
  ];
  const call = candidates.find((candidate) =>
    ifRuleMatches(rule, { toolName: tool.name, toolInput: candidate.input }, {
      profile,
      projectDir,
    })
  );
  if (call === undefined) {
    return {
      ok: false,
      why: `init found no ${tool.name} call that its "if" "${rule.source}" holds for`,
    };
  }
  return { ok: true, tool, call };
}

/** Whether a call of `tool` with `input` runs the registration (matcher and `if`). */
export function letsThrough(
  registration: Registration,
  tool: ChosenTool,
  input: unknown,
  profile: CompatProfile,
  projectDir: string,
): boolean {
  if (!matches(registration.matcher, tool.name)) return false;
  const rule = registration.ifRule;
  if (rule === null) return true;
  return ifRuleMatches(rule, { toolName: tool.name, toolInput: input }, { profile, projectDir });
}

function chooseTool(registration: Registration, profile: CompatProfile): ChosenTool | undefined {
  const rule = registration.ifRule;
  const ruleTool = rule !== null && !("invalid" in rule) ? rule.toolName : undefined;
  const candidates = ruleTool !== undefined
    ? [ruleTool]
    : registration.matcher.kind === "all"
    ? [toolNameOf(profile, "shell")]
    : registration.matcher.kind === "list"
    ? [...registration.matcher.names]
    : [...acceptedToolNames(profile), literalOf(registration.matcher.regex)];
  const through = candidates.filter((name) => matches(registration.matcher, name));
  // The name the profile offers beats an alias: it is what the model calls.
  const offered = through.find((name) => profile.tools.some((tool) => tool.name === name));
  const known = offered ?? through.find((name) => profileTool(profile, name) !== undefined);
  if (known !== undefined) {
    return { name: known, capability: profileTool(profile, known)!.capability };
  }
  const mcp = through.find(isMcpToolName);
  return mcp === undefined ? undefined : { name: mcp, capability: "mcp" };
}

/** `^mcp__github__.*` → `mcp__github__tool`: a name such a regex most likely means. */
function literalOf(regex: RegExp): string {
  return regex.source.replace(/^\^|\$$/g, "").replace(/\.[*+]/g, "tool").replace(/\\/g, "");
}

/** A call an `if` pattern was written for: `git commit:*` → `git commit -m "wip"`. */
function callForPattern(pattern: string, capability: ToolCapability | "mcp"): ToolCallExample {
  const harmless = harmlessCall(capability);
  if (capability === "shell") {
    const prefix = pattern.replace(/:\*$/, "").replace(/\s*\*$/, "");
    const command = prefix.replace(/\*/g, "x") + (/^git commit\b/.test(prefix) ? ' -m "wip"' : "");
    return { input: { command }, shown: command, dangerous: false };
  }
  const path = pattern.replace(/^\/\//, "/").replace(/\*\*\//g, "").replace(/\*\*/g, "src")
    .replace(/\*/g, "example");
  const field = "file_path" in harmless.input ? "file_path" : "path";
  return { input: { ...harmless.input, [field]: path }, shown: path, dangerous: false };
}
