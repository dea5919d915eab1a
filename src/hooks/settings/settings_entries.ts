/**
 * The `hooks` object of one settings file, validated entry by entry (hooks.md §1): each event
 * key, matcher group and handler is checked on its own, and a bad one is one diagnostic at its
 * pointer that costs only itself.
 */
import type { z } from "zod";
import { type Diagnostic, jsonPointer } from "../diagnostic.ts";
import {
  eventGroup,
  type EventProfile,
  HOOK_EVENTS,
  type HookEventName,
  isHookEventName,
} from "../event_table.ts";
import {
  AgentHandlerConfig,
  CommandHandlerConfig,
  HANDLER_TYPES,
  type HandlerConfig,
  type HandlerType,
  HttpHandlerConfig,
  PromptHandlerConfig,
} from "../handler_config.ts";
import { parseIfRule } from "../matching/if_rule.ts";
import { isRecord, valueAt } from "../json_value_at.ts";
import { compileMatcher, type Matcher } from "../matching/matcher.ts";
import type { PluginLocation } from "../plugins/plugin_location.ts";
import type { Registration, SettingsScope, SourceLocation } from "../registration.ts";
import type { SettingsFile } from "./settings_file.ts";

/**
 * A valid handler of an event that creates registrations (fired or never emitted): a
 * registration before the registry gives it an id and a place in chain order.
 */
export type LoadedHandler = Pick<
  Registration,
  "event" | "matcherSource" | "matcher" | "handler" | "ifRule" | "source"
>;

/**
 * An entry of an event that is accepted but never registered (hooks.md §2), kept so
 * `hooks list` can show it. `handler` is undefined when the event lists no usable handler.
 */
export interface SkippedEntry {
  readonly event: HookEventName;
  readonly group: "dropped" | "unsupported";
  readonly matcherSource: string | undefined;
  readonly handler: HandlerConfig | undefined;
  readonly source: SourceLocation;
}

export interface EntrySink {
  readonly handlers: LoadedHandler[];
  readonly skipped: SkippedEntry[];
  readonly diagnostics: Diagnostic[];
}

/**
 * Whose hooks a file holds: a file of the settings chain (its scope), or a plugin, whose
 * `hooks/hooks.json` is read exactly like a settings file.
 */
export type HookOrigin = SettingsScope | PluginLocation;

/** What one file's validation needs to know: where it is, and where diagnostics go. */
interface FileContext {
  readonly origin: HookOrigin;
  readonly settings: SettingsFile;
  readonly report: (d: Pick<Diagnostic, "code" | "pointer" | "message">) => void;
}

export function readHooks(
  origin: HookOrigin,
  settings: SettingsFile,
  hooks: Readonly<Record<string, unknown>>,
  sink: EntrySink,
  profile?: EventProfile,
): void {
  const loud: FileContext = {
    origin,
    settings,
    report: ({ code, pointer, message }) =>
      sink.diagnostics.push({
        code,
        severity: "error",
        file: settings.path,
        pointer,
        ...settings.positionOf(pointer),
        message,
      }),
  };
  // Dropped and unsupported events are accepted quietly: a problem inside one is not reported,
  // since the entry never runs here (`hooks lint` speaks for Claude Code).
  const quiet: FileContext = { origin, settings, report: () => {} };

  for (const [event, groups] of Object.entries(hooks)) {
    const pointer = jsonPointer(["hooks", event]);
    if (!isHookEventName(event)) {
      loud.report({ code: "EVENT_UNKNOWN", pointer, message: unknownEventMessage(event) });
      continue;
    }
    const group = eventGroup(event, profile);
    if (group === "fired" || group === "never_emitted") {
      sink.handlers.push(...readEvent(loud, event, groups, group === "fired"));
      continue;
    }
    const entries = readEvent(quiet, event, groups, false);
    const where = location(origin, settings, pointer);
    if (entries.length === 0) {
      sink.skipped.push({
        event,
        group,
        matcherSource: undefined,
        handler: undefined,
        source: where,
      });
    }
    for (const { matcherSource, handler, source } of entries) {
      sink.skipped.push({ event, group, matcherSource, handler, source });
    }
  }
}

function unknownEventMessage(event: string): string {
  const lower = event.toLowerCase();
  const near = Object.keys(HOOK_EVENTS).find((name) => name.toLowerCase() === lower);
  return near === undefined
    ? `Unknown hook event "${event}"`
    : `Unknown hook event "${event}": did you mean "${near}"`;
}

/** `fires`: the event fires under the profile; where it does not, nothing tests its matchers. */
function readEvent(
  ctx: FileContext,
  event: HookEventName,
  groups: unknown,
  fires: boolean,
): LoadedHandler[] {
  const eventPointer = ["hooks", event];
  if (!Array.isArray(groups)) {
    ctx.report({
      code: "SETTINGS_INVALID",
      pointer: jsonPointer(eventPointer),
      message: `"${event}" must be an array of matcher groups`,
    });
    return [];
  }
  const handlers: LoadedHandler[] = [];
  groups.forEach((group: unknown, index) => {
    handlers.push(...readGroup(ctx, event, [...eventPointer, index], group, fires));
  });
  return handlers;
}

