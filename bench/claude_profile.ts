/**
 * What the `claude` profile's plugins, Claude-format transcript and PermissionRequest cost. Every
 * figure is one JSON line on stdout with its baseline measured in the same run, interleaved, as
 * medians; a summary goes to stderr. The orphan guard is installed as main.ts installs it, so
 * each hook pays for its group as in the agent. A full run took 35-46 s on a shared 2-core machine.
 *
 * 1. One PreToolUse firing whose one `true` hook is a `--plugin-dir` plugin's (its environment
 *    gets CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA; the data directory is already made, as after
 *    a session's first plugin hook) against the same hook from `.claude/settings.json`. Engine
 *    level, as bench/dispatch.ts fires it: one runner per arm, as a session has one.
 * 2. A `claude`-profile tool turn (one Read, then an answer; a `true` PreToolUse and a `true` Stop
 *    hook, so the Claude-format transcript is flushed before each firing) against the same turn,
 *    project and hooks with no Claude-format transcript. The baseline is the same profile with
 *    HOME unset and XDG_STATE_HOME set: the agent then writes no Claude-format transcript (an
 *    absolute HOME is where it would go, claude_transcript_path.ts) and gives hooks raw.jsonl,
 *    which stays where it is in both arms. Tools, input checks, payloads and hooks are the same;
 *    only the transcript differs. A `llama`-profile turn would differ in its tool names, its input
 *    checks and its payloads too, so it is not the baseline. Both agents are in this process
 *    (bench/seam_agent.ts says why), each sample a fresh session (figures 2 and 4 are in
 *    bench/claude_session_figures.ts).
 * 3. `loadSessionHooks` under `claude` with three `--plugin-dir` plugins, three hooks in each
 *    `hooks.json`, against the same nine hooks in the three settings files (user, project,
 *    local), the same profile, no plugin.
 * 4. A Bash call the default mode asks about, with a PermissionRequest `true` hook (no decision,
 *    so the client is asked after it) against the same call without the hook; the client allows
 *    at once in both. Reported as a ratio of turns, as ms added and in bare spawns.
 *
 *   deno task bench:claude
 *   deno run -A bench/claude_profile.ts --quick     # fewer samples, for a smoke run
 */
import { installOrphanGuard } from "../src/os/process/guard_group.ts";
import { createHandlerRunner } from "../src/hooks/handlers/handler_dispatch.ts";
import type { HandlerRunner } from "../src/hooks/handler_runner.ts";
import { fireHooks } from "../src/hooks/hook_engine.ts";
import { createOrphanGuard } from "../src/os/process/orphan_guard.ts";
import { selectRegistrations } from "../src/hooks/registry.ts";
import { loadSessionHooks, type SessionHooks } from "../src/hooks/session_hooks.ts";
import { compatProfile } from "../src/profile/compat_profile.ts";
import { measureInterleaved, median, printFigure } from "./bench_stats.ts";
import { commandHook } from "./seam_agent.ts";
import {
  benchClaudeTranscriptTurn,
  benchPermissionRequest,
  type BenchPlace,
} from "./claude_session_figures.ts";

const quick = Deno.args.includes("--quick");
const FIRINGS = quick ? 20 : 500;
const TURN_ROUNDS = quick ? 10 : 150;
const LOADS = quick ? 200 : 3000;
const WARM_UP_ROUNDS = quick ? 2 : 5;
const CLAUDE = compatProfile("claude");

