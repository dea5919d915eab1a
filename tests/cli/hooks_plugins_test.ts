/**
 * `hooks list|lint|run --plugin-dir DIR`, black-box through the real launcher, with real plugin
 * directories beside a temp project: plugin hooks are listed with their plugin and the
 * `hooks.json` file:line, linted like settings files, and fired; under the llama profile none of
 * that happens and the flag is ignored with a warning. The commands are launched from the temp
 * root (the CLI reads only its launch directory and HOME) with `--cwd project`, so a relative
 * `--plugin-dir` is relative to the launch directory, as for `acp`.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { type CliRun, runCli } from "../helpers/run_cli.ts";
import { lineOf } from "../hooks/temp_chain.ts";
import { withTempRoot, writeFiles, writePlugin } from "../hooks/plugin_fixture.ts";

// Each handler on a line of its own: a registration's line is where its handler object starts.
const GUARD_HOOKS = `{
  "description": "guard plugin hooks",
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [
        { "type": "command", "command": "\${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh" }
      ] }
    ],
    "SessionStart": [{ "hooks": [
      { "type": "command", "command": "echo started" }
    ] }]
  }
}
`;

/** Refuses any input that mentions `rm -rf`; leaves a mark in its data directory. */
const GUARD = `#!/bin/sh
input=$(cat)
echo ran >> "$CLAUDE_PLUGIN_DATA/guard.log"
if printf '%s' "$input" | grep -q 'rm -rf'; then
  echo "rm -rf is refused by the guard plugin" >&2
  exit 2
fi
exit 0
`;

interface Dirs {
  readonly root: string;
  readonly home: string;
  readonly project: string;
  /** The guard plugin's directory. */
  readonly guard: string;
}

function inTemp(fn: (dirs: Dirs) => Promise<void>): Promise<void> {
  return withTempRoot(async (root) => {
    const dirs = {
      root,
      home: `${root}/home`,
      project: `${root}/project`,
      guard: `${root}/plugins/guard`,
    };
    await writeFiles(root, { "home/.keep": "", "project/.keep": "" });
    await writePlugin(dirs.guard, "guard", {
      hooksJson: GUARD_HOOKS,
      files: { "hooks/guard.sh": GUARD },
    });
    await fn(dirs);
  });
}

function hooks(dirs: Dirs, args: readonly string[]): Promise<CliRun> {
  const [command, ...rest] = args;
  return runCli(["hooks", command!, "--cwd", "project", ...rest], {
    cwd: dirs.root,
    home: dirs.home,
  });
}

const CLAUDE_GUARD = ["--compat", "claude", "--plugin-dir", "plugins/guard"];
const GUARD_ID = "plugin:guard@inline:/hooks/PreToolUse/0/hooks/0";

/** The one stdout line that contains `needle`. */
function lineWith(stdout: string, needle: string): string {
  const lines = stdout.split("\n").filter((line) => line.includes(needle));
  assertEquals(lines.length, 1, `lines with ${JSON.stringify(needle)} in:\n${stdout}`);
  return lines[0]!;
}

