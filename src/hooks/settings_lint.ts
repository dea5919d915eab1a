/**
 * `hooks lint`: the loader's diagnostics plus what a user needs to hear about a settings chain
 * that loads fine but would not do what they expect: matchers that never fire, timeouts written
 * in milliseconds, fields and events with no effect here, differences from Claude Code, and
 * project scripts that are missing or not executable.
 *
 * Everything but the script checks is a pure function of the loaded chain; the file system is
 * reached only through `statFile`. Lint never throws on anything the loader accepted.
 */
import { type Diagnostic, type DiagnosticCode, jsonPointer } from "./diagnostic.ts";
import { HOOK_EVENTS, isFiredEvent, isHookEventName } from "./event_table.ts";
import { HANDLER_TYPES, type HandlerConfig, type HandlerType } from "./handler_config.ts";
import type { SettingsScope } from "./registration.ts";
import { checkScript, scriptReferences, type StatFile, statWithDeno } from "./script_path_lint.ts";
import type { LoadedHandler, LoadedSettings } from "./settings_chain.ts";
import type { Position, SettingsFile } from "./settings_file.ts";
import { toolMatcherProblem } from "./tool_matcher_lint.ts";

export type { FileStat, StatFile } from "./script_path_lint.ts";

export interface LintOptions {
  /** The directory the chain was loaded for: `$CLAUDE_PROJECT_DIR` of every hook. */
  readonly cwd: string;
  /** How scripts are looked at; `Deno.stat` when absent. */
  readonly statFile?: StatFile;
}

/** Every diagnostic of the chain, loader's and lint's, by file in chain order, then line. */
export async function lintSettings(
  loaded: LoadedSettings,
  options: LintOptions,
): Promise<Diagnostic[]> {
  const files = new Map<string, LoadedFile>();
  for (const file of loaded.files) {
    if (file.settings) files.set(file.path, { scope: file.scope, settings: file.settings });
  }
  const findings: Diagnostic[] = [...loaded.diagnostics];
  for (const { settings } of files.values()) {
    findings.push(...jsoncFindings(settings), ...eventFindings(settings));
  }
  findings.push(...claudeDropsFile(loaded, files), ...disableFindings(loaded, files));
  const fired = loaded.handlers.filter((h) => isFiredEvent(h.event));
  for (const entry of fired) {
    const settings = files.get(entry.source.file);
    if (settings) findings.push(...handlerFindings(entry, settings.settings));
  }
  findings.push(...await scriptFindings(fired, files, options));
  return sortByChain(findings, loaded);
}

interface LoadedFile {
  readonly scope: SettingsScope;
  readonly settings: SettingsFile;
}

function finding(
  settings: SettingsFile,
  pointer: string,
  code: DiagnosticCode,
  message: string,
  severity: Diagnostic["severity"] = "warning",
): Diagnostic {
  return { code, severity, file: settings.path, pointer, ...settings.positionOf(pointer), message };
}

function jsoncFindings(settings: SettingsFile): Diagnostic[] {
  const at = (position: Position, what: string, fix: string): Diagnostic => ({
    code: "LINT_JSONC_REJECTED_BY_CLAUDE",
    severity: "warning",
    file: settings.path,
    pointer: "",
    ...position,
    message: `Claude Code rejects ${what} in a settings file and then drops every hook of the ` +
      `file (llama-agent accepts them): ${fix} if Claude Code also reads this file`,
  });
  return [
    ...settings.jsonc.comments.map((p) => at(p, "comments", "remove the comment")),
    ...settings.jsonc.trailingCommas.map((p) => at(p, "trailing commas", "remove the comma")),
  ];
}

/** Events that never fire here, and matchers that never match or are ignored. */
function eventFindings(settings: SettingsFile): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
    if (!isHookEventName(event)) continue;
    const spec = HOOK_EVENTS[event];
    const eventPointer = jsonPointer(["hooks", event]);
    if (spec.group !== "fired") {
      const why = spec.group === "dropped"
        ? "its hooks run only in Claude Code"
        : spec.group === "never_emitted"
        ? "no part of the agent emits it, so its hooks never run"
        : "it is a newer Claude Code event that llama-agent does not support";
      const message = `"${event}" is accepted but never fires in llama-agent: ${why}`;
      out.push(finding(settings, eventPointer, "LINT_EVENT_NEVER_FIRES", message));
      continue;
    }
    if (!Array.isArray(groups)) continue;
    groups.forEach((group: unknown, index) => {
      if (!isRecord(group) || typeof group.matcher !== "string") return;
      const pointer = jsonPointer(["hooks", event, index, "matcher"]);
      if (spec.matcherField === "tool_name") {
        const problem = toolMatcherProblem(group.matcher);
        if (problem) out.push(finding(settings, pointer, "LINT_TOOL_NEVER_MATCHES", problem));
      } else if (spec.matcherField === null && group.matcher !== "" && group.matcher !== "*") {
        const message = `Matcher "${group.matcher}" is ignored on "${event}": every group of ` +
          `this event fires; remove the matcher`;
        out.push(finding(settings, pointer, "LINT_MATCHER_IGNORED", message));
      }
    });
  }
  return out;
}

