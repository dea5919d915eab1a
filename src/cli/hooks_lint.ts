/**
 * `llama-agent hooks lint`: the problems of a directory's settings chain, and the hooks that
 * load but would not do what their author expects. Exit 1 when there is an error.
 */
import { type CliCommand, type CliIo, type CommandSpec, EXIT } from "./command_spec.ts";
import { CWD_FLAG, startCommand } from "./start_command.ts";
import { displayPath } from "./display_path.ts";
import { type Diagnostic, formatDiagnostic } from "../hooks/diagnostic.ts";
import { loadSettingsChain } from "../hooks/settings_chain.ts";
import { lintSettings } from "../hooks/settings_lint.ts";

const FORMATS = ["pretty", "json", "github"] as const;
type LintFormat = (typeof FORMATS)[number];

const spec: CommandSpec = {
  path: ["hooks", "lint"],
  summary: "report settings problems and hooks that would not do what you expect",
  description: "Reads $HOME/.claude/settings.json, <dir>/.claude/settings.json and\n" +
    "<dir>/.claude/settings.local.json (no walk-up), as a session in <dir> would, and reports\n" +
    "invalid entries plus warnings: tool matchers that never match a llama-agent tool,\n" +
    "timeouts that look like milliseconds, JSONC that Claude Code rejects, fields and events\n" +
    'with no effect here, "disableAllHooks", and $CLAUDE_PROJECT_DIR scripts that are\n' +
    "missing or not executable. Exits 1 when there is at least one error, else 0.",
  flags: [
    CWD_FLAG,
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
    "llama-agent hooks lint --cwd ../other-project --format json",
    "llama-agent hooks lint --format github   # in a GitHub Actions step",
  ],
};

/** What every format is rendered from. */
export interface LintReport {
  readonly cwd: string;
  readonly home: string | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

export const hooksLintCommand: CliCommand = {
  spec,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const started = await startCommand(spec, args, io);
    if (!started.ok) return started.exitCode;
    const { invocation } = started;
    const format = FORMATS.find((f) => f === invocation.flags["format"]) ?? "pretty";
    const home = io.env("HOME");
    const loaded = await loadSettingsChain({ cwd: invocation.cwd, home });
    const diagnostics = await lintSettings(loaded, { cwd: invocation.cwd });
    io.stdout(RENDERERS[format]({ cwd: invocation.cwd, home, diagnostics }));
    return diagnostics.some((d) => d.severity === "error") ? EXIT.failure : EXIT.ok;
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

/** One line per finding, a blank line between files, then the totals. */
export function renderPretty({ cwd, home, diagnostics }: LintReport): string {
  if (diagnostics.length === 0) return "No problems found\n";
  const lines: string[] = [];
  let file: string | undefined;
  for (const d of diagnostics) {
    if (file !== undefined && d.file !== file) lines.push("");
    file = d.file;
    lines.push(formatDiagnostic({ ...d, file: displayPath(d.file, cwd, home) }));
  }
  const { errors, warnings } = counts(diagnostics);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  lines.push("", `${plural(errors, "error")}, ${plural(warnings, "warning")}`);
  return lines.join("\n") + "\n";
}

export function renderJson({ cwd, diagnostics }: LintReport): string {
  return JSON.stringify({ cwd, diagnostics, ...counts(diagnostics) }, null, 2) + "\n";
}

/**
 * GitHub Actions workflow commands, one per finding. Paths are relative to the directory, which
 * is the repository root when the step runs there; a file outside it keeps its absolute path.
 */
export function renderGithub({ cwd, diagnostics }: LintReport): string {
  return diagnostics.map((d) => {
    const file = d.file.startsWith(cwd + "/") ? d.file.slice(cwd.length + 1) : d.file;
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