Deno.test("hooks list --plugin-dir: each plugin hook row names its plugin and the hooks.json file:line", async () => {
  await inTemp(async (dirs) => {
    const result = await hooks(dirs, ["list", ...CLAUDE_GUARD]);
    assertEquals([result.code, result.stderr], [0, ""]);
    const file = `${dirs.guard}/hooks/hooks.json`;
    const guardLine = lineOf(GUARD_HOOKS, "guard.sh");
    assertMatch(
      lineWith(result.stdout, "guard.sh"),
      new RegExp(
        `^  Bash\\s+command\\s+\\$\\{CLAUDE_PLUGIN_ROOT\\}/hooks/guard\\.sh\\s+` +
          `plugin guard@inline ${file}:${guardLine}\\s+fires$`,
      ),
    );
    assertStringIncludes(
      lineWith(result.stdout, "echo started"),
      `plugin guard@inline ${file}:${lineOf(GUARD_HOOKS, "echo started")}`,
    );
    assertMatch(lineWith(result.stdout, "  guard@inline "), /^ {2}guard@inline\s+\S+\s+loaded$/);
    assertStringIncludes(result.stdout, "\n2 hooks (2 fire here), 0 problems\n");

    const json = JSON.parse((await hooks(dirs, ["list", ...CLAUDE_GUARD, "--json"])).stdout);
    const guard = json.hooks.find((h: { id: string }) => h.id === GUARD_ID);
    assertEquals(
      [guard.plugin, guard.source.scope, guard.source.file, guard.source.line, guard.status],
      ["guard@inline", "plugin", file, guardLine, "fires"],
    );
    assertEquals(guard.source.plugin.root, dirs.guard);
    assertEquals(json.plugins, [{
      id: "guard@inline",
      origin: "plugin_dir",
      root: dirs.guard,
      hooksFile: file,
      status: "loaded",
    }]);
  });
});

Deno.test("hooks list --plugin-dir without --compat: the plugin asked for decides Claude Code's tools, and is listed", async () => {
  await inTemp(async (dirs) => {
    const result = await hooks(dirs, ["list", "--plugin-dir", "plugins/guard", "--json"]);
    assertEquals([result.code, result.stderr], [0, ""]);
    const json = JSON.parse(result.stdout);
    assertEquals(json.profile, "claude");
    assertEquals(json.plugins.map((p: { id: string }) => p.id), ["guard@inline"]);
    assertEquals(json.hooks.length, 2);
  });
});

Deno.test("hooks list --plugin-dir under the llama profile lists no plugin hook and warns that the flag is ignored", async () => {
  await inTemp(async (dirs) => {
    const result = await hooks(dirs, [
      "list",
      "--compat",
      "llama",
      "--plugin-dir",
      "plugins/guard",
    ]);
    assertEquals(result.code, 0);
    assertStringIncludes(result.stderr, "--plugin-dir is ignored: plugins load only with --compat");
    assert(!result.stdout.includes("guard"), result.stdout);
    assertStringIncludes(result.stdout, "No hooks are configured.");
    const json = JSON.parse(
      (await hooks(dirs, ["list", "--compat", "llama", "--json", "--plugin-dir", dirs.guard]))
        .stdout,
    );
    assertEquals([json.hooks, json.plugins], [[], []]);
  });
});

Deno.test("hooks list --plugin-dir that does not exist is a usage error naming it", async () => {
  await inTemp(async (dirs) => {
    const result = await hooks(dirs, ["list", "--compat", "claude", "--plugin-dir", "nope"]);
    assertEquals([result.code, result.stdout], [2, ""]);
    assertStringIncludes(result.stderr, 'Cannot load --plugin-dir "nope": no such directory');
  });
});

Deno.test("hooks list: a plugin that cannot load is among the problems, naming the plugin", async () => {
  await inTemp(async (dirs) => {
    await writeFiles(`${dirs.root}/plugins/flat`, {
      ".claude-plugin/plugin.json": '{"name":"flat"}',
      "hooks/hooks.json": JSON.stringify({
        PreToolUse: [{ hooks: [{ type: "command", command: "x" }] }],
      }),
    });
    const result = await hooks(dirs, [
      "list",
      "--compat",
      "claude",
      "--plugin-dir",
      "plugins/flat",
    ]);
    assertEquals(result.code, 0);
    const problems = result.stdout.split("\nProblems:\n")[1] ?? "";
    assertStringIncludes(problems, `${dirs.root}/plugins/flat/hooks/hooks.json:1:`);
    assertStringIncludes(problems, 'plugin "flat@inline"');
    assertMatch(lineWith(result.stdout, "  flat@inline "), /\s+invalid$/);
  });
});

