/**
 * The registry: every registration of a session, indexed per event, and the selection of the
 * registrations one firing runs. Built once per session; selection runs on every tool call, so
 * everything it can precompute (per-event lists, handler identities) is computed here.
 *
 * Dedup rule (hooks.md §1, Claude Code: "if you define the same handler in more than one
 * settings file, it runs once"; a plugin's hooks are deduplicated only among themselves,
 * claude-compat.md §6a): at firing time, among the registrations of the event whose matcher
 * accepts the value, the first of each handler identity in chain order runs; later ones are
 * reported as duplicates. Dedup comes after matching, so a copy under a matcher that does
 * not apply never hides one that does. A handler's `if` rule is part of its identity, as in
 * Claude Code: the same command under two different rules is two handlers, and a call both
 * rules match runs it twice (one spawn per matching handler).
 */
import type { CompatProfile } from "../profile/compat_profile.ts";
import { type EventGroup, HOOK_EVENTS, type HookEventName, isProfileEvent } from "./event_table.ts";
import { type HandlerConfig, handlerIdentity } from "./handler_config.ts";
import { ifRuleMatches } from "./matching/if_rule.ts";
import { matches } from "./matching/matcher.ts";
import type { Registration, SourceLocation } from "./registration.ts";
import { registrationId } from "./registration_id.ts";
import type { LoadedSettings } from "./settings/settings_chain.ts";

/** Why a valid settings entry has no registration. */
export type NotRegisteredStatus =
  | Extract<EventGroup, "dropped" | "unsupported">
  /** `disableAllHooks: true` in some file of the chain. */
  | "disabled";

export interface NotRegistered {
  readonly event: HookEventName;
  readonly status: NotRegisteredStatus;
  /** Words for `hooks list`, e.g. `disabled by "disableAllHooks": true in "<file>"`. */
  readonly reason: string;
  readonly matcherSource: string | undefined;
  /** Undefined when the entry is an event that lists no usable handler. */
  readonly handler: HandlerConfig | undefined;
  readonly source: SourceLocation;
}

/** A registration with its handler identity, computed once at build time. */
export interface Candidate {
  readonly registration: Registration;
  readonly identity: string;
}

export interface Registry {
  /** Every registration in chain order; `order` is the index here. */
  readonly registrations: readonly Registration[];
  readonly notRegistered: readonly NotRegistered[];
  /** Files that say `"disableAllHooks": true`; when non-empty there are no registrations. */
  readonly disabledBy: readonly string[];
  /** The precomputed index selection reads: per event, in chain order. */
  readonly byEvent: ReadonlyMap<HookEventName, readonly Candidate[]>;
}

export interface Unmatched {
  readonly registration: Registration;
  /** e.g. `matcher "Bash" does not match "shell"`, `duplicate of user:/hooks/PreToolUse/0/hooks/0` */
  readonly reason: string;
}

export interface Selection {
  /** The registrations to run, in chain order. */
  readonly matched: readonly Registration[];
  /** The event's other registrations, in chain order, each with why it does not run. */
  readonly unmatched: readonly Unmatched[];
}

export function buildRegistry(
  loaded: Pick<LoadedSettings, "handlers" | "skipped" | "disabledBy">,
): Registry {
  const notRegistered: NotRegistered[] = loaded.skipped.map((entry) => ({
    event: entry.event,
    status: entry.group,
    reason: isProfileEvent(entry.event)
      ? `"${entry.event}" fires only with --compat claude; the llama profile drops it`
      : entry.group === "dropped"
      ? `dropped: "${entry.event}" is accepted but never fires in llama-agent`
      : `"${entry.event}" is a newer Claude Code event, not supported here`,
    matcherSource: entry.matcherSource,
    handler: entry.handler,
    source: entry.source,
  }));

  if (loaded.disabledBy.length > 0) {
    const files = loaded.disabledBy.map((file) => `"${file}"`).join(", ");
    const reason = `Disabled by "disableAllHooks": true in ${files}`;
    for (const { event, matcherSource, handler, source } of loaded.handlers) {
      notRegistered.push({ event, status: "disabled", reason, matcherSource, handler, source });
    }
    return { registrations: [], notRegistered, disabledBy: loaded.disabledBy, byEvent: new Map() };
  }

  const registrations: Registration[] = [];
  const byEvent = new Map<HookEventName, Candidate[]>();
  for (const entry of loaded.handlers) {
    const registration: Registration = {
      id: registrationId(entry.source),
      event: entry.event,
      matcherSource: entry.matcherSource,
      matcher: entry.matcher,
      handler: entry.handler,
      ifRule: entry.ifRule,
      source: entry.source,
      order: registrations.length,
    };
    registrations.push(registration);
    const candidates = byEvent.get(entry.event);
    const candidate = { registration, identity: sourceIdentity(entry.source, entry.handler) };
    if (candidates === undefined) byEvent.set(entry.event, [candidate]);
    else candidates.push(candidate);
  }
  return { registrations, notRegistered, disabledBy: [], byEvent };
}