function readGroup(
  ctx: FileContext,
  event: HookEventName,
  path: readonly (string | number)[],
  group: unknown,
  fires: boolean,
): LoadedHandler[] {
  if (!isRecord(group)) {
    ctx.report({
      code: "SETTINGS_INVALID",
      pointer: jsonPointer(path),
      message: `Matcher group must be an object with "matcher" and "hooks"`,
    });
    return [];
  }
  const matcher = readMatcher(ctx, event, [...path, "matcher"], group.matcher, fires);
  // Handlers are checked even when the matcher is bad, so one pass reports every problem.
  const handlers = readHandlers(ctx, [...path, "hooks"], group.hooks);
  if (matcher === undefined) return [];
  return handlers.map(({ handler, pointer }) => ({
    event,
    matcherSource: matcher.source,
    matcher: matcher.matcher,
    handler,
    ifRule: parseIfRule(handler.if ?? ""),
    source: location(ctx.origin, ctx.settings, pointer),
  }));
}

function readMatcher(
  ctx: FileContext,
  event: HookEventName,
  path: readonly (string | number)[],
  value: unknown,
  fires: boolean,
): { source: string | undefined; matcher: Matcher } | undefined {
  const pointer = jsonPointer(path);
  if (value !== undefined && typeof value !== "string") {
    ctx.report({ code: "MATCHER_INVALID", pointer, message: `"matcher" must be a string` });
    return undefined;
  }
  // Where the event has no matcher field the matcher is ignored (hooks.md §3), so a regex that
  // does not compile cannot cost the group anything; `hooks lint` points it out. The same holds
  // where the profile never fires the event (`PostCompact` in the llama profile).
  if (!fires || HOOK_EVENTS[event].matcherField === null) {
    return { source: value, matcher: { kind: "all" } };
  }
  const compiled = compileMatcher(value);
  if (!compiled.ok) {
    ctx.report({ code: "MATCHER_INVALID", pointer, message: compiled.reason });
    return undefined;
  }
  return { source: value, matcher: compiled.matcher };
}

function readHandlers(
  ctx: FileContext,
  path: readonly (string | number)[],
  value: unknown,
): { handler: HandlerConfig; pointer: string }[] {
  const pointer = jsonPointer(path);
  if (!Array.isArray(value) || value.length === 0) {
    const message = value === undefined
      ? `"hooks" is required: list at least one handler`
      : Array.isArray(value)
      ? `"hooks" must list at least one handler`
      : `"hooks" must be an array of handlers`;
    ctx.report({ code: "SETTINGS_INVALID", pointer, message });
    return [];
  }
  const handlers: { handler: HandlerConfig; pointer: string }[] = [];
  value.forEach((item: unknown, index) => {
    const handler = readHandler(ctx, [...path, index], item);
    if (handler !== undefined) handlers.push({ handler, pointer: jsonPointer([...path, index]) });
  });
  return handlers;
}

const HANDLER_SCHEMAS = {
  command: CommandHandlerConfig,
  http: HttpHandlerConfig,
  prompt: PromptHandlerConfig,
  agent: AgentHandlerConfig,
} as const satisfies Record<HandlerType, z.ZodType<HandlerConfig>>;

const TYPE_CHOICES = `expected "command", "http", "prompt" or "agent"`;

function readHandler(
  ctx: FileContext,
  path: readonly (string | number)[],
  value: unknown,
): HandlerConfig | undefined {
  if (!isRecord(value)) {
    ctx.report({
      code: "HANDLER_INVALID",
      pointer: jsonPointer(path),
      message: `Handler must be an object with a "type"`,
    });
    return undefined;
  }
  const type = HANDLER_TYPES.find((name) => name === value.type);
  if (type === undefined) {
    const message = value.type === undefined
      ? `"type" is required: ${TYPE_CHOICES}`
      : typeof value.type === "string"
      ? `Unknown handler type "${value.type}": ${TYPE_CHOICES}`
      : `"type" must be a string: ${TYPE_CHOICES}`;
    ctx.report({ code: "HANDLER_INVALID", pointer: jsonPointer([...path, "type"]), message });
    return undefined;
  }
  const schema: z.ZodType<HandlerConfig> = HANDLER_SCHEMAS[type];
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const issuePath = issue.path.filter((s) => typeof s === "string" || typeof s === "number");
    ctx.report({
      code: "HANDLER_INVALID",
      pointer: jsonPointer([...path, ...issuePath]),
      message: issueMessage(issue, issuePath, value),
    });
  }
  return undefined;
}

/**
 * The schemas carry our wording for their own fields; zod's generic wording ("Invalid input:
 * ...") is replaced for missing fields and for elements nested inside a field.
 */
function issueMessage(
  issue: z.core.$ZodIssue,
  path: readonly (string | number)[],
  handler: Readonly<Record<string, unknown>>,
): string {
  const name = path.map((s, i) => typeof s === "number" ? `[${s}]` : i === 0 ? s : `.${s}`)
    .join("");
  if (issue.code === "invalid_type") {
    if (valueAt(handler, path) === undefined) return `"${name}" is required`;
    if (issue.message.startsWith("Invalid input")) {
      return `"${name}" must be ${issue.expected === "array" ? "an" : "a"} ${issue.expected}`;
    }
  }
  if (issue.message.startsWith("Invalid")) return `"${name}" is invalid: ${issue.message}`;
  return issue.message;
}

function location(origin: HookOrigin, settings: SettingsFile, pointer: string): SourceLocation {
  const line = settings.positionOf(pointer).line;
  if (typeof origin === "string") return { scope: origin, file: settings.path, pointer, line };
  return { scope: "plugin", plugin: origin, file: settings.path, pointer, line };
}