/** The findings of `hooks lint --format json` with these arguments. */
async function lintFindings(dirs: Dirs, args: readonly string[]) {
  const result = await hooks(dirs, ["lint", "--format", "json", ...args]);
  const report = JSON.parse(result.stdout);
  return {
    code: result.code,
    findings: report.diagnostics as {
      code: string;
      file: string;
      line?: number;
      message: string;
    }[],
  };
}

Deno.test("hooks lint --plugin-dir: a flat hooks.json is an error naming the plugin, and says why none of its hooks load", async () => {
  await inTemp(async (dirs) => {
    const flat = `${dirs.root}/plugins/flat`;
    await writePlugin(flat, "flat", {
      hooksJson: JSON.stringify({ PreToolUse: [{ hooks: [{ type: "command", command: "x" }] }] }),
    });
    const { code, findings } = await lintFindings(dirs, [
      "--compat",
      "claude",
      "--plugin-dir",
      flat,
    ]);
    assertEquals(code, 1);
    const flatFinding = findings.find((d) => d.file === `${flat}/hooks/hooks.json`);
    assert(flatFinding !== undefined, JSON.stringify(findings));
    assertStringIncludes(flatFinding.message, 'plugin "flat@inline"');
    assertStringIncludes(flatFinding.message, 'outside the "hooks" object');
  });
});

Deno.test("hooks lint --plugin-dir: a plugin without a manifest is an error naming its directory", async () => {
  await inTemp(async (dirs) => {
    const bare = `${dirs.root}/plugins/bare`;
    await writeFiles(bare, { "hooks/hooks.json": GUARD_HOOKS });
    const { code, findings } = await lintFindings(dirs, [
      "--compat",
      "claude",
      "--plugin-dir",
      bare,
    ]);
    assertEquals(code, 1);
    assertEquals(findings.length, 1, JSON.stringify(findings));
    assertStringIncludes(findings[0]!.message, `Cannot load the plugin in "${bare}"`);
    assertStringIncludes(findings[0]!.message, ".claude-plugin/plugin.json");
  });
});

const BAD_ENTRY_HOOKS = `{
  // Claude Code plugins are JSON; this comment is JSONC
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [
        { "type": "command", "command": "./ok.sh" },
        { "type": "command", "command": "./slow.sh", "timeout": "5" }
      ] },
      { "matcher": "shell", "hooks": [
        { "type": "command", "command": "./own-names.sh" }
      ] }
    ]
  }
}
`;

Deno.test("hooks lint --plugin-dir checks a plugin's hooks.json like a settings file: bad entry at its line, JSONC, foreign tool names", async () => {
  await inTemp(async (dirs) => {
    const bad = `${dirs.root}/plugins/bad`;
    await writePlugin(bad, "bad", { hooksJson: BAD_ENTRY_HOOKS });
    const { code, findings } = await lintFindings(dirs, [
      "--compat",
      "claude",
      "--plugin-dir",
      bad,
    ]);
    assertEquals(code, 1);
    const file = `${bad}/hooks/hooks.json`;
    const at = (code: string) => findings.filter((d) => d.code === code && d.file === file);
    assertEquals(at("HANDLER_INVALID").map((d) => d.line), [lineOf(BAD_ENTRY_HOOKS, '"timeout"')]);
    assertEquals(at("LINT_JSONC_REJECTED_BY_CLAUDE").map((d) => d.line), [2]);
    assertStringIncludes(at("LINT_JSONC_REJECTED_BY_CLAUDE")[0]!.message, "a plugin's hooks.json");
    assertEquals(at("LINT_TOOL_NEVER_MATCHES").map((d) => d.line), [
      lineOf(BAD_ENTRY_HOOKS, '"matcher": "shell"'),
    ]);
  });
});

