/**
 * `--compat auto`: which profile a session presents, from the hooks that apply to it. A hook
 * votes for a profile when the tool names it is written with make it run in that profile and
 * never in the other: a matcher or an `if` rule (`neverRuns`, as `hooks lint` and `hooks list`
 * judge them) and, for command hooks, the `tool_name` checks `hooks lint` finds in the command and
 * its scripts. Hooks that name Claude Code's tools and none that name llama-agent's choose
 * `claude`; anything else (none, or both) keeps `llama`, the source document's contract. A hook
 * written for both worlds (`Bash|shell`) runs in either and votes for neither.
 *
 * Plugin directories asked for by name (`--plugin-dir`, a scenario's `pluginDirs`) vote for
 * `claude` too: plugins load only there, and choosing `llama` would drop what was asked for. So
 * does a Notification matcher that filters on Claude Code's notification types
 * (`permission_prompt`, `idle_prompt`), sent only there; llama-agent's (`agent_message`) vote
 * for `llama`.
 *
 * The evidence is gathered with the file reads passed in; the decision is a pure function of it.
 */
import { type CompatProfile, compatProfile } from "../profile/compat_profile.ts";
import { HOOK_EVENTS } from "./event_table.ts";
import {
  type HookEntry,
  neverRuns,
  type ReadScript,
  toolNameComparisons,
} from "./lint/foreign_tool_references.ts";
import { andList, ProfileNames } from "./lint/profile_name_lint.ts";
import { compileMatcher, matches } from "./matching/matcher.ts";
import { notificationTypes } from "../profile/notifications.ts";

const LLAMA = compatProfile("llama");
const CLAUDE = compatProfile("claude");
/** The claude profile's view of a name: whose tool it is (llama-agent's, Claude Code's). */
const CLAUDE_NAMES = new ProfileNames(CLAUDE);

/** Where the hooks name one world's tools: `matcher "Bash"`, `"if": "Bash(rm:*)"`, ... */
export interface ProfileEvidence {
  /** Written for Claude Code's tools (they never run under `llama`). */
  readonly claude: readonly string[];
  /** Written for llama-agent's own tools (they never run under `claude`). */
  readonly llama: readonly string[];
  /** Plugin directories were asked for by name: they load only under `claude`. */
  readonly pluginDirs?: boolean;
  /**
   * Notification matchers that match only Claude Code's types (`permission_prompt`), which only
   * `claude` sends; absent when none.
   */
  readonly claudeNotifications?: readonly string[];
  /** Notification matchers that match only llama-agent's types (`agent_message`). */
  readonly llamaNotifications?: readonly string[];
}

/** The profile a session presents, and why, in words for logs, notices and listings. */
export interface ProfileDecision {
  readonly profile: CompatProfile;
  /** Decided from the hooks (`auto`), rather than forced by a flag, variable or config key. */
  readonly auto: boolean;
  /** `the hooks name Claude Code's tools in matcher "Bash"`, or where a forced one was set. */
  readonly reason: string;
}

export interface EvidenceContext {
  /** `$CLAUDE_PROJECT_DIR` of the hooks: where their scripts are looked for. */
  readonly cwd: string;
  readonly readScript: ReadScript;
  /** Plugin directories asked for by name: they vote for `claude`. */
  readonly pluginDirs?: readonly string[];
}

/** What the hooks name, hook by hook, in chain order. */
export async function profileEvidence(
  hooks: readonly HookEntry[],
  context: EvidenceContext,
): Promise<ProfileEvidence> {
  const claude: string[] = [];
  const llama: string[] = [];
  const perHook = await Promise.all(hooks.map((entry) => hookEvidence(entry, context)));
  for (const found of perHook) {
    claude.push(...found.claude);
    llama.push(...found.llama);
  }
  const pluginDirs = (context.pluginDirs?.length ?? 0) > 0;
  const notifications = hooks.map(notificationVote);
  const claudeNotifications = unique(notifications.flatMap((v) => v?.claude ?? []));
  const llamaNotifications = unique(notifications.flatMap((v) => v?.llama ?? []));
  return {
    claude: unique(claude),
    llama: unique(llama),
    ...(pluginDirs ? { pluginDirs } : {}),
    ...(claudeNotifications.length > 0 ? { claudeNotifications } : {}),
    ...(llamaNotifications.length > 0 ? { llamaNotifications } : {}),
  };
}

const NOTIFICATION_TYPES = {
  claude: notificationTypes(CLAUDE.notifications),
  llama: notificationTypes(LLAMA.notifications),
};

/**
 * A Notification hook votes for the profile whose notification types its matcher filters on, as
 * a tool hook does for its tools: `permission_prompt` is sent only under `claude`.
 */
