/**
 * What the fields of one handler do here: timeouts written in milliseconds, fields with no effect
 * in llama-agent (or on this handler type, or this event), and http header variables that are
 * sent empty because `allowedEnvVars` does not list them. Pure: a loaded handler in, findings out.
 */
import { type Diagnostic, type DiagnosticCode, jsonPointer } from "../diagnostic.ts";
import { HOOK_EVENTS, type HookEventName } from "../event_table.ts";
import { HANDLER_TYPES, type HandlerConfig, type HandlerType } from "../handler_config.ts";
import { finding } from "./lint_finding.ts";
import { andList } from "./profile_name_lint.ts";
import type { LoadedHandler } from "../settings/settings_chain.ts";
import type { SettingsFile } from "../settings/settings_file.ts";

/** Fields each handler type reads; `if` is every type's (claude-compat.md §7). */
const OWN_FIELDS: Readonly<Record<HandlerType, readonly string[]>> = {
  command: ["type", "command", "args", "timeout", "onFailure", "if"],
  http: ["type", "url", "headers", "allowedEnvVars", "timeout", "onFailure", "if"],
  prompt: ["type", "prompt", "model", "timeout", "onFailure", "if"],
  agent: ["type", "prompt", "model", "timeout", "onFailure", "if"],
};

interface IgnoredField {
  /** What happens instead, on the handler's event. */
  readonly instead: string | ((event: HookEventName) => string);
  /** Whether the value asks for what is not done (`"async": false` asks for what happens anyway). */
  readonly matters: (value: unknown) => boolean;
  /** A Claude Code feature llama-agent lacks, rather than a setting with no effect here. */
  readonly unsupported?: true;
}

/**
 * Claude Code fields llama-agent accepts and ignores, with what happens instead. `asyncRewake`
 * (Claude Code: run in the background, and on exit 2 wake the model with the hook's stderr, or
 * stdout, as a system reminder), `rewakeMessage` and `rewakeSummary` (the words that wake goes
 * with) are fields of Anthropic's own plugins, not typos: they are named as unsupported.
 */
const IGNORED_FIELDS: Readonly<Record<string, IgnoredField>> = {
  async: { instead: "the action waits for every hook to finish", matters: (v) => v === true },
  statusMessage: { instead: "no status is shown while a hook runs", matters: () => true },
  once: { instead: "the hook runs every time its event fires", matters: () => true },
  shell: { instead: "commands always run with /bin/sh", matters: () => true },
  asyncRewake: {
    instead: (event) =>
      "the hook runs in the foreground, the action waits for it, and its exit 2 " +
      (HOOK_EVENTS[event].blockable
        ? `blocks "${event}" right then, as any hook's does,`
        : "is handled right then, as any hook's is,") +
      " instead of waking the model once the hook finishes in the background",
    matters: (v) => v === true,
    unsupported: true,
  },
  rewakeMessage: {
    instead: 'it goes with "asyncRewake", and no hook wakes the model later here',
    matters: () => true,
    unsupported: true,
  },
  rewakeSummary: {
    instead: 'it goes with "asyncRewake", and no hook wakes the model later here',
    matters: () => true,
    unsupported: true,
  },
};

const MS_THRESHOLD_SEC = 1000;

export function handlerFieldFindings(entry: LoadedHandler, settings: SettingsFile): Diagnostic[] {
  const { handler, event } = entry;
  const out: Diagnostic[] = [];
  const at = (field: string, code: DiagnosticCode, message: string) =>
    out.push(finding(settings, entry.source.pointer + jsonPointer([field]), code, message));

  if (handler.timeout !== undefined && handler.timeout >= MS_THRESHOLD_SEC) {
    const meant = Number((handler.timeout / 1000).toFixed(3));
    at(
      "timeout",
      "LINT_TIMEOUT_LOOKS_LIKE_MS",
      `"timeout" is ${handler.timeout} seconds (${duration(handler.timeout)}): timeouts are in ` +
        `seconds; did you mean ${meant}?`,
    );
  }
  for (const [field, value] of Object.entries(handler)) {
    const message = fieldProblem(handler, field, value, event);
    if (message) at(field, "LINT_FIELD_NO_EFFECT", message);
  }
  if (handler.type === "http") out.push(...headerFindings(entry, handler, settings));
  return out;
}