/**
 * What dedup compares. Settings files share one space (the same handler in two files runs
 * once); each plugin has its own, so a plugin hook is never a duplicate of a settings hook or of
 * another plugin's (claude-compat.md §6a: an identical command in both runs twice).
 */
function sourceIdentity(source: SourceLocation, handler: HandlerConfig): string {
  const identity = handlerIdentity(handler);
  return source.plugin === undefined ? identity : `plugin ${source.plugin.id} ${identity}`;
}

const NOTHING: Selection = Object.freeze({
  matched: Object.freeze([]),
  unmatched: Object.freeze([]),
});

/** What an `if` rule is tested against on a tool event, besides the tool name. */
export interface IfSubject {
  readonly profile: CompatProfile;
  /** The session's directory: relative path patterns start there. */
  readonly projectDir: string;
  readonly toolInput: unknown;
}

/**
 * The registrations one firing runs. `matcherValue` is the value the event's matcher is tested
 * against (`tool_name`, `source`, `notification_type`), or null where the matcher is ignored.
 * `subject` is the tool call an `if` rule is tested against; without it no `if` holds.
 */
export function selectRegistrations(
  registry: Registry,
  event: HookEventName,
  matcherValue: string | null,
  subject?: IfSubject,
): Selection {
  const candidates = registry.byEvent.get(event);
  if (candidates === undefined) return NOTHING;
  const matched: Registration[] = [];
  const unmatched: Unmatched[] = [];
  const firstByIdentity = new Map<string, Registration>();
  for (const { registration, identity } of candidates) {
    if (!matches(registration.matcher, matcherValue)) {
      const reason = `matcher "${registration.matcherSource}" does not match "${matcherValue}"`;
      unmatched.push({ registration, reason });
      continue;
    }
    const ifFails = ifRuleFailure(registration, event, matcherValue, subject);
    if (ifFails !== null) {
      unmatched.push({ registration, reason: ifFails });
      continue;
    }
    const first = firstByIdentity.get(identity);
    if (first !== undefined) {
      unmatched.push({ registration, reason: `duplicate of ${first.id}` });
      continue;
    }
    firstByIdentity.set(identity, registration);
    matched.push(registration);
  }
  return { matched, unmatched };
}

/** Why a registration's `if` keeps it from running, or null when it runs (or has no `if`). */
function ifRuleFailure(
  registration: Registration,
  event: HookEventName,
  toolName: string | null,
  subject: IfSubject | undefined,
): string | null {
  const rule = registration.ifRule;
  if (rule === null) return null;
  // Claude Code evaluates `if` only where there is a tool call; elsewhere the hook is skipped.
  if (HOOK_EVENTS[event].matcherField !== "tool_name") {
    return `"if" is not evaluated on "${event}", which is not a tool event: the hook never runs`;
  }
  if ("invalid" in rule) return `if "${rule.source}" never matches: ${rule.invalid}`;
  if (subject === undefined || toolName === null) {
    return `if "${rule.source}" is not evaluated: no tool input was given, so it does not match`;
  }
  const call = { toolName, toolInput: subject.toolInput };
  if (ifRuleMatches(rule, call, subject)) return null;
  return `if "${rule.source}" does not match`;
}
