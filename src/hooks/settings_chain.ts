/**
 * The settings chain (hooks.md §1): up to three files, read as JSONC, validated entry by entry,
 * merged additively in chain order. A bad entry costs only itself; nothing here throws.
 */
import type { z } from "zod";
import { errorMessage } from "../error.ts";
import { readConfigFile } from "../config_file.ts";
import { type Diagnostic, jsonPointer } from "./diagnostic.ts";
import { HOOK_EVENTS, type HookEventName, isHookEventName } from "./event_table.ts";
import {
  AgentHandlerConfig,
  CommandHandlerConfig,
  HANDLER_TYPES,
  type HandlerConfig,
  type HandlerType,
  HttpHandlerConfig,
  PromptHandlerConfig,
} from "./handler_config.ts";
import { type IfRule, parseIfRule } from "./if_rule.ts";
import { compileMatcher, type Matcher } from "./matcher.ts";
import type { SettingsScope, SourceLocation } from "./registration.ts";
import { parseSettingsFile, type SettingsFile } from "./settings_file.ts";

export interface SettingsPath {
  readonly scope: SettingsScope;
  readonly path: string;
}

/** Reads a whole text file; throws `Deno.errors.NotFound` when the file does not exist. */
export type ReadTextFile = (path: string) => Promise<string>;

export interface LoadSettingsOptions {
  /** The session cwd; no walk-up to parent directories. */
  readonly cwd: string;
  /** `$HOME`; the user file is skipped when it is undefined or empty. */
  readonly home: string | undefined;
  /** Default `readConfigFile`: regular files of at most 4 MiB; FIFOs and devices refused. */
  readonly readTextFile?: ReadTextFile;
}

export type SettingsFileStatus =
  | "missing"
  | "unreadable"
  /** Not JSONC, or its top level is not an object: it contributes nothing. */
  | "invalid"
  | "loaded";

export interface LoadedSettingsFile extends SettingsPath {
  readonly status: SettingsFileStatus;
  /** Present when `status` is `"loaded"`; `hooks lint` reads its JSONC usage. */
  readonly settings?: SettingsFile;
}

/** A valid handler of an event that creates registrations (fired or never emitted). */
export interface LoadedHandler {
  readonly event: HookEventName;
  readonly matcherSource: string | undefined;
  readonly matcher: Matcher;
  readonly handler: HandlerConfig;
  /** The handler's `if`, parsed; null when it has none (or `""`). */
  readonly ifRule: IfRule | null;
  readonly source: SourceLocation;
}

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

export interface LoadedSettings {
  /** Every file of the chain, in chain order, including missing ones. */
  readonly files: readonly LoadedSettingsFile[];
  /** Valid handlers in chain order (user → project → local, then file order). */
  readonly handlers: readonly LoadedHandler[];
  readonly skipped: readonly SkippedEntry[];
  readonly diagnostics: readonly Diagnostic[];
  /** Paths of the files that say `"disableAllHooks": true`; non-empty means no hook runs. */
  readonly disabledBy: readonly string[];
}

/**
 * The chain in order, lowest precedence first. A file already in it is not listed again for a
 * later scope: in `$HOME` itself the user file is the project file, and is read once, as user.
 */
export function settingsChainPaths(cwd: string, home: string | undefined): SettingsPath[] {
  const paths: SettingsPath[] = [];
  if (home !== undefined && home !== "") {
    paths.push({ scope: "user", path: claudeFile(home, "settings.json") });
  }
  paths.push({ scope: "project", path: claudeFile(cwd, "settings.json") });
  paths.push({ scope: "local", path: claudeFile(cwd, "settings.local.json") });
  return paths.filter(({ path }, i) => paths.findIndex((p) => p.path === path) === i);
}

/**
 * The chain without the files that are an earlier one under another name (a symlinked `$HOME`
 * or `.claude`): each is read once, for its first scope. A path that cannot be resolved (a file
 * that does not exist) stands for itself.
 */
async function distinctFiles(chain: readonly SettingsPath[]): Promise<SettingsPath[]> {
  const real = await Promise.all(chain.map(({ path }) => Deno.realPath(path).catch(() => path)));
  return chain.filter((_, i) => real.indexOf(real[i]!) === i);
}