Deno.test("hooks lint flags ${CLAUDE_PLUGIN_ROOT} and $CLAUDE_PLUGIN_DATA in a settings hook: empty there, so the script is not found", async () => {
  await inTemp(async (dirs) => {
    const settings = `{
  "hooks": {
    "PreToolUse": [{ "matcher": "Bash", "hooks": [
      { "type": "command", "command": "\${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh" },
      { "type": "command", "command": "cat > \\"$CLAUDE_PLUGIN_DATA\\"/last.json" }
    ] }]
  }
}
`;
    await writeFiles(dirs.project, { ".claude/settings.json": settings });
    // The same command in the plugin itself is fine.
    const { findings } = await lintFindings(dirs, CLAUDE_GUARD);
    const outside = findings.filter((d) => d.code === "LINT_PLUGIN_ROOT_OUTSIDE_PLUGIN");
    assertEquals(
      outside.map((d) => [d.file, d.line]),
      [
        [`${dirs.project}/.claude/settings.json`, lineOf(settings, "guard.sh")],
        [`${dirs.project}/.claude/settings.json`, lineOf(settings, "last.json")],
      ],
    );
    assertStringIncludes(
      outside[0]!.message,
      '"${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh" becomes "/hooks/guard.sh"',
    );
    assertStringIncludes(outside[0]!.message, "only for the hooks of a plugin");
    assertStringIncludes(
      outside[1]!.message,
      '"${CLAUDE_PLUGIN_DATA}" is empty in a settings hook',
    );

    // Without --compat claude too: the hook is written for Claude Code either way.
    const llama = await lintFindings(dirs, []);
    assertEquals(
      llama.findings.filter((d) => d.code === "LINT_PLUGIN_ROOT_OUTSIDE_PLUGIN").length,
      2,
    );
  });
});

Deno.test("hooks lint --fix rewrites the settings files only, never a plugin's hooks.json", async () => {
  await inTemp(async (dirs) => {
    const own = `${dirs.root}/plugins/own`;
    const pluginHooks = JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "shell", hooks: [{ type: "command", command: "x" }] }] },
    });
    await writePlugin(own, "own", { hooksJson: pluginHooks });
    await writeFiles(dirs.project, { ".claude/settings.json": pluginHooks });
    const result = await hooks(dirs, ["lint", "--fix", "--compat", "claude", "--plugin-dir", own]);
    assertStringIncludes(result.stdout, 'Fixed matcher "shell" to "shell|Bash"');
    assertStringIncludes(
      await Deno.readTextFile(`${dirs.project}/.claude/settings.json`),
      '"shell|Bash"',
    );
    assertEquals(await Deno.readTextFile(`${own}/hooks/hooks.json`), pluginHooks);
    // ...and its never-matching matcher is still reported.
    assertStringIncludes(result.stdout, `${own}/hooks/hooks.json:1:`);
  });
});

Deno.test("hooks run --plugin-dir fires the plugin's PreToolUse guard, which denies, and the report names the plugin", async () => {
  await inTemp(async (dirs) => {
    const input = JSON.stringify({ tool_name: "Bash", tool_input: { command: "rm -rf build" } });
    const result = await hooks(dirs, ["run", "PreToolUse", ...CLAUDE_GUARD, "--input", input]);
    assertEquals([result.code, result.stderr], [0, ""]);
    const file = `${dirs.guard}/hooks/hooks.json`;
    assertStringIncludes(result.stdout, 'PreToolUse (matcher value "Bash"): 1 of 1 hooks ran');
    assertStringIncludes(
      result.stdout,
      `    from plugin guard@inline, ${file}:${lineOf(GUARD_HOOKS, "guard.sh")} (${GUARD_ID})\n`,
    );
    assertStringIncludes(result.stdout, "rm -rf is refused by the guard plugin");
    assertStringIncludes(result.stdout, "Decision: deny");
    // Its data directory is made in HOME, as Claude Code makes it.
    const data = `${dirs.home}/.claude/plugins/data/guard-inline/guard.log`;
    assertEquals(await Deno.readTextFile(data), "ran\n");

    const json = JSON.parse(
      (await hooks(dirs, ["run", "PreToolUse", ...CLAUDE_GUARD, "--input", input, "--json"]))
        .stdout,
    );
    assertEquals(json.runs.map((r: { id: string; plugin: string }) => [r.id, r.plugin]), [
      [GUARD_ID, "guard@inline"],
    ]);
    assertEquals(json.decision.verdict.kind, "block");
  });
});

