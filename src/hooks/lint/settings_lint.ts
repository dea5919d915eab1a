/**
 * `hooks lint`: the loader's diagnostics plus what a user needs to hear about a settings chain
 * that loads fine but would not do what they expect under the chosen profile: matchers and `if`
 * rules that never fire (Claude Code's tool names under `llama`, ours under `claude`), scripts
 * that check `tool_name` against the other profile's names, timeouts written in milliseconds,
 * fields and events with no effect here, differences from Claude Code, project scripts that are
 * missing or not executable, programs not on `PATH`, and bash-only syntax run by `/bin/sh`.
 * The `hooks/hooks.json` of each loaded plugin is checked like a settings file, its
 * `${CLAUDE_PLUGIN_ROOT}` scripts in the plugin's directory; a settings hook that uses
 * `${CLAUDE_PLUGIN_ROOT}` (empty outside a plugin) is flagged.
 *
 * Everything but the script and program checks is a pure function of the loaded chain; files
 * and the shell are reached only through the functions in the options. Lint never throws on
 * anything the loader accepted.
 */
import type { Node } from "jsonc-parser";
import { readConfigFile } from "../../config_file.ts";
import { type CompatProfile, compatProfile } from "../../profile/compat_profile.ts";
import { commandHookFindings, ifRuleFindings } from "./command_hook_lint.ts";
import type { FindCommands } from "./command_path_lint.ts";
import { type Diagnostic, jsonPointer } from "../diagnostic.ts";
import {
  eventGroup,
  HOOK_EVENTS,
  isFiredEvent,
  isHookEventName,
  isProfileEvent,
} from "../event_table.ts";
import type { ReadScript } from "./foreign_tool_references.ts";
import { handlerFieldFindings } from "./handler_field_lint.ts";
import { literalOutputFindings } from "./literal_output_lint.ts";
import { isRecord } from "../json_value_at.ts";
import { finding } from "./lint_finding.ts";
import type { LoadedPlugin } from "../plugins/plugin_hooks.ts";
import { pluginHooksFiles, pluginVariableFindings } from "./plugin_lint.ts";
import { andList } from "./profile_name_lint.ts";
import type { HookScope } from "../registration.ts";
import { checkScript, scriptReferences, type StatFile, statWithDeno } from "./script_path_lint.ts";
import type { LoadedHandler, LoadedSettings } from "../settings/settings_chain.ts";
import type { Position, SettingsFile } from "../settings/settings_file.ts";
import { toolMatcherProblem } from "./tool_matcher_lint.ts";

export type { FileStat, StatFile } from "./script_path_lint.ts";
export type { CommandKind, FindCommands } from "./command_path_lint.ts";

export interface LintOptions {
  /** The directory the chain was loaded for: `$CLAUDE_PROJECT_DIR` of every hook. */
  readonly cwd: string;
  /** The profile whose tool names matchers and `if` rules are checked against (default llama). */
  readonly profile?: CompatProfile;
  /** How scripts are looked at; `Deno.stat` when absent. */
  readonly statFile?: StatFile;
  /** How scripts are read for `tool_name` checks; the bounded config reader when absent. */
  readonly readScript?: ReadScript;
  /** How bare program names are looked up on `PATH`; when absent they are not. */
  readonly findCommands?: FindCommands;
}

/** Scripts are small; a bigger file is not worth reading for a `tool_name` check. */
const SCRIPT_MAX_BYTES = 1024 * 1024;
/** The bounded reader scripts are read with for `tool_name` checks. */
export const readScriptFile: ReadScript = (path) =>
  readConfigFile(path, { maxBytes: SCRIPT_MAX_BYTES });

/** The chain as loaded, with the plugins read beside it (`LoadedHooks`), if any. */
export type LintedHooks = LoadedSettings & { readonly plugins?: readonly LoadedPlugin[] };

/**
 * Every diagnostic of the chain and its plugins, loader's and lint's, by file (chain order, then
 * the plugins' `hooks.json` in load order), then line.
 */
