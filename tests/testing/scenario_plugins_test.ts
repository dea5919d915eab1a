/**
 * `hooks test` with plugins: a scenario's `pluginDirs` (relative to the scenario file) and the
 * run's `--plugin-dir` load real plugin directories into session and event cases, copied into
 * each case's place: the real plugin dir is never written, and `CLAUDE_PLUGIN_DATA` lies in the
 * case's HOME. A plugin dir that is missing is a scenario problem; one that cannot load, or one
 * named by a case of the llama profile, is an error of the case.
 */
import { dirname } from "node:path";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { writeFiles, writePlugin } from "../hooks/plugin_fixture.ts";
import { runScenarios } from "../../src/testing/runner/run_scenarios.ts";
import type { RunOptions } from "../../src/testing/scenarios/scenario_run.ts";
import { PLUGINS_NEED_CLAUDE } from "../../src/testing/runner/case_plugins.ts";
import { type TempProject, treeOf, withTempProject } from "./scenario_project.ts";

/** Refuses any Bash input that mentions `rm -rf`. */
const GUARD = `#!/bin/sh
input=$(cat)
if printf '%s' "$input" | grep -q 'rm -rf'; then
  echo "rm -rf is refused by the guard plugin" >&2
  exit 2
fi
exit 0
`;

/**
 * Loads the plugin's notes as context, saying where its data lives; writes beside its own
 * script and into its data directory.
 */
const CONTEXT = `#!/bin/sh
cat > /dev/null
echo started >> "$CLAUDE_PLUGIN_DATA/starts"
echo written > "$CLAUDE_PLUGIN_ROOT/written-by-hook"
notes=$(cat "$CLAUDE_PLUGIN_ROOT/notes.txt")
printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s; data in %s"}}' "$notes" "$CLAUDE_PLUGIN_DATA"
`;

const HOOKS_JSON = JSON.stringify(
  {
    description: "guard plugin",
    hooks: {
      SessionStart: [{
        hooks: [{ type: "command", command: '"${CLAUDE_PLUGIN_ROOT}"/hooks/context.sh' }],
      }],
      PreToolUse: [{
        matcher: "Bash",
        hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh" }],
      }],
    },
  },
  null,
  2,
);

const GUARD_ID = "plugin:guard@inline:/hooks/PreToolUse/0/hooks/0";

/** The guard plugin beside the project (`<root>/plugins/guard`), outside it. */
async function writeGuardPlugin(project: TempProject): Promise<string> {
  return await writePlugin(`${dirname(project.dir)}/plugins/guard`, "guard", {
    hooksJson: HOOKS_JSON,
    files: {
      "hooks/guard.sh": GUARD,
      "hooks/context.sh": CONTEXT,
      "notes.txt": "Notes of guard",
    },
  });
}

const SCENARIO_DIR = ".claude/hooks-tests";

/** Writes `<project>/.claude/hooks-tests/<name>` and runs it. */
async function runScenario(
  project: TempProject,
  name: string,
  scenario: unknown,
  options: Partial<RunOptions> = {},
) {
  const file = `${project.dir}/${SCENARIO_DIR}/${name}`;
  await writeFiles(project.dir, { [`${SCENARIO_DIR}/${name}`]: JSON.stringify(scenario, null, 2) });
  return await runScenarios({
    projectDir: project.dir,
    files: [file],
    env: project.outerEnv,
    ...options,
  });
}

/** From the scenario file in `.claude/hooks-tests` to `<root>/plugins/guard`. */
const RELATIVE_GUARD = "../../../plugins/guard";

const RM_VICTIM = {
  model: {
    turns: [
      { toolCalls: [{ name: "Bash", input: { command: "rm -rf victim", description: "clean" } }] },
      { text: "done" },
    ],
  },
  prompts: ["clean up"],
  // The command runs for real in the case's copy unless the guard stops it.
  execute: true,
};

