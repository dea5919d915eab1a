/**
 * `llama-agent hooks lint`: the problems of a directory's settings chain, and the hooks that
 * load but would not do what their author expects under the chosen profile. With `--fix`, tool
 * matchers that name only the other profile's tools are first rewritten in place to lists that
 * work in both, and the chain is linted as it then is. Exit 1 when there is an error (or a file
 * could not be fixed, or under `--strict` a hook never fires in the profile). Under the claude
 * profile the plugins' `hooks/hooks.json` files are linted like settings files; `--fix` never
 * writes a plugin's files. The profile is `--compat`'s, or decided from the hooks as a session's
 * is (`auto`), and the report says which and why.
 */
import { type CliCommand, type CliIo, type CommandSpec, EXIT } from "../command_spec.ts";
import { COMPAT_FLAG } from "../options/compat_flag.ts";
import { CWD_FLAG, startCommand } from "../start_command.ts";
import { displayPath } from "../../display_path.ts";
import { PLUGIN_DIR_FLAG } from "../options/plugin_dir_flag.ts";
import { invocationHooks } from "../invocation_hooks.ts";
import { hookProblems } from "../hook_problems.ts";
import { type Diagnostic, formatDiagnostic } from "../../hooks/diagnostic.ts";
import { neverRunningRegistrations } from "../../hooks/lint/foreign_tool_references.ts";
import {
  fixSettingsFile,
  type MatcherFix,
  type ReplaceText,
} from "../../hooks/lint/matcher_fix.ts";
import { replaceConfinedText } from "../../agent/files/confined_write.ts";
import { shownPaths, writePlace } from "../write_place.ts";
import { loadSessionHooks } from "../../hooks/session_hooks.ts";
import { strictFindings } from "../../hooks/lint/strict_lint.ts";
import { describeDecision, type ProfileDecision } from "../../hooks/profile_decision.ts";

const FORMATS = ["pretty", "json", "github"] as const;
type LintFormat = (typeof FORMATS)[number];

const spec: CommandSpec = {
  path: ["hooks", "lint"],
  summary: "report settings problems and hooks that would not do what you expect",
  description: "Reads $HOME/.claude/settings.json, <dir>/.claude/settings.json and\n" +
    "<dir>/.claude/settings.local.json (no walk-up), as a session in <dir> would, says which\n" +
    "profile a session there gets and why (--compat auto, the default: claude when the hooks\n" +
    "name Claude Code's tools and none of llama-agent's, else llama), and reports\n" +
    'invalid entries plus warnings: tool matchers and "if" rules that never match a tool of\n' +
    "the profile (Claude Code's Bash, Edit, ... under llama), scripts that check\n" +
    "tool_name against the other profile's names, timeouts that look like milliseconds, JSONC\n" +
    'that Claude Code rejects, fields and events with no effect here, "disableAllHooks",\n' +
    "$CLAUDE_PROJECT_DIR and ${CLAUDE_PLUGIN_ROOT} scripts that are missing or not\n" +
    "executable, commands not on PATH, bash-only syntax that /bin/sh rejects, and\n" +
    "${CLAUDE_PLUGIN_ROOT} in a settings hook (it is\n" +
    "empty outside a plugin). Under the claude profile, the hooks/hooks.json of each --plugin-dir\n" +
    "plugin and of each plugin the settings enable is checked like a settings file, and a\n" +
    'plugin that cannot load says why. --fix rewrites list matchers such as "Bash" to\n' +
    '"Bash|shell", which match in both Claude Code and llama-agent, keeping comments and\n' +
    "formatting, in every file of the chain that holds such a matcher: that includes\n" +
    "$HOME/.claude/settings.json, which every project's sessions read (a symlinked file's\n" +
    "target is rewritten, and named, when it lies in the launch directory, $HOME or the\n" +
    "project). It fixes settings files only, never a plugin's files.\n" +
    "--strict (for CI) makes each warning that a hook never fires in the profile an error:\n" +
    'a tool matcher or "if" that never matches, a tool_name check against the other\n' +
    "profile's names, an event only the other profile fires.\n" +
    "Exits 1 when there is at least one error, else 0.",
  flags: [
    CWD_FLAG,
    COMPAT_FLAG,
    PLUGIN_DIR_FLAG,
    {
      name: "fix",
      type: "boolean",
      description: "Add this profile's tool names to list matchers that name the other's, in " +
        "place, in $HOME/.claude/settings.json too (settings files only, not plugins)",
    },
    {
      name: "strict",
      type: "boolean",
      description: "Make a warning that a hook never fires in the profile an error (exit 1), " +
        "for CI",
    },
    {
      name: "format",
      type: "string",
      valueName: "FORMAT",
      description: "pretty (default), json, or github (workflow annotations)",
      choices: FORMATS,
    },
  ],
  positionals: [],
  examples: [
    "llama-agent hooks lint",
    "llama-agent hooks lint --cwd packages/api --format json",
    "llama-agent hooks lint --compat llama --fix   # Bash -> Bash|shell, Edit|Write -> Edit|Write|fs_edit|fs_write",
    "llama-agent hooks lint --compat claude",
    "llama-agent hooks lint --compat claude --plugin-dir ~/plugins/my-plugin",
    "llama-agent hooks lint --format github   # in a GitHub Actions step",
    "llama-agent hooks lint --strict   # CI: exit 1 when a hook never fires here",
  ],
};