function notificationVote(entry: HookEntry): { claude?: string[]; llama?: string[] } | undefined {
  if (entry.event !== "Notification") return undefined;
  const compiled = compileMatcher(entry.matcherSource);
  if (!compiled.ok || compiled.matcher.kind === "all") return undefined;
  const { matcher } = compiled;
  const inClaude = NOTIFICATION_TYPES.claude.some((type) => matches(matcher, type));
  const inLlama = NOTIFICATION_TYPES.llama.some((type) => matches(matcher, type));
  const place = where(entry, "matcher");
  if (inClaude && !inLlama) return { claude: [place] };
  if (inLlama && !inClaude) return { llama: [place] };
  return undefined;
}

async function hookEvidence(entry: HookEntry, context: EvidenceContext): Promise<ProfileEvidence> {
  const claude: string[] = [];
  const llama: string[] = [];
  const inLlama = neverRuns(entry, LLAMA);
  const inClaude = neverRuns(entry, CLAUDE);
  if (inLlama?.foreign && inClaude === undefined) claude.push(where(entry, inLlama.cause));
  if (inClaude?.foreign && inLlama === undefined) llama.push(where(entry, inClaude.cause));
  const { handler } = entry;
  if (handler.type === "command" && HOOK_EVENTS[entry.event].matcherField === "tool_name") {
    const [forClaude, forLlama] = await Promise.all(
      [LLAMA, CLAUDE].map((profile) =>
        toolNameComparisons(handler, context.cwd, profile, context.readScript)
      ),
    );
    // Under `llama` every foreign name is Claude Code's; under `claude` only llama-agent's own
    // count (an old Claude Code name such as `MultiEdit` runs in neither).
    for (const found of forClaude ?? []) claude.push(comparisonWhere(found, found.names));
    for (const found of forLlama ?? []) {
      const names = found.names.filter((name) => CLAUDE_NAMES.foreign(name)?.owner === "llama");
      if (names.length > 0) llama.push(comparisonWhere(found, names));
    }
  }
  return { claude, llama };
}

function where(entry: HookEntry, cause: "matcher" | "if"): string {
  return cause === "matcher"
    ? `matcher "${entry.matcherSource ?? ""}"`
    : `"if": "${entry.ifRule?.source ?? ""}"`;
}

function comparisonWhere(
  found: { readonly script: string | undefined },
  names: readonly string[],
): string {
  const compared = `tool_name ${andList(names.map((name) => `"${name}"`))}`;
  return `${compared} in ${found.script === undefined ? "a command" : found.script}`;
}

const SHOWN = 3;

/** `auto`'s choice: pure. */
export function decideProfile(evidence: ProfileEvidence): ProfileDecision {
  const { claude, llama } = evidence;
  const claudeNotes = evidence.claudeNotifications ?? [];
  const llamaNotes = evidence.llamaNotifications ?? [];
  const forClaude = [
    ...(claude.length > 0 ? [`the hooks name Claude Code's tools in ${shown(claude)}`] : []),
    ...(claudeNotes.length > 0
      ? [`the hooks wait for Claude Code's notification types in ${shown(claudeNotes)}`]
      : []),
    ...(evidence.pluginDirs
      ? ["--plugin-dir asks for plugins, which load only with Claude Code's tools"]
      : []),
  ].join(", and ");
  const forLlama = [
    ...(llama.length > 0 ? [`llama-agent's tools in ${shown(llama)}`] : []),
    ...(llamaNotes.length > 0 ? [`llama-agent's notification types in ${shown(llamaNotes)}`] : []),
  ].join(" and ");
  if (forClaude !== "" && forLlama === "") {
    return { profile: CLAUDE, auto: true, reason: forClaude };
  }
  if (forClaude !== "") {
    return {
      profile: LLAMA,
      auto: true,
      reason: `${forClaude}, but the hooks also name ${forLlama}; ` +
        "pass --compat claude to offer Claude Code's",
    };
  }
  return {
    profile: LLAMA,
    auto: true,
    reason: forLlama !== "" ? `the hooks name ${forLlama}` : "no hook names Claude Code's tools",
  };
}

/** A forced profile's decision: `origin` is where it was set (`--compat`, a variable, a file). */
export function forcedDecision(profile: CompatProfile, origin: string): ProfileDecision {
  return { profile, auto: false, reason: `set by ${origin}` };
}

/** `claude (auto: the hooks name Claude Code's tools in matcher "Bash")` */
export function describeDecision(decision: ProfileDecision): string {
  return `${decision.profile.id} (${decision.auto ? "auto: " : ""}${decision.reason})`;
}

function shown(places: readonly string[]): string {
  const first = places.slice(0, SHOWN).join(", ");
  return places.length > SHOWN ? `${first}, and ${places.length - SHOWN} more` : first;
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