Deno.test("hooks test: a scenario's pluginDirs guard blocks rm -rf in a session case, and the victim survives in the copy", async () => {
  await withTempProject({ "victim/keep.txt": "keep me\n" }, async (project) => {
    const plugin = await writeGuardPlugin(project);
    const before = await treeOf(plugin);
    const run = await runScenario(project, "guard.test.jsonc", {
      compat: "claude",
      pluginDirs: [RELATIVE_GUARD],
      cases: [{
        name: "the plugin guard blocks rm -rf",
        session: RM_VICTIM,
        expect: {
          tools: [{ name: "Bash", dispatched: false }],
          modelSaw: ["rm -rf is refused by the guard plugin", "Notes of guard"],
          files: { "victim/keep.txt": "keep me\n" },
        },
      }, {
        name: "without the guard the command runs",
        pluginDirs: [],
        session: RM_VICTIM,
        expect: { tools: [{ name: "Bash", dispatched: true }], files: { "victim/keep.txt": null } },
      }],
    });
    assertEquals(run.problems, []);
    assertEquals(
      run.results.map((r) => [r.name, r.status, r.error, r.failures]),
      [
        ["the plugin guard blocks rm -rf", "passed", undefined, []],
        ["without the guard the command runs", "passed", undefined, []],
      ],
    );
    // The hook wrote beside its script and into its data dir: both in the case's place.
    assertEquals(await treeOf(plugin), before);
    assert(!(await exists(`${project.realHome}/.claude`)), "the real HOME is untouched");
  });
});

Deno.test("hooks test: a SessionStart plugin context loader reads ${CLAUDE_PLUGIN_ROOT}, and CLAUDE_PLUGIN_DATA lies in the case's HOME", async () => {
  await withTempProject({}, async (project) => {
    const plugin = await writeGuardPlugin(project);
    const before = await treeOf(plugin);
    const run = await runScenario(project, "context.test.jsonc", {
      compat: "claude",
      pluginDirs: [RELATIVE_GUARD],
      cases: [{
        name: "context in an event case",
        event: "SessionStart",
        input: { source: "startup" },
        expect: {
          context: {
            matches:
              "^Notes of guard; data in .*/hooks-test/hooks_test_[^/]+/home/\\.claude/plugins/data/guard-inline$",
          },
        },
      }, {
        name: "context in a session case",
        session: { model: { turns: [{ text: "hi" }] }, prompts: ["hi"] },
        expect: {
          modelSaw: [{
            matches: "Notes of guard; data in .*/home/\\.claude/plugins/data/guard-inline",
          }],
        },
      }],
    });
    assertEquals(run.problems, []);
    assertEquals(run.results.map((r) => [r.name, r.status, r.error, r.failures]), [
      ["context in an event case", "passed", undefined, []],
      ["context in a session case", "passed", undefined, []],
    ]);
    assertEquals(await treeOf(plugin), before, "the real plugin dir is unchanged");
    assert(!(await exists(`${project.realHome}/.claude`)), "no data dir in the real HOME");
  });
});

Deno.test("hooks test: an event case fires the plugin guard, and --explain names it by its plugin id and real file", async () => {
  await withTempProject({}, async (project) => {
    const plugin = await writeGuardPlugin(project);
    const run = await runScenario(project, "event.test.jsonc", {
      compat: "claude",
      pluginDirs: [RELATIVE_GUARD],
      cases: [{
        name: "deny",
        event: "PreToolUse",
        input: { tool_name: "Bash", tool_input: { command: "rm -rf /" } },
        expect: {
          decision: "deny",
          reason: { matches: "refused by the guard" },
          matched: [GUARD_ID],
        },
      }],
    }, { explain: true });
    assertEquals(run.results.map((r) => [r.status, r.failures]), [["passed", []]]);
    const explained = run.results[0]!.explain?.[0]?.registrations ?? [];
    // A registration's line is where its handler object starts, two lines above its command.
    const handlerLine = HOOKS_JSON.split("\n").findIndex((l) => l.includes("guard.sh")) - 1;
    assertEquals(explained.map((r) => [r.id, r.matched, r.source]), [
      [GUARD_ID, true, `${plugin}/hooks/hooks.json:${handlerLine}`],
    ]);
  });
});

