/**
 * Every hook event kind llama-agent knows, and what it does with each: one table that the
 * settings loader, the runtime, `hooks list`, `hooks lint` and `hooks test` all read.
 */

/** How llama-agent treats an event kind found in a settings file. */
export type EventGroup =
  /** Fired at an ACP seam. */
  | "fired"
  /** Accepted in the file; no registration is created. */
  | "dropped"
  /** A registration exists, but no seam ever fires it. */
  | "never_emitted"
  /** A newer Claude Code kind: accepted quietly, shown as "not supported here". */
  | "unsupported";

/** The payload field a matcher is tested against, or null when the matcher is ignored. */
export type MatcherField =
  | "tool_name"
  | "source"
  | "notification_type"
  | "reason"
  | "trigger"
  | null;

export interface EventSpec {
  /** The group in the default profile; a profile's `extraEvents` make an event fire there. */
  readonly group: EventGroup;
  readonly matcherField: MatcherField;
  /** Whether exit 2 / `decision:"block"` / `ok:false` has an effect on this event. */
  readonly blockable: boolean;
  /**
   * Whether exit 2 is a block (which a `blockable` event obeys and any other reports). Claude
   * Code reads a PermissionRequest hook's answer from its JSON only: exit 2 there is an error
   * that decides nothing (the user is asked, as when no hook decided).
   */
  readonly readsExitTwo: boolean;
  /** Fields `hookSpecificOutput` may carry for this event (besides `hookEventName`). */
  readonly specificOutput: readonly string[];
  /** Default timeout in seconds for command and http handlers. */
  readonly commandTimeoutSec: number;
}

const DEFAULT_TIMEOUT_SEC = 600;

function fired(
  matcherField: MatcherField,
  blockable: boolean,
  specificOutput: readonly string[],
  commandTimeoutSec = DEFAULT_TIMEOUT_SEC,
): EventSpec & { readonly group: "fired" } {
  return {
    group: "fired",
    matcherField,
    blockable,
    readsExitTwo: true,
    specificOutput,
    commandTimeoutSec,
  };
}

function notFired(group: Exclude<EventGroup, "fired">): EventSpec {
  return {
    group,
    matcherField: null,
    blockable: false,
    readsExitTwo: true,
    specificOutput: [],
    commandTimeoutSec: DEFAULT_TIMEOUT_SEC,
  };
}

/**
 * An event the source document does not fire, which a profile may (its `extraEvents`): outside
 * that profile it behaves as `group`; in it, as a fired event with these fields.
 */
function profileEvent(
  group: Exclude<EventGroup, "fired">,
  matcherField: MatcherField,
  blockable: boolean,
  specificOutput: readonly string[],
  commandTimeoutSec = DEFAULT_TIMEOUT_SEC,
  readsExitTwo = true,
): EventSpec {
  return { group, matcherField, blockable, readsExitTwo, specificOutput, commandTimeoutSec };
}

const CONTEXT = ["additionalContext"] as const;

export const HOOK_EVENTS = {
  SessionStart: fired("source", false, ["additionalContext", "initialUserMessage"]),
  UserPromptSubmit: fired(null, true, CONTEXT, 30),
  PreToolUse: fired("tool_name", true, [
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "additionalContext",
  ]),
  PostToolUse: fired("tool_name", true, ["additionalContext", "updatedToolOutput"]),
  PostToolUseFailure: fired("tool_name", true, CONTEXT),
  Notification: fired("notification_type", false, CONTEXT),
  Stop: fired(null, true, ["reason", "additionalContext"]),

  // Claude Code reads `hookSpecificOutput.decision` ({behavior, message, updatedInput, interrupt});
  // exit 2 decides nothing there (2.1.332: the model read Claude Code's own refusal, not stderr).
  PermissionRequest: profileEvent(
    "dropped",
    "tool_name",
    true,
    ["decision"],
    DEFAULT_TIMEOUT_SEC,
    false,
  ),
  SubagentStart: notFired("dropped"),
  SubagentStop: notFired("dropped"),
  // Blocks the compaction (exit 2, `decision:"block"`, `continue:false`); its plain stdout is
  // added to the summary's instructions. No `hookSpecificOutput`: Claude Code rejects one.
  PreCompact: profileEvent("dropped", "trigger", true, []),
  Setup: notFired("dropped"),
  // Observational: the session is over, nothing a hook says changes it. 1.5 s each, as Claude
  // Code >= 2.1.74: the agent is exiting (a hook's own `timeout` raises that, session_end_hooks.ts).
  SessionEnd: profileEvent("dropped", "reason", false, [], 1.5),

  // Observational: the compaction is done; exit 2 and plain stdout reach the user only.
  PostCompact: profileEvent("never_emitted", "trigger", false, []),
  TeammateIdle: notFired("never_emitted"),
  TaskCompleted: notFired("never_emitted"),
  Elicitation: notFired("never_emitted"),
  ElicitationResult: notFired("never_emitted"),
  InstructionsLoaded: notFired("never_emitted"),
  ConfigChange: notFired("never_emitted"),
  WorktreeCreate: notFired("never_emitted"),
  WorktreeRemove: notFired("never_emitted"),

  PostToolBatch: profileEvent("unsupported", null, true, CONTEXT),
  UserPromptExpansion: notFired("unsupported"),
  StopFailure: notFired("unsupported"),
  PermissionDenied: notFired("unsupported"),
  TaskCreated: notFired("unsupported"),
  CwdChanged: notFired("unsupported"),
  FileChanged: notFired("unsupported"),
  DirectoryAdded: notFired("unsupported"),
  MessageDisplay: notFired("unsupported"),
  PreModelSwitch: notFired("unsupported"),
  PostModelSwitch: notFired("unsupported"),
  PreSkillShellCommand: notFired("unsupported"),
} as const satisfies Record<string, EventSpec>;