// Plain string joining: `node:path` would pull in `@types/node`, which this project lacks.
function claudeFile(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, "")}/.claude/${name}`;
}

export async function loadSettingsChain(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const read = options.readTextFile ?? readConfigFile;
  const chain = await distinctFiles(settingsChainPaths(options.cwd, options.home));
  // All opens at once: a cwd without `.claude` costs one round of failed opens.
  const texts = await Promise.all(chain.map(({ path }) => readOrMissing(read, path)));

  const files: LoadedSettingsFile[] = [];
  const sink: EntrySink = { handlers: [], skipped: [], diagnostics: [] };
  const disabledBy: string[] = [];
  chain.forEach(({ scope, path }, i) => {
    const text = texts[i];
    if (text === undefined || text.kind === "missing") {
      files.push({ scope, path, status: "missing" });
    } else if (text.kind === "unreadable") {
      files.push({ scope, path, status: "unreadable" });
      sink.diagnostics.push({
        code: "SETTINGS_UNREADABLE",
        severity: "error",
        file: path,
        pointer: "",
        message: `Cannot read settings file: ${text.message}`,
      });
    } else {
      const parsed = parseSettingsFile(path, text.text);
      sink.diagnostics.push(...parsed.diagnostics);
      if (parsed.settings === undefined) {
        files.push({ scope, path, status: "invalid" });
        return;
      }
      files.push({ scope, path, status: "loaded", settings: parsed.settings });
      if (parsed.settings.disableAllHooks === true) disabledBy.push(path);
      if (parsed.settings.hooks) readHooks(scope, parsed.settings, parsed.settings.hooks, sink);
    }
  });
  return { files, ...sink, disabledBy };
}

type ReadOutcome =
  | { readonly kind: "missing" }
  | { readonly kind: "unreadable"; readonly message: string }
  | { readonly kind: "text"; readonly text: string };

async function readOrMissing(read: ReadTextFile, path: string): Promise<ReadOutcome> {
  try {
    return { kind: "text", text: await read(path) };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { kind: "missing" };
    return { kind: "unreadable", message: errorMessage(error) };
  }
}

interface EntrySink {
  readonly handlers: LoadedHandler[];
  readonly skipped: SkippedEntry[];
  readonly diagnostics: Diagnostic[];
}

/** What one file's validation needs to know: where it is, and where diagnostics go. */
interface FileContext {
  readonly scope: SettingsScope;
  readonly settings: SettingsFile;
  readonly report: (d: Pick<Diagnostic, "code" | "pointer" | "message">) => void;
}

function readHooks(
  scope: SettingsScope,
  settings: SettingsFile,
  hooks: Readonly<Record<string, unknown>>,
  sink: EntrySink,
): void {
  const loud: FileContext = {
    scope,
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
  const quiet: FileContext = { scope, settings, report: () => {} };

  for (const [event, groups] of Object.entries(hooks)) {
    const pointer = jsonPointer(["hooks", event]);
    if (!isHookEventName(event)) {
      loud.report({ code: "EVENT_UNKNOWN", pointer, message: unknownEventMessage(event) });
      continue;
    }
    const group = HOOK_EVENTS[event].group;
    if (group === "fired" || group === "never_emitted") {
      sink.handlers.push(...readEvent(loud, event, groups));
      continue;
    }
    const entries = readEvent(quiet, event, groups);
    const where = location(scope, settings, pointer);
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

function readEvent(ctx: FileContext, event: HookEventName, groups: unknown): LoadedHandler[] {
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
    handlers.push(...readGroup(ctx, event, [...eventPointer, index], group));
  });
  return handlers;
}

function readGroup(
  ctx: FileContext,
  event: HookEventName,
  path: readonly (string | number)[],
  group: unknown,
): LoadedHandler[] {
  if (!isRecord(group)) {
    ctx.report({
      code: "SETTINGS_INVALID",
      pointer: jsonPointer(path),
      message: `Matcher group must be an object with "matcher" and "hooks"`,
    });
    return [];
  }
  const matcher = readMatcher(ctx, event, [...path, "matcher"], group.matcher);
  // Handlers are checked even when the matcher is bad, so one pass reports every problem.
  const handlers = readHandlers(ctx, [...path, "hooks"], group.hooks);
  if (matcher === undefined) return [];
  return handlers.map(({ handler, pointer }) => ({
    event,
    matcherSource: matcher.source,
    matcher: matcher.matcher,
    handler,
    ifRule: parseIfRule(handler.if ?? ""),
    source: location(ctx.scope, ctx.settings, pointer),
  }));
}

function readMatcher(
  ctx: FileContext,
  event: HookEventName,
  path: readonly (string | number)[],
  value: unknown,
): { source: string | undefined; matcher: Matcher } | undefined {
  const pointer = jsonPointer(path);
  if (value !== undefined && typeof value !== "string") {
    ctx.report({ code: "MATCHER_INVALID", pointer, message: `"matcher" must be a string` });
    return undefined;
  }
  // Where the event has no matcher field the matcher is ignored (hooks.md §3), so a regex that
  // does not compile cannot cost the group anything; `hooks lint` points it out.
  if (HOOK_EVENTS[event].matcherField === null) return { source: value, matcher: { kind: "all" } };
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

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === "number") current = current[segment];
    else if (isRecord(current) && typeof segment === "string") current = current[segment];
    else return undefined;
  }
  return current;
}

function location(scope: SettingsScope, settings: SettingsFile, pointer: string): SourceLocation {
  return { scope, file: settings.path, pointer, line: settings.positionOf(pointer).line };
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
