/**
 * `llama-agent hooks list`: every registration of a directory's settings chain and of the plugins
 * the profile reads, where it comes from (file:line, and the plugin) and whether it fires under
 * the chosen profile, then the problems `hooks lint` finds in them (hook_problems.ts).
 */
import { type CliCommand, type CliIo, type CommandSpec, EXIT } from "../command_spec.ts";
import { COMPAT_FLAG } from "../options/compat_flag.ts";
import { CWD_FLAG, startCommand } from "../start_command.ts";
import { displayPath } from "../../display_path.ts";
import { PLUGIN_DIR_FLAG } from "../options/plugin_dir_flag.ts";
import { invocationHooks } from "../invocation_hooks.ts";
import { type Diagnostic, formatDiagnostic } from "../../hooks/diagnostic.ts";
import { hookProblems, problemCounts } from "../hook_problems.ts";
import {
  describeGroup,
  eventGroup,
  HOOK_EVENTS,
  type HookEventName,
} from "../../hooks/event_table.ts";
import { type HandlerConfig, summarizeHandler } from "../../hooks/handler_config.ts";
import type { SourceLocation } from "../../hooks/registration.ts";
import { registrationId } from "../../hooks/registration_id.ts";
import type { SessionHooks } from "../../hooks/session_hooks.ts";
import { describeDecision, type ProfileDecision } from "../../hooks/profile_decision.ts";
import { neverRunningRegistrations } from "../../hooks/lint/foreign_tool_references.ts";
import { type CompatProfile, compatProfile } from "../../profile/compat_profile.ts";

const spec: CommandSpec = {
  path: ["hooks", "list"],
  summary: "list every hook registration, where it comes from and whether it fires",
  description: "Reads $HOME/.claude/settings.json, <dir>/.claude/settings.json and\n" +
    "<dir>/.claude/settings.local.json (no walk-up), as a session in <dir> would, and says\n" +
    "which profile a session there gets and why (--compat auto, the default: claude when the\n" +
    "hooks name Claude Code's tools and none of llama-agent's, else llama). A hook whose\n" +
    'matcher or "if" names no tool of the profile (Claude Code\'s "Bash" under llama),\n' +
    'or whose "if" names a tool its group\'s matcher never lets through, is listed as never\n' +
    "matching. Under the claude profile, the hooks of each --plugin-dir plugin and of the\n" +
    "plugins the settings enable (enabledPlugins, installed) are listed too, each row naming\n" +
    "its plugin.",
  flags: [
    CWD_FLAG,
    COMPAT_FLAG,
    PLUGIN_DIR_FLAG,
    { name: "json", type: "boolean", description: "Print one JSON object instead of a table" },
  ],
  positionals: [],
  examples: [
    "llama-agent hooks list",
    "llama-agent hooks list --cwd packages/api --json   # --cwd: under this directory or $HOME",
    "llama-agent hooks list --compat claude",
    "llama-agent hooks list --compat claude --plugin-dir ~/plugins/my-plugin",
  ],
};

/** One row of the listing: a registration, or a valid entry that is not registered. */
export interface ListedHook {
  readonly id: string;
  readonly event: HookEventName;
  readonly matcher: string | null;
  readonly handler: { readonly type: HandlerConfig["type"]; readonly summary: string } | null;
  readonly source: SourceLocation;
  /** The plugin id (`<name>@<marketplace>`, `<name>@inline`) of a plugin's hook; absent otherwise. */
  readonly plugin?: string;
  /** `never_matches`: its matcher or `if` can never match a tool of the profile. */
  readonly status:
    | "fires"
    | "never_matches"
    | "never_emitted"
    | "dropped"
    | "unsupported"
    | "disabled";
  readonly statusText: string;
}

export function listHooks(
  hooks: SessionHooks,
  profile: CompatProfile = compatProfile(),
): ListedHook[] {
  const neverRuns = new Map(
    neverRunningRegistrations(hooks.registry, profile).map(({ entry, why }) => [entry, why]),
  );
  const rows: ListedHook[] = hooks.registry.registrations.map((r) => {
    const group = eventGroup(r.event, profile);
    const never = neverRuns.get(r);
    return {
      id: r.id,
      event: r.event,
      matcher: r.matcherSource ?? null,
      handler: { type: r.handler.type, summary: summarizeHandler(r.handler) },
      source: r.source,
      ...pluginOf(r.source),
      status: never ? "never_matches" : group === "fired" ? "fires" : "never_emitted",
      statusText: never ? `never matches: ${never.reason}` : describeGroup(group),
    };
  });
  for (const entry of hooks.registry.notRegistered) {
    rows.push({
      id: registrationId(entry.source),
      event: entry.event,
      matcher: entry.matcherSource ?? null,
      handler: entry.handler
        ? { type: entry.handler.type, summary: summarizeHandler(entry.handler) }
        : null,
      source: entry.source,
      ...pluginOf(entry.source),
      status: entry.status,
      statusText: entry.reason,
    });
  }
  // Settings files in chain order, then the plugins in load order, as they fire.
  const scopeRank = { user: 0, project: 1, local: 2, plugin: 3 } as const;
  const pluginIds = hooks.loaded.plugins.map((p) => p.location.id);
  const sourceRank = (source: SourceLocation) =>
    scopeRank[source.scope] + (source.plugin ? pluginIds.indexOf(source.plugin.id) + 1 : 0);
  return rows.sort((a, b) =>
    eventRank(a.event) - eventRank(b.event) ||
    sourceRank(a.source) - sourceRank(b.source) ||
    a.source.line - b.source.line
  );
}

function pluginOf(source: SourceLocation): { plugin?: string } {
  return source.plugin === undefined ? {} : { plugin: source.plugin.id };
}