export async function lintSettings(
  loaded: LintedHooks,
  options: LintOptions,
): Promise<Diagnostic[]> {
  const files = new Map<string, LoadedFile>();
  for (const file of loaded.files) {
    if (file.settings) files.set(file.path, { scope: file.scope, settings: file.settings });
  }
  for (const [path, { settings }] of pluginHooksFiles(loaded.plugins ?? [])) {
    files.set(path, { scope: "plugin", settings });
  }
  const profile = options.profile ?? compatProfile();
  const findings: Diagnostic[] = [...loaded.diagnostics];
  for (const { scope, settings } of files.values()) {
    findings.push(
      ...jsoncFindings(settings, scope),
      ...eventFindings(settings, profile),
      ...repeatedKeys(settings),
    );
  }
  findings.push(...claudeDropsFile(loaded, files), ...disableFindings(loaded, files));
  const fired = loaded.handlers.filter((h) => isFiredEvent(h.event, profile));
  const withFiles = fired.flatMap((entry) => {
    const settings = files.get(entry.source.file)?.settings;
    return settings ? [{ entry, settings }] : [];
  });
  for (const { entry, settings } of withFiles) {
    findings.push(
      ...handlerFieldFindings(entry, settings),
      ...ifRuleFindings(entry, settings, profile),
      ...pluginVariableFindings(entry, settings),
      ...literalOutputFindings(entry, settings, profile),
    );
  }
  findings.push(...await scriptFindings(fired, files, options));
  findings.push(
    ...await commandHookFindings(withFiles, {
      cwd: options.cwd,
      profile,
      findCommands: options.findCommands,
      readScript: options.readScript ?? readScriptFile,
    }),
  );
  return sortByChain(findings, loaded);
}

interface LoadedFile {
  /** `"plugin"`: a plugin's `hooks/hooks.json`, linted like a settings file. */
  readonly scope: HookScope;
  readonly settings: SettingsFile;
}

function jsoncFindings(settings: SettingsFile, scope: HookScope): Diagnostic[] {
  const kind = scope === "plugin" ? "a plugin's hooks.json" : "a settings file";
  const at = (position: Position, what: string, fix: string): Diagnostic => ({
    code: "LINT_JSONC_REJECTED_BY_CLAUDE",
    severity: "warning",
    file: settings.path,
    pointer: "",
    ...position,
    message: `Claude Code rejects ${what} in ${kind} and then drops every hook of the ` +
      `file (llama-agent accepts them): ${fix} if Claude Code also reads this file`,
  });
  return [
    ...settings.jsonc.comments.map((p) => at(p, "comments", "remove the comment")),
    ...settings.jsonc.trailingCommas.map((p) => at(p, "trailing commas", "remove the comma")),
  ];
}

/** The top-level keys the loader reads, and those whose insides it reads too. */
const READ_AT_TOP = new Set([
  "hooks",
  "disableAllHooks",
  "enabledPlugins",
  "extraKnownMarketplaces",
]);
const READ_WITHIN = new Set(["hooks", "enabledPlugins"]);

/**
 * Keys that repeat in one object of what the loader reads (`hooks`, `disableAllHooks`,
 * `enabledPlugins`, `extraKnownMarketplaces`, and everything inside `hooks` and
 * `enabledPlugins`): only the last value counts, in llama-agent as in Claude Code, so the hooks
 * of an earlier one silently never run, and a plugin enabled at the top of the file is off when
 * the last says `false`. Kept as Claude Code reads it (a warning, not an error): whoever writes
 * the file decides what it holds either way, and a test here must predict what Claude Code does.
 */
function repeatedKeys(settings: SettingsFile): Diagnostic[] {
  const { root } = settings;
  if (root?.type !== "object") return [];
  const out: Diagnostic[] = [];
  const report = (segments: readonly (string | number)[], earlier: Node, kept: Node) => {
    const key = String(segments.at(-1));
    out.push({
      code: "LINT_DUPLICATE_KEY",
      severity: "warning",
      file: settings.path,
      pointer: jsonPointer(segments),
      ...settings.positionAt(earlier.offset),
      message: `Key "${key}" appears again at line ${settings.positionAt(kept.offset).line}, ` +
        `and only that last value is read, by llama-agent and Claude Code alike: this one is ` +
        `ignored${
          segments[0] === "hooks" ? ", with every hook in it" : ""
        }; merge the two into one`,
    });
  };
  const visit = (node: Node, segments: readonly (string | number)[]) => {
    if (node.type === "array") {
      (node.children ?? []).forEach((child, index) => visit(child, [...segments, index]));
      return;
    }
    if (node.type !== "object") return;
    const top = segments.length === 0;
    for (const [key, properties] of propertiesByKey(node)) {
      if (top && !READ_AT_TOP.has(key)) continue;
      const kept = properties.at(-1);
      if (kept === undefined) continue;
      for (const earlier of properties.slice(0, -1)) report([...segments, key], earlier, kept);
      const value = kept.children?.[1];
      if (value !== undefined && (!top || READ_WITHIN.has(key))) visit(value, [...segments, key]);
    }
  };
  visit(root, []);
  return out;
}

