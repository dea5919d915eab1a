/**
 * The permission policies, which are the session's ACP modes (acp.md "Permission policies"), and
 * the decision for one tool call: run it, ask the client, or refuse it.
 *
 * Order of precedence, first that applies:
 * 1. a `reject_always` answer earlier in the session → deny;
 * 2. in `rule-based` mode, a matching `deny` rule → deny (a configured deny is a hard line that an
 *    earlier "always allow" given in another mode does not lift);
 * 3. an `allow_always` answer earlier in the session → allow;
 * 4. the mode: `always-ask` asks; `auto-approve-reads` runs the tools that only look (read,
 *    glob, grep; any of their names) and asks for the rest; `rule-based` follows the first
 *    matching rule, and asks when none matches.
 *
 * Session answers are remembered per tool name as emitted ("adds an allow rule for that tool
 * name"), like a rule with that exact name as its matcher.
 */
import type { SessionMode, SessionModeState } from "@agentclientprotocol/sdk";
import { type PermissionRule, ruleDecision } from "./permission_rules.ts";
import { namesOfCapability } from "../../profile/compat_profile.ts";
import { CAPABILITIES, type ToolCapability } from "../../profile/tool_identity.ts";

export const PERMISSION_MODE_IDS = ["always-ask", "auto-approve-reads", "rule-based"] as const;
export type PermissionModeId = (typeof PERMISSION_MODE_IDS)[number];

export const DEFAULT_PERMISSION_MODE: PermissionModeId = "auto-approve-reads";

/** The `permission_mode` hooks receive (hooks.md §4); informational only. */
export type HookPermissionMode = "default" | "acceptEdits";

interface ModeSpec {
  readonly name: string;
  readonly description: string;
  readonly hookPermissionMode: HookPermissionMode;
}

export const PERMISSION_MODES: Readonly<Record<PermissionModeId, ModeSpec>> = {
  "always-ask": {
    name: "Always ask",
    description: "Ask before every tool call, reads included",
    hookPermissionMode: "default",
  },
  "auto-approve-reads": {
    name: "Auto-approve reads",
    description:
      "Read and search files without asking; ask before changing files, running commands or " +
      "using MCP tools",
    hookPermissionMode: "acceptEdits",
  },
  "rule-based": {
    name: "Rule-based",
    description: "Allow, ask or deny each tool by the rules file given with --rules; ask when " +
      "no rule matches",
    hookPermissionMode: "acceptEdits",
  },
};

export type PermissionDecision = "allow" | "ask" | "deny";

export function isPermissionModeId(value: string): value is PermissionModeId {
  return (PERMISSION_MODE_IDS as readonly string[]).includes(value);
}

export function hookPermissionMode(mode: PermissionModeId): HookPermissionMode {
  return PERMISSION_MODES[mode].hookPermissionMode;
}

/** The modes as ACP lists them (`availableModes`), in a stable order. */
export function sessionModes(): SessionMode[] {
  return PERMISSION_MODE_IDS.map((id) => ({
    id,
    name: PERMISSION_MODES[id].name,
    description: PERMISSION_MODES[id].description,
  }));
}

/** ACP's `modes` for `session/new` and friends. */
export function sessionModeState(current: PermissionModeId): SessionModeState {
  return { currentModeId: current, availableModes: sessionModes() };
}

export interface PermissionQuestion {
  readonly mode: PermissionModeId;
  /** The name the model emitted. */
  readonly toolName: string;
  /** Undefined for MCP tools. */
  readonly capability: ToolCapability | undefined;
  /** Rules of `rule-based` mode; ignored in the other modes. */
  readonly rules: readonly PermissionRule[];
  /** Tool names answered `allow_always` earlier in the session. */
  readonly alwaysAllowed: ReadonlySet<string>;
  /** Tool names answered `reject_always` earlier in the session. */
  readonly alwaysRejected: ReadonlySet<string>;
}

export function decidePermission(question: PermissionQuestion): PermissionDecision {
  const { mode, toolName } = question;
  if (question.alwaysRejected.has(toolName)) return "deny";
  const names = question.capability === undefined
    ? [toolName]
    : [toolName, ...namesOfCapability(question.capability)];
  const rule = mode === "rule-based" ? ruleDecision(question.rules, names) : undefined;
  if (rule === "deny") return "deny";
  if (question.alwaysAllowed.has(toolName)) return "allow";
  switch (mode) {
    case "always-ask":
      return "ask";
    case "auto-approve-reads":
      return question.capability !== undefined && CAPABILITIES[question.capability].readOnly
        ? "allow"
        : "ask";
    case "rule-based":
      return rule ?? "ask";
    default:
      return mode satisfies never;
  }
}
