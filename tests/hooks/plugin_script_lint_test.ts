/**
 * `hooks lint` on the scripts a plugin's hooks name through `${CLAUDE_PLUGIN_ROOT}`: they are
 * looked for in the plugin's directory (never the project), and one that is missing, or not
 * executable when it is the program, is an error at its `hooks.json` entry naming the plugin,
 * worded like the findings on `$CLAUDE_PROJECT_DIR` scripts.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import type { Diagnostic } from "../../src/hooks/diagnostic.ts";
import { scriptReferences } from "../../src/hooks/lint/script_path_lint.ts";
import { loadSessionHooks } from "../../src/hooks/session_hooks.ts";
import { type FindCommands, lintSettings } from "../../src/hooks/lint/settings_lint.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { pluginHooksJson, withTempRoot, writeFiles, writePlugin } from "./plugin_fixture.ts";

const CLAUDE = compatProfile("claude");
const SCRIPT = "#!/bin/sh\nexit 0\n";
/** Every name is a program on PATH: only the script findings are under test. */
const findCommands: FindCommands = (names) =>
  Promise.resolve(new Map(names.map((name) => [name, "file" as const])));

const run = (command: string, extra: Record<string, unknown> = {}) => ({
  type: "command",
  command,
  ...extra,
});

interface Linted {
  readonly diagnostics: Diagnostic[];
  /** The plugin directory, `<root>/plugins/safety-net`. */
  readonly plugin: string;
  readonly project: string;
}

/**
 * A plugin `safety-net` whose PreToolUse group holds `hooks`, beside a project with `project`
 * files (and `settings` as its settings file), linted under the claude profile.
 */
async function lintPlugin(
  setup: {
    readonly hooks: readonly Record<string, unknown>[];
    readonly pluginFiles?: Readonly<Record<string, string>>;
    readonly projectFiles?: Readonly<Record<string, string>>;
    readonly settings?: string;
    /** Plugin files made `0644` after they are written. */
    readonly notExecutable?: readonly string[];
  },
  check: (linted: Linted) => void,
): Promise<void> {
  await withTempRoot(async (root) => {
    const project = `${root}/project`;
    const home = `${root}/home`;
    await writeFiles(home, { ".keep": "" });
    await writeFiles(project, {
      ".keep": "",
      ...setup.projectFiles,
      ...(setup.settings === undefined ? {} : { ".claude/settings.json": setup.settings }),
    });
    const plugin = await writePlugin(`${root}/plugins/safety-net`, "safety-net", {
      hooksJson: pluginHooksJson({ PreToolUse: [{ matcher: "Bash", hooks: setup.hooks }] }),
      files: setup.pluginFiles,
    });
    for (const file of setup.notExecutable ?? []) await Deno.chmod(`${plugin}/${file}`, 0o644);
    const { loaded } = await loadSessionHooks(project, home, {
      profile: CLAUDE,
      pluginDirs: [plugin],
    });
    const diagnostics = await lintSettings(loaded, { cwd: project, profile: CLAUDE, findCommands });
    check({ diagnostics, plugin, project });
  });
}

const scriptFindings = (diagnostics: readonly Diagnostic[]) =>
  diagnostics.filter((d) => d.code.startsWith("LINT_SCRIPT_"));

Deno.test("a plugin's ${CLAUDE_PLUGIN_ROOT} script that is missing or not executable is an error at its hooks.json entry, naming the plugin", async () => {
  await lintPlugin({
    hooks: [
      run("${CLAUDE_PLUGIN_ROOT}/hooks/missing.sh"),
      run('"$CLAUDE_PLUGIN_ROOT"/hooks/plain.sh --strict'),
      run('bash "${CLAUDE_PLUGIN_ROOT}/hooks/plain.sh"'),
      run("${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"),
      run("python3 -u ${CLAUDE_PLUGIN_ROOT}/hooks/gone.py"),
      run("${CLAUDE_PLUGIN_ROOT}/hooks/gone.sh", { args: ["x"] }),
      run("node", { args: ["$CLAUDE_PLUGIN_ROOT/hooks/gone.js"] }),
      run("${CLAUDE_PLUGIN_ROOT}/hooks"),
    ],
    pluginFiles: { "hooks/plain.sh": SCRIPT, "hooks/guard.sh": SCRIPT },
    notExecutable: ["hooks/plain.sh"],
  }, ({ diagnostics, plugin }) => {
    const found = scriptFindings(diagnostics);
    assertEquals(
      found.map((d) => [d.severity, d.code, d.file, d.pointer]),
      [
        [
          "error",
          "LINT_SCRIPT_MISSING",
          `${plugin}/hooks/hooks.json`,
          "/hooks/PreToolUse/0/hooks/0/command",
        ],
        [
          "error",
          "LINT_SCRIPT_NOT_EXECUTABLE",
          `${plugin}/hooks/hooks.json`,
          "/hooks/PreToolUse/0/hooks/1/command",
        ],
        [
          "error",
          "LINT_SCRIPT_MISSING",
          `${plugin}/hooks/hooks.json`,
          "/hooks/PreToolUse/0/hooks/4/command",
        ],
        [
          "error",
          "LINT_SCRIPT_MISSING",
          `${plugin}/hooks/hooks.json`,
          "/hooks/PreToolUse/0/hooks/5/command",
        ],
        [
          "error",
          "LINT_SCRIPT_MISSING",
          `${plugin}/hooks/hooks.json`,
          "/hooks/PreToolUse/0/hooks/6/args/0",
        ],
        [
          "error",
          "LINT_SCRIPT_MISSING",
          `${plugin}/hooks/hooks.json`,
          "/hooks/PreToolUse/0/hooks/7/command",
        ],
      ],
    );
    assertEquals(
      found[0]!.message,
      'Script "${CLAUDE_PLUGIN_ROOT}/hooks/missing.sh" of plugin "safety-net@inline" does not ' +
        `exist in the plugin directory "${plugin}", so the hook fails every time it runs: ` +
        "create it or fix the path",
    );
    assertEquals(
      found[1]!.message,
      'Script "${CLAUDE_PLUGIN_ROOT}/hooks/plain.sh" of plugin "safety-net@inline" is not ' +
        'executable, so the hook fails every time it runs: run "chmod +x hooks/plain.sh" in the ' +
        `plugin directory "${plugin}", or run it through its interpreter ` +
        '(e.g. "bash "${CLAUDE_PLUGIN_ROOT}/hooks/plain.sh"")',
    );
    assertEquals(
      found[5]!.message,
      'Script "${CLAUDE_PLUGIN_ROOT}/hooks" of plugin "safety-net@inline" is not a file, so the ' +
        "hook fails every time it runs: fix the path",
    );
    assert(found.every((d) => d.line !== undefined), "each finding has its hooks.json line");
  });
});