Deno.test("hooks test: the run's --plugin-dir loads in every claude case after its scenario's own, and not in llama cases", async () => {
  await withTempProject({}, async (project) => {
    const plugin = await writeGuardPlugin(project);
    const deny = {
      event: "PreToolUse",
      input: { tool_name: "Bash", tool_input: { command: "rm -rf /" } },
    };
    const run = await runScenario(project, "flag.test.jsonc", {
      cases: [
        { name: "claude case", compat: "claude", ...deny, expect: { decision: "deny" } },
        {
          name: "llama case",
          event: "PreToolUse",
          input: { tool_name: "shell", tool_input: { command: "rm -rf /" } },
          expect: { decision: "none", matched: [] },
        },
      ],
    }, { pluginDirs: [plugin] });
    assertEquals(run.results.map((r) => [r.name, r.status, r.error, r.failures]), [
      ["claude case", "passed", undefined, []],
      ["llama case", "passed", undefined, []],
    ]);
  });
});

Deno.test("hooks test: a missing plugin dir makes its case an error at its line; one without a manifest names what it lacks", async () => {
  await withTempProject({}, async (project) => {
    await writeFiles(dirname(project.dir), { "plugins/bare/hooks/hooks.json": HOOKS_JSON });
    const run = await runScenario(project, "missing.test.jsonc", {
      compat: "claude",
      cases: [{
        name: "missing",
        pluginDirs: ["../../../plugins/nope", "../../../plugins/bare"],
        event: "Stop",
        expect: { errors: 0 },
      }],
    });
    assertEquals(run.problems, []);
    assertEquals(run.results.map((r) => [r.name, r.status, r.location.line]), [
      ["missing", "error", 4],
    ]);
    const [missing, bare] = (run.results[0]?.error ?? "").split("\n");
    assertStringIncludes(
      missing!,
      'plugin directory "../../../plugins/nope" does not exist (looked for "',
    );
    assertStringIncludes(missing!, "at /cases/0/pluginDirs/0 (line 7, column 9)");
    assertMatch(
      bare!,
      /plugin directory "\.\.\/\.\.\/\.\.\/plugins\/bare": .*\.claude-plugin\/plugin\.json/,
    );
  });
});

Deno.test("hooks test: a case of the llama profile that names pluginDirs is an error saying to set compat claude", async () => {
  await withTempProject({}, async (project) => {
    await writeGuardPlugin(project);
    const run = await runScenario(project, "llama.test.jsonc", {
      compat: "llama",
      pluginDirs: [RELATIVE_GUARD],
      cases: [{ name: "llama", event: "Stop", expect: { errors: 0 } }],
    });
    assertEquals(run.results.map((r) => [r.status, r.error]), [["error", PLUGINS_NEED_CLAUDE]]);
  });
});

Deno.test("hooks test: a case that names no profile and names pluginDirs decides the claude profile, and its plugin loads", async () => {
  await withTempProject({}, async (project) => {
    await writeGuardPlugin(project);
    const run = await runScenario(project, "auto.test.jsonc", {
      pluginDirs: [RELATIVE_GUARD],
      cases: [{ name: "auto", event: "Stop", expect: { errors: 0 } }],
    });
    assertEquals(run.results.map((r) => [r.status, r.error]), [["passed", undefined]]);
  });
});

Deno.test("hooks test: a plugin whose hooks.json is flat makes its case an error naming the real directory", async () => {
  await withTempProject({}, async (project) => {
    const flat = `${dirname(project.dir)}/plugins/flat`;
    await writePlugin(flat, "flat", { hooksJson: JSON.stringify({ Stop: [] }) });
    const run = await runScenario(project, "flat.test.jsonc", {
      compat: "claude",
      pluginDirs: ["../../../plugins/flat"],
      cases: [
        { name: "event", event: "Stop", expect: { errors: 0 } },
        {
          name: "session",
          session: { model: { turns: [{ text: "hi" }] }, prompts: ["hi"] },
          expect: { agentText: "hi" },
        },
      ],
    });
    for (const result of run.results) {
      assertEquals(result.status, "error", result.name);
      assertStringIncludes(result.error!, `Cannot use plugin directory "${flat}": `);
      assertStringIncludes(result.error!, 'outside the "hooks" object');
      assertStringIncludes(result.error!, `(${flat}/hooks/hooks.json:1)`);
    }
  });
});

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}
