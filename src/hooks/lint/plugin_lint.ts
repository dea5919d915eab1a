/**
 * Lint that concerns plugins: the plugin variables written into a settings hook, where they are
 * empty, and which files of a loaded chain are plugins' `hooks/hooks.json` (linted like settings
 * files, claude-compat.md §6a).
 *
 * Claude Code sets `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA` only for a plugin's own hooks.
 * A plugin's hook copied by hand into a settings file keeps its `${CLAUDE_PLUGIN_ROOT}/hooks/x.sh`,
 * which the shell then expands to `/hooks/x.sh`: `not found` (exit 127) every time it fires, and
 * a guard that fails that way fails open.
 */
import { type Diagnostic, jsonPointer } from "../diagnostic.ts";
import { finding } from "./lint_finding.ts";
import type { LoadedPlugin } from "../plugins/plugin_hooks.ts";
import type { LoadedHandler } from "../settings/settings_chain.ts";
import type { SettingsFile } from "../settings/settings_file.ts";

const PLUGIN_VARIABLE =
  /\$\{(CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA)\}|\$(CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA)(?![A-Za-z0-9_])/g;

/** The `hooks/hooks.json` of each plugin that parsed, by path, with its plugin. */
export function pluginHooksFiles(
  plugins: readonly LoadedPlugin[],
): Map<string, { readonly plugin: LoadedPlugin; readonly settings: SettingsFile }> {
  const files = new Map<string, { plugin: LoadedPlugin; settings: SettingsFile }>();
  for (const plugin of plugins) {
    if (plugin.settings !== undefined) {
      files.set(plugin.hooksFile, { plugin, settings: plugin.settings });
    }
  }
  return files;
}

/**
 * A settings hook (not a plugin's) whose command or args use a plugin variable: one finding per
 * field and variable.
 */
export function pluginVariableFindings(entry: LoadedHandler, settings: SettingsFile): Diagnostic[] {
  const { handler, source } = entry;
  if (handler.type !== "command" || source.plugin !== undefined) return [];
  const exec = handler.args !== undefined;
  const fields: [readonly (string | number)[], string][] = [
    [["command"], handler.command],
    ...(handler.args ?? []).map((arg, i): [readonly (string | number)[], string] => [
      ["args", i],
      arg,
    ]),
  ];
  const out: Diagnostic[] = [];
  for (const [field, text] of fields) {
    const seen = new Set<string>();
    for (const match of text.matchAll(PLUGIN_VARIABLE)) {
      const name = match[1] ?? match[2]!;
      if (seen.has(name)) continue;
      seen.add(name);
      const word = wordAt(text, match.index, match[0].length);
      const message = exec ? execMessage(name, word) : shellMessage(name, word);
      out.push(
        finding(
          settings,
          source.pointer + jsonPointer(field),
          "LINT_PLUGIN_ROOT_OUTSIDE_PLUGIN",
          message,
        ),
      );
    }
  }
  return out;
}

const REMEDY = "load the plugin instead of copying its hooks into settings (--plugin-dir with " +
  '--compat claude, or install it and enable it in "enabledPlugins"), or name the script ' +
  'from the project with "$CLAUDE_PROJECT_DIR"';

function shellMessage(name: string, word: Word): string {
  const becomes = word.after === "" ? "nothing" : `"${word.after}"`;
  return `"\${${name}}" is empty in a settings hook: Claude Code sets ${name} only for the ` +
    `hooks of a plugin, so "${word.text}" becomes ${becomes} here and the hook fails ` +
    `("not found"); ${REMEDY}`;
}

function execMessage(name: string, word: Word): string {
  return `"\${${name}}" is not replaced in a settings hook: Claude Code sets ${name} only for ` +
    `the hooks of a plugin, so "${word.text}" is passed as written and the hook fails ` +
    `("not found"); ${REMEDY}`;
}

interface Word {
  /** The word the variable is in, quotes left out, e.g. `${CLAUDE_PLUGIN_ROOT}/hooks/x.sh`. */
  readonly text: string;
  /** The same word with the variable empty, e.g. `/hooks/x.sh`. */
  readonly after: string;
}

/** The shell word around a match, read only as far as blanks: enough to show the path. */
function wordAt(text: string, index: number, length: number): Word {
  let start = index;
  while (start > 0 && !/\s/.test(text[start - 1]!)) start--;
  let end = index + length;
  while (end < text.length && !/\s/.test(text[end]!)) end++;
  const unquote = (s: string) => s.replace(/["']/g, "");
  const before = text.slice(start, index);
  const rest = text.slice(index + length, end);
  return {
    text: unquote(before + text.slice(index, index + length) + rest),
    after: unquote(before + rest),
  };
}