Deno.test("a plugin's script is looked for in the plugin, not the project; $CLAUDE_PROJECT_DIR in a plugin hook still means the project", async () => {
  await lintPlugin({
    hooks: [
      run("${CLAUDE_PLUGIN_ROOT}/hooks/only-in-project.sh"),
      run("${CLAUDE_PLUGIN_ROOT}/hooks/only-in-plugin.sh"),
      run('"$CLAUDE_PROJECT_DIR"/hooks/only-in-plugin.sh'),
      run('"$CLAUDE_PROJECT_DIR"/hooks/only-in-project.sh'),
    ],
    pluginFiles: { "hooks/only-in-plugin.sh": SCRIPT },
    projectFiles: { "hooks/only-in-project.sh": SCRIPT },
  }, ({ diagnostics }) => {
    assertEquals(
      scriptFindings(diagnostics).map((d) => [d.pointer, d.message.split(" does not")[0]]),
      [
        [
          "/hooks/PreToolUse/0/hooks/0/command",
          'Script "${CLAUDE_PLUGIN_ROOT}/hooks/only-in-project.sh" of plugin "safety-net@inline"',
        ],
        [
          "/hooks/PreToolUse/0/hooks/2/command",
          'Script "$CLAUDE_PROJECT_DIR/hooks/only-in-plugin.sh"',
        ],
      ],
    );
  });
});

Deno.test("a settings hook's ${CLAUDE_PLUGIN_ROOT} script is not looked for anywhere: the variable is empty there, and that is the finding", async () => {
  await lintPlugin({
    hooks: [run("${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh")],
    pluginFiles: { "hooks/guard.sh": SCRIPT },
    settings: JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [run("${CLAUDE_PLUGIN_ROOT}/hooks/missing.sh")] }],
      },
    }),
  }, ({ diagnostics }) => {
    assertEquals(scriptFindings(diagnostics), []);
    assertEquals(
      diagnostics.map((d) => d.code).filter((code) => code === "LINT_PLUGIN_ROOT_OUTSIDE_PLUGIN"),
      ["LINT_PLUGIN_ROOT_OUTSIDE_PLUGIN"],
    );
  });
});

Deno.test("plugin scripts are the program or an interpreter's script written from ${CLAUDE_PLUGIN_ROOT}, never CLAUDE_PLUGIN_DATA or a quoted name", () => {
  const refs = (command: string, args?: string[]) =>
    scriptReferences({ type: "command", command, args }, ["project", "plugin"])
      .map((r) => `${r.base} ${r.runDirectly ? "run" : "read"} ${r.rest}`);
  assertEquals(refs("${CLAUDE_PLUGIN_ROOT}/hooks/a.sh"), ["plugin run /hooks/a.sh"]);
  assertEquals(refs('"$CLAUDE_PLUGIN_ROOT/my hooks/a.sh" x'), ["plugin run /my hooks/a.sh"]);
  assertEquals(refs("bash ${CLAUDE_PLUGIN_ROOT}/a.sh"), ["plugin read /a.sh"]);
  assertEquals(refs("'${CLAUDE_PLUGIN_ROOT}/a.sh'"), []);
  assertEquals(refs("${CLAUDE_PLUGIN_DATA}/a.sh"), []);
  assertEquals(refs("$CLAUDE_PLUGIN_ROOTX/a.sh"), []);
  assertEquals(refs("${CLAUDE_PLUGIN_ROOT}${CLAUDE_PROJECT_DIR}/a.sh"), []);
  assertEquals(refs("${CLAUDE_PLUGIN_ROOT:-.}/a.sh"), []);
  assertEquals(refs("${CLAUDE_PLUGIN_ROOT}/a.sh; $CLAUDE_PROJECT_DIR/a.sh"), [
    "plugin run /a.sh",
    "project run /a.sh",
  ]);
  assertEquals(refs("deno", ["run", "${CLAUDE_PLUGIN_ROOT}/x.ts"]), ["plugin read /x.ts"]);
  // A settings hook asks for the project's scripts only.
  assertEquals(scriptReferences({ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/a.sh" }), []);
});