/** Claude Code drops a whole file for one invalid entry; the loader skips just that entry. */
function claudeDropsFile(loaded: LoadedSettings, files: ReadonlyMap<string, LoadedFile>) {
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const d of loaded.diagnostics) {
    const insideHooks = d.pointer === "/hooks" || d.pointer.startsWith("/hooks/");
    const invalid = d.code === "HANDLER_INVALID" || (d.code === "SETTINGS_INVALID" && insideHooks);
    const key = `${d.file}\n${d.pointer}`;
    if (!invalid || !files.has(d.file) || seen.has(key)) continue;
    seen.add(key);
    out.push({
      ...d,
      code: "LINT_CLAUDE_DROPS_FILE",
      severity: "warning",
      message: `Claude Code would ignore every hook of this file because of this invalid ` +
        `entry, while llama-agent skips only the entry: fix it if Claude Code also reads this file`,
    });
  }
  return out;
}

function disableFindings(loaded: LoadedSettings, files: ReadonlyMap<string, LoadedFile>) {
  const chain = [...files.values()];
  const withHooks = new Set(
    [...loaded.handlers, ...loaded.skipped].map(({ source }) => source.file),
  );
  const out: Diagnostic[] = [];
  chain.forEach(({ settings }, index) => {
    const pointer = "/disableAllHooks";
    if (settings.disableAllHooks === true) {
      const others = chain.filter((f) => f !== chain[index] && withHooks.has(f.settings.path));
      const including = others.length === 0
        ? ""
        : `, including those of the ${andList(others.map((f) => f.scope))} settings ` +
          (others.length === 1 ? "file" : "files");
      const message = `"disableAllHooks": true turns off every hook of every settings file` +
        `${including}: remove it, or set it to false, to run hooks`;
      out.push(finding(settings, pointer, "LINT_DISABLE_ALL_HOOKS", message));
    } else if (settings.disableAllHooks === false) {
      const lower = chain.slice(0, index).filter((f) => f.settings.disableAllHooks === true);
      if (lower.length === 0) return;
      const scopes = andList(lower.map((f) => f.scope));
      const message = `"disableAllHooks": false does not turn hooks back on in llama-agent: ` +
        `the ${scopes} settings ${lower.length === 1 ? "file says" : "files say"} true, which ` +
        `keeps every hook off; Claude Code would re-enable hooks, since this file takes precedence`;
      out.push(finding(settings, pointer, "LINT_DISABLE_ALL_HOOKS", message));
    }
  });
  return out;
}

/** Fields each handler type reads. */
const OWN_FIELDS: Readonly<Record<HandlerType, readonly string[]>> = {
  command: ["type", "command", "args", "timeout", "onFailure"],
  http: ["type", "url", "headers", "allowedEnvVars", "timeout", "onFailure"],
  prompt: ["type", "prompt", "model", "timeout", "onFailure"],
  agent: ["type", "prompt", "model", "timeout", "onFailure"],
};

/** Claude Code fields llama-agent accepts and ignores, with what happens instead. */
const IGNORED_FIELDS: Readonly<Record<string, string>> = {
  async: "the action waits for every hook to finish",
  statusMessage: "no status is shown while a hook runs",
  once: "the hook runs every time its event fires",
  shell: "commands always run with /bin/sh",
};

const MS_THRESHOLD_SEC = 1000;

function handlerFindings(entry: LoadedHandler, settings: SettingsFile): Diagnostic[] {
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
  for (const field of Object.keys(handler)) {
    const message = fieldProblem(handler, field, event);
    if (message) at(field, "LINT_FIELD_NO_EFFECT", message);
  }
  if (handler.type === "http") out.push(...headerFindings(entry, handler, settings));
  return out;
}

function fieldProblem(
  handler: HandlerConfig,
  field: string,
  event: LoadedHandler["event"],
): string | undefined {
  const ignored = Object.hasOwn(IGNORED_FIELDS, field) ? IGNORED_FIELDS[field] : undefined;
  if (ignored) return `"${field}" has no effect in llama-agent: ${ignored}`;
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

async function scriptFindings(
  handlers: readonly LoadedHandler[],
  files: ReadonlyMap<string, LoadedFile>,
  options: LintOptions,
): Promise<Diagnostic[]> {
  const stat = options.statFile ?? statWithDeno;
  // One look per path, however many hooks name it.
  const cache = new Map<string, ReturnType<StatFile>>();
  const cachedStat: StatFile = (path) => {
    let result = cache.get(path);
    if (result === undefined) cache.set(path, result = stat(path));
    return result;
  };
  const checks = handlers.flatMap(({ handler, source }) => {
    const settings = files.get(source.file)?.settings;
    if (handler.type !== "command" || settings === undefined) return [];
    return scriptReferences(handler).map(async (reference) => {
      const problem = await checkScript(reference, options.cwd, cachedStat);
      if (problem === undefined) return undefined;
      const pointer = source.pointer + jsonPointer(reference.field);
      return finding(settings, pointer, problem.code, problem.message, "error");
    });
  });
  return (await Promise.all(checks)).filter((d) => d !== undefined);
}

function sortByChain(findings: Diagnostic[], loaded: LoadedSettings): Diagnostic[] {
  const rank = new Map(loaded.files.map((file, index) => [file.path, index]));
  const fileRank = (d: Diagnostic) => rank.get(d.file) ?? loaded.files.length;
  return findings
    .map((d, index) => ({ d, index }))
    .sort((a, b) =>
      fileRank(a.d) - fileRank(b.d) ||
      (a.d.line ?? 0) - (b.d.line ?? 0) ||
      (a.d.column ?? 0) - (b.d.column ?? 0) ||
      a.index - b.index
    )
    .map(({ d }) => d);
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

function andList(words: readonly string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