/** One matcher `--fix` rewrote, in the file it was in. */
export interface FileFix extends MatcherFix {
  readonly file: string;
  /** The file actually written, when `file` is a symlink to it (or lies under one). */
  readonly target?: string;
}

/** What every format is rendered from. */
export interface LintReport {
  readonly cwd: string;
  readonly home: string | undefined;
  readonly diagnostics: readonly Diagnostic[];
  /** Hooks whose matcher or `if` never matches under the profile (as `hooks list` counts). */
  readonly neverRun?: number;
  /** The profile the hooks were linted under, and why it is that one. */
  readonly decision?: ProfileDecision;
  /** Present with `--fix`. */
  readonly fixes?: readonly FileFix[];
}

export const hooksLintCommand: CliCommand = {
  spec,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const started = await startCommand(spec, args, io);
    if (!started.ok) return started.exitCode;
    const { invocation } = started;
    const format = FORMATS.find((f) => f === invocation.flags["format"]) ?? "pretty";
    const chosen = await invocationHooks(invocation, io);
    if (!chosen.ok) return chosen.exitCode;
    const { decision } = chosen.choice;
    const { profile } = decision;
    const { cwd } = invocation;
    const home = io.env("HOME");
    // After --fix, the files are linted again under the profile decided before it.
    const load = () => loadSessionHooks(cwd, home, { profile, pluginDirs: chosen.pluginDirs });
    let hooks = chosen.choice.hooks;
    let fixes: FileFix[] | undefined;
    let fixFailed = false;
    if (invocation.flags["fix"] === true) {
      fixes = [];
      // Never through a symlink that leads out of the launch directory, $HOME and the project.
      const place = await writePlace(io, cwd);
      const replace: ReplaceText = async (path, text) => {
        const written = await replaceConfinedText(path, text, place, shownPaths(io, path));
        if (!written.ok) throw new Error(written.reason);
        return written.written;
      };
      // The chain's files only: a plugin's files are its author's (and a cache copy is rewritten
      // by the next install).
      for (const file of hooks.loaded.files) {
        if (file.status !== "loaded") continue;
        const fixed = await fixSettingsFile(file.path, profile, replace);
        if (fixed.ok) {
          const target = fixed.target === file.path ? {} : { target: fixed.target };
          fixes.push(...fixed.fixes.map((fix) => ({ ...fix, file: file.path, ...target })));
        } else {
          io.stderr(fixed.message + "\n");
          fixFailed = true;
        }
      }
      // Lint what the files now say.
      if (fixes.length > 0) hooks = await load();
    }
    const linted = await hookProblems(hooks.loaded, { cwd, profile, env: io.env });
    const diagnostics = invocation.flags["strict"] === true ? strictFindings(linted) : linted;
    const neverRun = neverRunningRegistrations(hooks.registry, profile).length;
    io.stdout(RENDERERS[format]({ cwd, home, diagnostics, neverRun, decision, fixes }));
    const failed = fixFailed || diagnostics.some((d) => d.severity === "error");
    return failed ? EXIT.failure : EXIT.ok;
  },
};