const EVENT_ORDER = Object.keys(HOOK_EVENTS);
function eventRank(event: HookEventName): number {
  return EVENT_ORDER.indexOf(event);
}

export const hooksListCommand: CliCommand = {
  spec,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const started = await startCommand(spec, args, io);
    if (!started.ok) return started.exitCode;
    const { invocation } = started;
    const chosen = await invocationHooks(invocation, io);
    if (!chosen.ok) return chosen.exitCode;
    const { hooks, decision } = chosen.choice;
    const home = io.env("HOME");
    const rows = listHooks(hooks, decision.profile);
    const problems = await hookProblems(hooks.loaded, {
      cwd: invocation.cwd,
      profile: decision.profile,
      env: io.env,
    });
    if (invocation.flags["json"] === true) {
      const json = toJson(invocation.cwd, decision, hooks, rows, problems);
      io.stdout(JSON.stringify(json, null, 2) + "\n");
    } else {
      io.stdout(renderTable(invocation.cwd, home, hooks, rows, decision, problems));
    }
    return EXIT.ok;
  },
};

function toJson(
  cwd: string,
  decision: ProfileDecision,
  hooks: SessionHooks,
  rows: readonly ListedHook[],
  problems: readonly Diagnostic[],
) {
  return {
    cwd,
    profile: decision.profile.id,
    profileChoice: { auto: decision.auto, reason: decision.reason },
    files: hooks.loaded.files.map((f) => ({ scope: f.scope, path: f.path, status: f.status })),
    disabledBy: hooks.loaded.disabledBy,
    plugins: hooks.loaded.plugins.map((p) => ({
      id: p.location.id,
      origin: p.location.origin,
      root: p.location.root,
      hooksFile: p.hooksFile,
      status: p.status,
    })),
    hooks: rows,
    diagnostics: problems,
  };
}

function renderTable(
  cwd: string,
  home: string | undefined,
  hooks: SessionHooks,
  rows: readonly ListedHook[],
  decision: ProfileDecision,
  problems: readonly Diagnostic[],
): string {
  const out: string[] = [`Settings chain for ${cwd}`];
  const paths = hooks.loaded.files.map((file) => displayPath(file.path, cwd, home));
  const pathWidth = Math.max(...paths.map((path) => path.length));
  hooks.loaded.files.forEach((file, i) => {
    out.push(`  ${file.scope.padEnd(8)} ${paths[i]!.padEnd(pathWidth)}  ${file.status}`);
  });
  out.push(...pluginLines(cwd, home, hooks));
  out.push(`Profile: ${describeDecision(decision)}`);
  if (hooks.loaded.disabledBy.length > 0) {
    const files = hooks.loaded.disabledBy.map((p) => `"${displayPath(p, cwd, home)}"`).join(", ");
    out.push("", `All hooks are off: "disableAllHooks": true in ${files}`);
  }
  out.push("");
  if (rows.length === 0) {
    out.push("No hooks are configured.");
  } else {
    const cells = rows.map((row) => [
      row.matcher === null ? "*" : row.matcher,
      row.handler ? row.handler.type : "-",
      row.handler ? row.handler.summary : "(no usable handler)",
      (row.plugin === undefined ? "" : `plugin ${row.plugin} `) +
      `${displayPath(row.source.file, cwd, home)}:${row.source.line}`,
      row.statusText,
    ]);
    // Where a hook is written is never clipped: a cut file:line leads nowhere.
    const widths = [0, 1, 2, 3].map((i) =>
      Math.min(i === 3 ? Infinity : 48, Math.max(...cells.map((c) => (c[i] ?? "").length)))
    );
    let event: string | undefined;
    rows.forEach((row, index) => {
      if (row.event !== event) {
        event = row.event;
        out.push(event);
      }
      const cell = cells[index]!;
      const padded = cell.map((
        text,
        i,
      ) => (i < 4 ? clip(text, widths[i]!).padEnd(widths[i]!) : text));
      out.push(`  ${padded.join("  ")}`);
    });
  }
  out.push("", summaryLine(rows, problems));
  if (problems.length > 0) {
    out.push("", "Problems:");
    for (const d of problems) {
      out.push(`  ${formatDiagnostic(displayed(d, cwd, home))}`);
    }
  }
  return out.join("\n") + "\n";
}

/** The plugins found, one line each: id, directory and whether its hooks loaded. */
function pluginLines(cwd: string, home: string | undefined, hooks: SessionHooks): string[] {
  const { plugins } = hooks.loaded;
  if (plugins.length === 0) return [];
  const ids = plugins.map((p) => p.location.id);
  const roots = plugins.map((p) => displayPath(p.location.root, cwd, home));
  const idWidth = Math.max(...ids.map((id) => id.length));
  const rootWidth = Math.max(...roots.map((root) => root.length));
  return [
    "Plugins:",
    ...plugins.map((plugin, i) =>
      `  ${ids[i]!.padEnd(idWidth)}  ${roots[i]!.padEnd(rootWidth)}  ${plugin.status}`
    ),
  ];
}

function displayed(d: Diagnostic, cwd: string, home: string | undefined): Diagnostic {
  return { ...d, file: displayPath(d.file, cwd, home) };
}

function clip(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, width - 3) + "...";
}

function summaryLine(rows: readonly ListedHook[], diagnostics: readonly Diagnostic[]): string {
  const firing = rows.filter((r) => r.status === "fires").length;
  const never = rows.filter((r) => r.status === "never_matches").length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const neverText = never === 0
    ? ""
    : `, ${never} never ${never === 1 ? "matches" : "match"}: see "hooks lint"`;
  return `${plural(rows.length, "hook")} (${firing} fire here${neverText}), ` +
    problemCounts(diagnostics);
}