const started = performance.now();
const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama-agent-bench-claude-" }));
const home = `${root}/home`;
const launch = `${root}/launch`;
const summary: string[] = [];
const guard = createOrphanGuard({
  dir: `${root}/guard`,
  onFailure: (message) => {
    throw new Error(`The bench needs the orphan guard: ${message}`);
  },
});
const place: BenchPlace = {
  launch,
  home,
  project,
  rounds: TURN_ROUNDS,
  warmUpRounds: WARM_UP_ROUNDS,
  summary,
};
const previousGuard = installOrphanGuard(guard);
try {
  await Deno.mkdir(home);
  await Deno.mkdir(launch);
  await benchPluginHookFiring();
  await benchClaudeTranscriptTurn(place);
  await benchLoadingPluginHooks();
  await benchPermissionRequest(place);
} finally {
  installOrphanGuard(previousGuard);
  await guard.close();
  await Deno.remove(root, { recursive: true });
}
summary.push(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.error(summary.map((line) => `bench/claude: ${line}`).join("\n"));

/** `dir/rel` with `text`, its directories made. */
async function write(dir: string, rel: string, text: string): Promise<void> {
  const path = `${dir}/${rel}`;
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

/** A project under the launch directory with `.claude/settings.json` when settings are given. */
async function project(name: string, settings?: unknown): Promise<string> {
  const dir = `${launch}/${name}`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(`${dir}/notes.txt`, "Water the plants on Tuesday.\nCall the plumber.\n");
  if (settings !== undefined) {
    await write(dir, ".claude/settings.json", JSON.stringify(settings, null, 2));
  }
  return dir;
}

/** A `--plugin-dir` plugin: its manifest and `hooks/hooks.json` holding `hooks`. */
async function plugin(name: string, hooks: unknown): Promise<string> {
  const dir = `${root}/plugins/${name}`;
  await write(dir, ".claude-plugin/plugin.json", JSON.stringify({ name }));
  await write(dir, "hooks/hooks.json", JSON.stringify({ hooks }, null, 2));
  return dir;
}

/** The hooks loaded without a diagnostic, exactly `count` of them. */
function checkLoaded(hooks: SessionHooks, count: number, what: string): void {
  const { handlers, diagnostics } = hooks.loaded;
  if (handlers.length !== count || diagnostics.length > 0) {
    throw new Error(
      `${what} loaded ${handlers.length} hook(s) (expected ${count}): ` +
        JSON.stringify(diagnostics.map((d) => d.message)),
    );
  }
}

/** Figure 1's firing: PreToolUse of a Bash call, its hooks run by the arm's own runner. */
async function firePreToolUse(cwd: string, hooks: SessionHooks, runHandler: HandlerRunner) {
  const firing = await fireHooks({
    event: "PreToolUse",
    matcherValue: "Bash",
    payload: {
      session_id: "bench",
      transcript_path: `${cwd}/raw.jsonl`,
      cwd,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_bench",
    },
    registrations: selectRegistrations(hooks.registry, "PreToolUse", "Bash").matched,
    runHandler,
    context: { event: "PreToolUse", cwd, sessionId: "bench" },
  });
  if (firing.runs.length !== 1 || firing.runs[0]!.outcome.kind !== "success") {
    throw new Error(`The bench firing went wrong: ${JSON.stringify(firing.runs)}`);
  }
  return firing.runs[0]!.registration;
}

/** Figure 1: a plugin's hook fires as fast as the same hook from a settings file. */
async function benchPluginHookFiring(): Promise<void> {
  const preTool = { PreToolUse: [{ matcher: "Bash", hooks: [commandHook("true")] }] };
  const fromSettings = await project("settings_hook", { hooks: preTool });
  const fromPlugin = await project("plugin_hook");
  const guardPlugin = await plugin("guard", preTool);
  const settingsHooks = await loadSessionHooks(fromSettings, home, { profile: CLAUDE });
  const pluginHooks = await loadSessionHooks(fromPlugin, home, {
    profile: CLAUDE,
    pluginDirs: [guardPlugin],
  });
  checkLoaded(settingsHooks, 1, "the settings project");
  checkLoaded(pluginHooks, 1, "the plugin");
  const baseEnv = { PATH: Deno.env.get("PATH") ?? "" };
  const settingsRunner = createHandlerRunner({ baseEnv });
  const pluginRunner = createHandlerRunner({ baseEnv });
  // The first plugin firing makes the data directory; the figure is every firing after it.
  const registration = await firePreToolUse(fromPlugin, pluginHooks, pluginRunner);
  const dataDir = registration.source.plugin?.dataDir;
  if (registration.source.scope !== "plugin" || dataDir === undefined) {
    throw new Error("The plugin arm fired a hook that is not the plugin's");
  }
  if (!(await Deno.stat(dataDir)).isDirectory) throw new Error(`No data directory ${dataDir}`);
  const { baseline, measured } = await measureInterleaved(
    FIRINGS,
    () => firePreToolUse(fromSettings, settingsHooks, settingsRunner).then(() => undefined),
    () => firePreToolUse(fromPlugin, pluginHooks, pluginRunner).then(() => undefined),
  );
  const [pluginMs, settingsMs] = [median(measured), median(baseline)];
  printFigure({
    bench: "pretooluse_plugin_dir_true_hook_vs_same_settings_hook",
    median_ms: pluginMs,
    baseline: "the same PreToolUse firing, its one true hook from .claude/settings.json",
    baseline_median_ms: settingsMs,
    // Our own bar (no issue names one): a plugin hook should cost what a settings hook does.
    target_ratio_max: 1.05,
    ...{ samples: measured.length, plugin_env: ["CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA"] },
  });
  summary.push(
    `plugin hook firing ${pluginMs.toFixed(2)} vs settings hook ${settingsMs.toFixed(2)} ms ` +
      `(${(pluginMs / settingsMs).toFixed(3)}, our target <= 1.05)`,
  );
}

/** Three hooks of one file: one per event, each a script under `base`. */
function threeHooks(base: string, n: number) {
  const script = (event: string) => commandHook(`"${base}/hooks/${event}_${n}.sh"`);
  return {
    PreToolUse: [{ matcher: "Bash", hooks: [script("pre_tool_use")] }],
    PostToolUse: [{ matcher: "Edit|Write", hooks: [script("post_tool_use")] }],
    SessionStart: [{ matcher: "startup", hooks: [script("session_start")] }],
  };
}

/** Figure 3: loading nine hooks from three plugins against loading them from three settings files. */
async function benchLoadingPluginHooks(): Promise<void> {
  const pluginDirs = await Promise.all(
    [1, 2, 3].map((n) => plugin(`loader_${n}`, threeHooks("${CLAUDE_PLUGIN_ROOT}", n))),
  );
  const pluginCwd = await project("load_plugins");
  const pluginHome = `${root}/load_home_plugins`;
  const settingsHome = `${root}/load_home_settings`;
  await Deno.mkdir(pluginHome);
  const settingsCwd = await project("load_settings");
  const settingsFile = (n: number) =>
    JSON.stringify({ hooks: threeHooks("$CLAUDE_PROJECT_DIR/.claude", n) }, null, 2);
  await write(settingsHome, ".claude/settings.json", settingsFile(1));
  await write(settingsCwd, ".claude/settings.json", settingsFile(2));
  await write(settingsCwd, ".claude/settings.local.json", settingsFile(3));
  const fromPlugins = () =>
    loadSessionHooks(pluginCwd, pluginHome, { profile: CLAUDE, pluginDirs });
  const fromSettings = () => loadSessionHooks(settingsCwd, settingsHome, { profile: CLAUDE });
  checkLoaded(await fromPlugins(), 9, "the three plugins");
  checkLoaded(await fromSettings(), 9, "the three settings files");
  const { baseline, measured } = await measureInterleaved(
    LOADS,
    () => fromSettings().then(() => undefined),
    () => fromPlugins().then(() => undefined),
  );
  const [pluginMs, settingsMs] = [median(measured), median(baseline)];
  printFigure({
    bench: "load_session_hooks_three_plugin_dirs_vs_three_settings_files",
    median_ms: pluginMs,
    baseline: "loadSessionHooks under claude, the same 9 hooks in user, project and local " +
      "settings files (3 each), no plugin",
    baseline_median_ms: settingsMs,
    // Plugins: three failed settings opens, then each plugin.json and hooks.json.
    ...{ samples: measured.length, hooks: 9, files_read: 6, baseline_files_read: 3 },
  });
  summary.push(
    `loading 9 hooks from 3 plugins ${pluginMs.toFixed(3)} vs from 3 settings files ` +
      `${settingsMs.toFixed(3)} ms (${(pluginMs / settingsMs).toFixed(2)}; report)`,
  );
}