function fieldProblem(
  handler: HandlerConfig,
  field: string,
  value: unknown,
  event: LoadedHandler["event"],
): string | undefined {
  const ignored = Object.hasOwn(IGNORED_FIELDS, field) ? IGNORED_FIELDS[field] : undefined;
  if (ignored) {
    if (!ignored.matters(value)) return undefined;
    const instead = typeof ignored.instead === "string" ? ignored.instead : ignored.instead(event);
    return ignored.unsupported
      ? `"${field}" is a Claude Code field llama-agent does not support: ${instead}`
      : `"${field}" has no effect in llama-agent: ${instead}`;
  }
  if (field === "model" && (handler.type === "prompt" || handler.type === "agent")) {
    return `"model" has no effect in llama-agent: the session's own model answers ` +
      `prompt and agent hooks`;
  }
  if (field === "onFailure" && !HOOK_EVENTS[event].blockable) {
    return `"onFailure" has no effect on "${event}": the event cannot be blocked, so a ` +
      `failing hook is only reported`;
  }
  if (OWN_FIELDS[handler.type].includes(field)) return undefined;
  const owners = HANDLER_TYPES.filter((type) => OWN_FIELDS[type].includes(field));
  if (owners.length > 0) {
    return `"${field}" has no effect on a "${handler.type}" handler: only ` +
      `${andList(owners.map((t) => `"${t}"`))} handlers use it`;
  }
  const known = [...OWN_FIELDS[handler.type], ...Object.keys(IGNORED_FIELDS)];
  const near = known.find((name) => name.toLowerCase() === field.toLowerCase());
  return `"${field}" is not a field of a "${handler.type}" handler and has no effect: ` +
    (near ? `did you mean "${near}"?` : "remove it");
}

const HEADER_VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

function headerFindings(
  entry: LoadedHandler,
  handler: Extract<HandlerConfig, { type: "http" }>,
  settings: SettingsFile,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const allowed = handler.allowedEnvVars ?? [];
  const base = entry.source.pointer;
  if (handler.allowedEnvVars !== undefined && handler.headers === undefined) {
    const message = `"allowedEnvVars" has no effect without "headers": only header values ` +
      `are expanded`;
    out.push(finding(settings, base + "/allowedEnvVars", "LINT_FIELD_NO_EFFECT", message));
  }
  for (const [name, value] of Object.entries(handler.headers ?? {})) {
    const unlisted = [...value.matchAll(HEADER_VARIABLE)]
      .map((m) => m[1] ?? m[2] ?? "")
      .filter((variable) => !allowed.includes(variable));
    for (const variable of new Set(unlisted)) {
      const message = `Header "${name}" uses "$${variable}", which "allowedEnvVars" does not ` +
        `list, so it is sent empty: add "${variable}" to "allowedEnvVars"`;
      const pointer = base + jsonPointer(["headers", name]);
      out.push(finding(settings, pointer, "LINT_FIELD_NO_EFFECT", message));
    }
  }
  return out;
}

/** `1 h 23 min`, `16 min 40 s`, `11 d 13 h`: the magnitude is what catches the eye. */
function duration(seconds: number): string {
  const units: [string, number][] = [["d", 86400], ["h", 3600], ["min", 60], ["s", 1]];
  const first = units.findIndex(([, size]) => seconds >= size);
  const parts: string[] = [];
  let left = Math.floor(seconds);
  for (const [name, size] of units.slice(Math.max(first, 0), Math.max(first, 0) + 2)) {
    const count = Math.floor(left / size);
    left -= count * size;
    if (count > 0) parts.push(`${count} ${name}`);
  }
  return parts.join(" ");
}