function propertiesByKey(object: Node): Map<string, Node[]> {
  const byKey = new Map<string, Node[]>();
  for (const property of object.children ?? []) {
    const key = property.children?.[0]?.value;
    if (typeof key !== "string" || property.children?.[1] === undefined) continue;
    const same = byKey.get(key);
    if (same === undefined) byKey.set(key, [property]);
    else same.push(property);
  }
  return byKey;
}

/** Events that never fire here, and matchers that never match or are ignored. */
function eventFindings(settings: SettingsFile, profile: CompatProfile): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
    if (!isHookEventName(event)) continue;
    const spec = HOOK_EVENTS[event];
    const group = eventGroup(event, profile);
    const eventPointer = jsonPointer(["hooks", event]);
    if (group !== "fired") {
      const why = group === "dropped"
        ? "its hooks run only in Claude Code"
        : group === "never_emitted"
        ? "no part of the agent emits it, so its hooks never run"
        : "it is a newer Claude Code event that llama-agent does not support";
      const message = isProfileEvent(event)
        ? `"${event}" never fires in the "${profile.id}" profile: it fires only with --compat claude`
        : `"${event}" is accepted but never fires in llama-agent: ${why}`;
      out.push(finding(settings, eventPointer, "LINT_EVENT_NEVER_FIRES", message));
      continue;
    }
    if (!Array.isArray(groups)) continue;
    groups.forEach((group: unknown, index) => {
      if (!isRecord(group) || typeof group.matcher !== "string") return;
      const pointer = jsonPointer(["hooks", event, index, "matcher"]);
      if (spec.matcherField === "tool_name") {
        const problem = toolMatcherProblem(group.matcher, profile);
        const code = problem?.neverMatches ? "LINT_TOOL_NEVER_MATCHES" : "LINT_TOOL_PARTLY_MATCHES";
        if (problem) out.push(finding(settings, pointer, code, problem.message));
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
  // Only a settings file's disableAllHooks counts; it turns plugins' hooks off too.
  const chain = [...files.values()].filter((f) => f.scope !== "plugin");
  const withHooks = new Set(
    [...loaded.handlers, ...loaded.skipped].map(({ source }) => source.file),
  );
  const pluginHooks = [...files.values()].filter((f) => f.scope === "plugin");
  const pluginsToo = pluginHooks.some((f) => withHooks.has(f.settings.path))
    ? ", and every plugin's"
    : "";
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
        `${including}${pluginsToo}: remove it, or set it to false, to run hooks`;
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

/** A plugin's hook names scripts from its plugin too (`${CLAUDE_PLUGIN_ROOT}/hooks/x.sh`). */
const PLUGIN_SCRIPT_BASES = ["project", "plugin"] as const;

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
    const dirs = { project: options.cwd, plugin: source.plugin };
    const bases = source.plugin === undefined ? ["project" as const] : PLUGIN_SCRIPT_BASES;
    return scriptReferences(handler, bases).map(async (reference) => {
      const problem = await checkScript(reference, dirs, cachedStat);
      if (problem === undefined) return undefined;
      const pointer = source.pointer + jsonPointer(reference.field);
      return finding(settings, pointer, problem.code, problem.message, "error");
    });
  });
  return (await Promise.all(checks)).filter((d) => d !== undefined);
}

function sortByChain(findings: Diagnostic[], loaded: LintedHooks): Diagnostic[] {
  const ordered = [
    ...loaded.files.map((file) => file.path),
    ...(loaded.plugins ?? []).map((plugin) => plugin.hooksFile),
  ];
  const rank = new Map(ordered.map((path, index) => [path, index]));
  const fileRank = (d: Diagnostic) => rank.get(d.file) ?? ordered.length;
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