Deno.test("hooks run --plugin-dir under the llama profile fires no plugin hook and warns", async () => {
  await inTemp(async (dirs) => {
    const input = JSON.stringify({ tool_name: "shell", tool_input: { command: "rm -rf build" } });
    const result = await hooks(dirs, [
      "run",
      "PreToolUse",
      "--compat",
      "llama",
      "--plugin-dir",
      dirs.guard,
      "--input",
      input,
    ]);
    assertEquals(result.code, 0);
    assertStringIncludes(result.stderr, "--plugin-dir is ignored");
    assertStringIncludes(result.stdout, "0 of 0 hooks ran");
    assertStringIncludes(result.stdout, "Decision: none");
  });
});

Deno.test("hooks test --plugin-dir adds the plugin to every claude case: its guard denies, and a missing dir is a usage error", async () => {
  await inTemp(async (dirs) => {
    await writeFiles(dirs.project, {
      ".claude/hooks-tests/guard.test.jsonc": JSON.stringify({
        compat: "claude",
        cases: [{
          name: "the plugin guard denies rm -rf",
          event: "PreToolUse",
          input: { tool_name: "Bash", tool_input: { command: "rm -rf build" } },
          expect: { decision: "deny", matched: [GUARD_ID] },
        }],
      }),
    });
    const passed = await hooks(dirs, ["test", "--plugin-dir", "plugins/guard"]);
    assertEquals(passed.code, 0, passed.stdout + passed.stderr);
    assertStringIncludes(passed.stdout, "1 passed, 0 failed");
    // CLAUDE_PLUGIN_DATA lies in the case's HOME: none is made in the real one.
    assert(!(await exists(`${dirs.home}/.claude/plugins/data`)));

    const without = await hooks(dirs, ["test"]);
    assertEquals(without.code, 1, without.stdout);

    const missing = await hooks(dirs, ["test", "--plugin-dir", "plugins/nope"]);
    assertEquals([missing.code, missing.stdout], [2, ""]);
    assertStringIncludes(missing.stderr, 'Cannot load --plugin-dir "plugins/nope"');
  });
});

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

// Launched from the project with HOME beside it, the plugins directory is outside both: Deno
// refuses to read there, and the user is told so in llama-agent's words, never Deno's advice
// about a flag llama-agent does not have.
Deno.test("a plugin llama-agent may not read is said in its words: where it may read and what to do", async () => {
  await inTemp(async (dirs) => {
    await Deno.symlink("../plugins/guard", `${dirs.project}/linked`);
    const run = (dir: string) =>
      runCli(["hooks", "list", "--compat", "claude", "--plugin-dir", dir], {
        cwd: dirs.project,
        home: dirs.home,
      });
    const given = await run("../plugins/guard");
    assertEquals([given.code, given.stdout], [2, ""]);
    assertStringIncludes(
      given.stderr,
      `Cannot load --plugin-dir "../plugins/guard": Cannot read "${dirs.guard}": llama-agent ` +
        `may only use files under "${dirs.project}" (where it was started) and your home directory`,
    );
    const linked = await run("linked");
    assertEquals(linked.code, 0, linked.stderr);
    assertStringIncludes(
      linked.stdout,
      `Cannot load the plugin in "${dirs.project}/linked": cannot read ` +
        `".claude-plugin/plugin.json": llama-agent may not read ` +
        `"${dirs.guard}/.claude-plugin/plugin.json": it may only use files under the directory ` +
        `it was started in and your home directory "${dirs.home}"; start llama-agent from a ` +
        "directory that contains the plugin, or move the plugin (and what its links lead to) " +
        "under your home directory",
    );
    for (const said of [given.stderr, linked.stdout, linked.stderr]) {
      assert(!said.includes("--allow-"), said);
    }
  });
});