const RENDERERS: Readonly<Record<LintFormat, (report: LintReport) => string>> = {
  pretty: renderPretty,
  json: renderJson,
  github: renderGithub,
};

function counts(diagnostics: readonly Diagnostic[]): { errors: number; warnings: number } {
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  return { errors, warnings: diagnostics.length - errors };
}

/** `--fix`'s changes, one line each, then a blank line. */
function fixLines(fixes: readonly FileFix[], cwd: string, home: string | undefined): string[] {
  if (fixes.length === 0) return ["Nothing to fix", ""];
  return [
    ...fixes.map((fix) =>
      `${displayPath(fix.file, cwd, home)}:${fix.line}: Fixed matcher "${fix.from}" to ` +
      `"${fix.to}" at ${fix.pointer}` +
      (fix.target === undefined ? "" : ` (written to "${displayPath(fix.target, cwd, home)}")`)
    ),
    "",
  ];
}

/** One line per finding, a blank line between files, then the totals. */
export function renderPretty(
  { cwd, home, diagnostics, neverRun = 0, decision, fixes }: LintReport,
): string {
  const fixed = fixes === undefined ? [] : fixLines(fixes, cwd, home);
  // Last, under the totals: the profile the findings hold for, and why it is that one.
  const profile = decision === undefined ? [] : [`Profile: ${describeDecision(decision)}`];
  if (diagnostics.length === 0) {
    return [...fixed, "No problems found", ...profile].join("\n") + "\n";
  }
  const lines: string[] = [...fixed];
  let file: string | undefined;
  for (const d of diagnostics) {
    if (file !== undefined && d.file !== file) lines.push("");
    file = d.file;
    lines.push(formatDiagnostic({ ...d, file: displayPath(d.file, cwd, home) }));
  }
  const { errors, warnings } = counts(diagnostics);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const never = neverRun === 0
    ? ""
    : `; ${plural(neverRun, "hook")} never ${neverRun === 1 ? "runs" : "run"} here`;
  lines.push("", `${plural(errors, "error")}, ${plural(warnings, "warning")}${never}`, ...profile);
  return lines.join("\n") + "\n";
}

export function renderJson(
  { cwd, diagnostics, neverRun = 0, decision, fixes }: LintReport,
): string {
  const report = {
    cwd,
    ...(decision === undefined ? {} : {
      profile: decision.profile.id,
      profileChoice: { auto: decision.auto, reason: decision.reason },
    }),
    ...(fixes === undefined ? {} : { fixes }),
    diagnostics,
    ...counts(diagnostics),
    neverRun,
  };
  return JSON.stringify(report, null, 2) + "\n";
}

/**
 * GitHub Actions workflow commands, one per finding. Paths are relative to the directory, which
 * is the repository root when the step runs there; a file outside it keeps its absolute path.
 */
export function renderGithub({ cwd, diagnostics, fixes = [] }: LintReport): string {
  const relative = (file: string) => file.startsWith(cwd + "/") ? file.slice(cwd.length + 1) : file;
  const notices = fixes.map((fix) =>
    `::notice file=${escapeProperty(relative(fix.file))},line=${fix.line},title=FIXED::` +
    escapeData(
      `Fixed matcher "${fix.from}" to "${fix.to}"` +
        (fix.target === undefined ? "" : ` (written to "${relative(fix.target)}")`),
    ) + "\n"
  );
  return notices.join("") + diagnostics.map((d) => {
    const file = relative(d.file);
    const properties = [`file=${escapeProperty(file)}`];
    if (d.line !== undefined) properties.push(`line=${d.line}`);
    if (d.column !== undefined) properties.push(`col=${d.column}`);
    properties.push(`title=${escapeProperty(d.code)}`);
    return `::${d.severity} ${properties.join(",")}::${escapeData(d.message)}\n`;
  }).join("");
}

function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}