export type HookEventName = keyof typeof HOOK_EVENTS;

/** The events a profile may add to the fired ones (compat_profile.ts `extraEvents`). */
export const PROFILE_EVENTS = [
  "PermissionRequest",
  "SessionEnd",
  "PostToolBatch",
  "PreCompact",
  "PostCompact",
] as const;
export type ProfileEventName = (typeof PROFILE_EVENTS)[number];

/** The events some seam of the agent fires, in the default profile or in another. */
export type FiredEventName =
  | {
    [K in HookEventName]: (typeof HOOK_EVENTS)[K]["group"] extends "fired" ? K : never;
  }[HookEventName]
  | ProfileEventName;

/** The events that fire in the default profile. */
export const FIRED_EVENTS: readonly FiredEventName[] = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "Notification",
  "Stop",
];

/** The events some profile fires: the default seven, then every profile's own. */
export const EVENTS_FIRED_SOMEWHERE: readonly FiredEventName[] = [
  ...FIRED_EVENTS,
  ...PROFILE_EVENTS,
];

export function isHookEventName(name: string): name is HookEventName {
  return Object.hasOwn(HOOK_EVENTS, name);
}

/** Whether some profile fires `name` (`hooks test` takes these, each under its profile). */
export function isFiredSomewhere(name: string): name is FiredEventName {
  return (EVENTS_FIRED_SOMEWHERE as readonly string[]).includes(name);
}

export function isProfileEvent(name: string): name is ProfileEventName {
  return (PROFILE_EVENTS as readonly string[]).includes(name);
}

/** What a profile says about events: which of `PROFILE_EVENTS` it fires. */
export interface EventProfile {
  readonly extraEvents: readonly string[];
}

const DEFAULT_EVENTS: EventProfile = { extraEvents: [] };

/** An event's group under a profile: its table group, unless the profile fires it. */
export function eventGroup(
  name: HookEventName,
  profile: EventProfile = DEFAULT_EVENTS,
): EventGroup {
  return profile.extraEvents.includes(name) ? "fired" : HOOK_EVENTS[name].group;
}

/** The events that fire under a profile: the default seven, then the profile's own. */
export function firedEvents(profile: EventProfile = DEFAULT_EVENTS): readonly FiredEventName[] {
  if (profile.extraEvents.length === 0) return FIRED_EVENTS;
  return [...FIRED_EVENTS, ...PROFILE_EVENTS.filter((name) => profile.extraEvents.includes(name))];
}

export function isFiredEvent(
  name: string,
  profile: EventProfile = DEFAULT_EVENTS,
): name is FiredEventName {
  return isHookEventName(name) && eventGroup(name, profile) === "fired";
}

/** Words for a group, as `hooks list` shows them. */
export function describeGroup(group: EventGroup): string {
  switch (group) {
    case "fired":
      return "fires";
    case "dropped":
      return "dropped (never fires in llama-agent)";
    case "never_emitted":
      return "never emitted (registered, no seam fires it)";
    case "unsupported":
      return "not supported here (a newer Claude Code event)";
    default:
      return group satisfies never;
  }
}
