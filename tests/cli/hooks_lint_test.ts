import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { type CliRun, runCli, withTempProject } from "../helpers/run_cli.ts";
import { renderGithub } from "../../src/cli/commands/hooks_lint.ts";

const SCRIPT = { text: "#!/bin/sh\nexit 0\n", mode: 0o644 };

/** A project with one error (a script that is not executable) and two warnings. */
const WITH_ERROR = JSON.stringify(
  {
    hooks: {
      PreToolUse: [{
        matcher: "Bash",
        hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh' }],
      }],
      Stop: [{ hooks: [{ type: "command", command: "echo done", timeout: 5000 }] }],
    },
  },
  null,
  2,
);

const ONLY_WARNINGS = JSON.stringify({
  hooks: { PreToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: "true" }] }] },
});

const CLEAN = JSON.stringify({
  hooks: { PreToolUse: [{ matcher: "shell", hooks: [{ type: "command", command: "true" }] }] },
});

/** Runs `hooks lint` from `<tmp>/project` with HOME at `<tmp>/home`. */
function lint(
  files: Readonly<Record<string, string | { text: string; mode: number }>>,
  args: readonly string[],
  check: (result: CliRun, dir: string) => void,
): Promise<void> {
  return withTempProject({ "home/.keep": "", ...files }, async (dir) => {
    const result = await runCli(["hooks", "lint", ...args], {
      cwd: `${dir}/project`,
      home: `${dir}/home`,
    });
    check(result, dir);
  });
}

Deno.test("pretty output: one line per finding by file, a summary, exit 1 on an error", async () => {
  await lint(
    {
      "project/.claude/settings.json": WITH_ERROR,
      "project/.claude/hooks/check.sh": SCRIPT,
      "home/.claude/settings.json": '{ "hooks": {} } // mine\n',
    },
    ["--compat", "llama"],
    (result) => {
      assertEquals(result.stderr, "");
      assertEquals(result.code, 1);
      assertEquals(result.stdout.split("\n"), [
        "~/.claude/settings.json:1:17: warning: Claude Code rejects comments in a settings file " +
        "and then drops every hook of the file (llama-agent accepts them): remove the comment if " +
        "Claude Code also reads this file [LINT_JSONC_REJECTED_BY_CLAUDE]",
        "",
        '.claude/settings.json:5:9: warning: Matcher "Bash" never matches a llama-agent tool: ' +
        '"Bash" is Claude Code\'s name for "shell"; use "Bash|shell" to match in both Claude Code ' +
        'and llama-agent ("hooks lint --fix" does this), or run llama-agent with --compat claude, ' +
        "which offers Claude Code's tool names at /hooks/PreToolUse/0/matcher " +
        "[LINT_TOOL_NEVER_MATCHES]",
        '.claude/settings.json:9:13: error: Script "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh" is ' +
        "not executable, so the hook fails every time it runs: run " +
        '"chmod +x .claude/hooks/check.sh" in the project, or run it through its interpreter ' +
        '(e.g. "bash "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh"") ' +
        "at /hooks/PreToolUse/0/hooks/0/command [LINT_SCRIPT_NOT_EXECUTABLE]",
        '.claude/settings.json:20:13: warning: "timeout" is 5000 seconds (1 h 23 min): timeouts ' +
        "are in seconds; did you mean 5? at /hooks/Stop/0/hooks/0/timeout " +
        "[LINT_TIMEOUT_LOOKS_LIKE_MS]",
        "",
        "1 error, 3 warnings; 1 hook never runs here",
        "Profile: llama (set by --compat)",
        "",
      ]);
    },
  );
});

Deno.test("only warnings exit 0; a clean chain says so", async () => {
  await lint(
    { "project/.claude/settings.json": ONLY_WARNINGS },
    ["--compat", "llama"],
    (result) => {
      assertEquals(result.code, 0, result.stderr);
      assertMatch(result.stdout, /^\.claude\/settings\.json:1:\d+: warning: Matcher "Edit\|Write"/);
      assertStringIncludes(result.stdout, "\n\n0 errors, 1 warning; 1 hook never runs here\n");
    },
  );
  await lint({ "project/.claude/settings.json": CLEAN }, [], (result) => {
    assertEquals([result.code, result.stdout, result.stderr], [
      0,
      "No problems found\n" +
      `Profile: llama (auto: the hooks name llama-agent's tools in matcher "shell")\n`,
      "",
    ]);
  });
  await lint({ "project/.keep": "" }, ["--format", "json"], (result) => {
    assertEquals(result.code, 0);
    assertEquals(JSON.parse(result.stdout).diagnostics, []);
  });
});

Deno.test("--format json prints the cwd, every diagnostic and the counts", async () => {
  await lint(
    {
      "project/.claude/settings.json": WITH_ERROR,
      "project/.claude/hooks/check.sh": SCRIPT,
    },
    ["--format=json", "--compat", "llama"],
    (result, dir) => {
      assertEquals(result.code, 1);
      assertEquals(result.stderr, "");
      const report = JSON.parse(result.stdout);
      assertEquals(Object.keys(report), [
        "cwd",
        "profile",
        "profileChoice",
        "diagnostics",
        "errors",
        "warnings",
        "neverRun",
      ]);
      assertEquals(
        [report.cwd, report.profile, report.errors, report.warnings, report.neverRun],
        [`${dir}/project`, "llama", 1, 2, 1],
      );
      assertEquals(report.profileChoice, { auto: false, reason: "set by --compat" });
      assertEquals(report.diagnostics[1], {
        code: "LINT_SCRIPT_NOT_EXECUTABLE",
        severity: "error",
        file: `${dir}/project/.claude/settings.json`,
        pointer: "/hooks/PreToolUse/0/hooks/0/command",
        line: 9,
        column: 13,
        message: report.diagnostics[1].message,
      });
    },
  );
});

Deno.test("--format github prints one workflow command per finding", async () => {
  await lint(
    {
      "project/.claude/settings.json": WITH_ERROR,
      "home/.claude/settings.json": '{ "hooks": { "Stop": [{ "matcher": "a%b", "hooks": [] }] } }',
    },
    ["--format", "github", "--cwd", ".", "--compat", "llama"],
    (result, dir) => {
      assertEquals(result.code, 1);
      assertEquals(result.stderr, "");
      const lines = result.stdout.split("\n");
      assertEquals(lines.length, 7, result.stdout);
      assertEquals(lines.at(-1), "");
      const home = `${dir}/home/.claude/settings.json`.replaceAll(",", "%2C");
      assertStringIncludes(lines[0]!, 'title=LINT_MATCHER_IGNORED::Matcher "a%25b" is ignored');
      assertEquals(
        lines[1],
        `::error file=${home},line=1,col=43,title=SETTINGS_INVALID::"hooks" must list at least ` +
          "one handler",
      );
      assertMatch(lines[2]!, /^::warning file=.*,title=LINT_CLAUDE_DROPS_FILE::Claude Code /);
      assertEquals(
        lines[5],
        "::warning file=.claude/settings.json,line=20,col=13,title=LINT_TIMEOUT_LOOKS_LIKE_MS::" +
          '"timeout" is 5000 seconds (1 h 23 min): timeouts are in seconds; did you mean 5?',
      );
      assertMatch(
        lines[4]!,
        /^::error file=\.claude\/settings\.json,line=9,col=13,title=LINT_SCRIPT_MISSING::Script /,
      );
    },
  );
});

Deno.test("github annotations escape data and property values as GitHub requires", () => {
  const out = renderGithub({
    cwd: "/repo",
    home: undefined,
    diagnostics: [{
      code: "SETTINGS_PARSE",
      severity: "error",
      file: "/elsewhere/a,b:c%.json",
      pointer: "",
      message: "100% bad\r\nsecond line",
    }],
  });
  assertEquals(
    out,
    "::error file=/elsewhere/a%2Cb%3Ac%25.json,title=SETTINGS_PARSE::100%25 bad%0D%0Asecond line\n",
  );
});

Deno.test("a bad --format or an unknown flag is a usage error with exit 2", async () => {
  await lint({ "project/.keep": "" }, ["--format", "xml"], (result) => {
    assertEquals([result.code, result.stdout], [2, ""]);
    assertEquals(
      result.stderr,
      'Flag "--format" does not accept "xml": use one of "pretty", "json", "github"\n',
    );
  });
  await lint({ "project/.keep": "" }, ["--json"], (result) => {
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, 'Unknown flag "--json" for "llama-agent hooks lint"');
  });
  await lint({ "project/.keep": "" }, ["--help"], (result) => {
    assertEquals(result.code, 0);
    assertStringIncludes(result.stdout, "Usage: llama-agent hooks lint [flags]");
    assertStringIncludes(result.stdout, "--format FORMAT");
    assert(result.stdout.includes("Examples:"));
  });
});

/** A Claude Code settings file, with comments that --fix must keep. */
const FOR_CLAUDE_CODE = `{
  // Guards written for Claude Code.
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "true" }] },
      { "matcher": "Edit|Write", /* formatting */ "hooks": [{ "type": "command", "command": "true" }] },
      { "matcher": "^Read$", "hooks": [{ "type": "command", "command": "true" }] }
    ]
  }
}
`;

Deno.test("--compat claude: a file written for Claude Code has no dead matcher", async () => {
  const files = { "project/.claude/settings.json": FOR_CLAUDE_CODE };
  await lint(files, ["--compat", "claude", "--format", "json"], (result) => {
    assertEquals([result.code, result.stderr], [0, ""]);
    const report = JSON.parse(result.stdout);
    assertEquals(report.profile, "claude");
    assertEquals(report.neverRun, 0);
    assertEquals(
      report.diagnostics.map((d: { code: string }) => d.code),
      ["LINT_JSONC_REJECTED_BY_CLAUDE", "LINT_JSONC_REJECTED_BY_CLAUDE"],
    );
  });
  await lint(files, ["--compat", "llama", "--format", "json"], (result) => {
    const report = JSON.parse(result.stdout);
    assertEquals([report.profile, report.neverRun], ["llama", 3]);
    const dead = report.diagnostics.filter((d: { code: string }) =>
      d.code === "LINT_TOOL_NEVER_MATCHES"
    );
    assertEquals(dead.length, 3);
  });
  await lint(files, ["--compat", "gpt"], (result) => {
    assertEquals([result.code, result.stdout], [2, ""]);
    assertStringIncludes(result.stderr, '"--compat" does not accept "gpt"');
  });
});

Deno.test("--fix rewrites list matchers in place, says what it changed, then lints again", async () => {
  await withTempProject(
    { "home/.keep": "", "project/.claude/settings.json": FOR_CLAUDE_CODE },
    async (dir) => {
      const options = { cwd: `${dir}/project`, home: `${dir}/home` };
      const result = await runCli(["hooks", "lint", "--fix", "--compat", "llama"], options);
      assertEquals([result.code, result.stderr], [0, ""]);
      const lines = result.stdout.split("\n");
      assertEquals(lines.slice(0, 3), [
        '.claude/settings.json:5: Fixed matcher "Bash" to "Bash|shell" at ' +
        "/hooks/PreToolUse/0/matcher",
        '.claude/settings.json:6: Fixed matcher "Edit|Write" to "Edit|Write|fs_edit|fs_write" ' +
        "at /hooks/PreToolUse/1/matcher",
        "",
      ]);
      // Linted as the file now is: only the comments and the regex are left.
      assert(!result.stdout.includes('Matcher "Bash"'), result.stdout);
      assertMatch(result.stdout, /Matcher "\^Read\$" never matches a llama-agent tool: /);
      assertStringIncludes(result.stdout, "\n0 errors, 3 warnings; 1 hook never runs here\n");
      const after = await Deno.readTextFile(`${dir}/project/.claude/settings.json`);
      assertEquals(
        after,
        FOR_CLAUDE_CODE.replace('"Bash"', '"Bash|shell"').replace(
          '"Edit|Write"',
          '"Edit|Write|fs_edit|fs_write"',
        ),
      );

      const again = await runCli(
        ["hooks", "lint", "--fix", "--compat", "llama", "--format", "json"],
        options,
      );
      assertEquals(JSON.parse(again.stdout).fixes, []);
      assertEquals(await Deno.readTextFile(`${dir}/project/.claude/settings.json`), after);
    },
  );
});

Deno.test("a command not on PATH and bash-only syntax are warnings", async () => {
  const text = JSON.stringify({
    hooks: {
      Stop: [{
        hooks: [
          { type: "command", command: "no-such-program-llama-agent-test --check" },
          { type: "command", command: '[[ -n "$X" ]] && echo y' },
        ],
      }],
    },
  });
  await lint({ "project/.claude/settings.json": text }, ["--format", "json"], (result) => {
    assertEquals(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assertEquals(report.diagnostics.map((d: { code: string; pointer: string }) => d.code), [
      "LINT_COMMAND_NOT_FOUND",
      "LINT_BASH_ONLY_SYNTAX",
    ]);
    assertStringIncludes(report.diagnostics[0].message, '"no-such-program-llama-agent-test"');
  });
});

Deno.test("--fix through a symlinked settings file names the file it wrote", async () => {
  await withTempProject(
    { "project/.keep": "", "home/dotfiles/claude.json": FOR_CLAUDE_CODE },
    async (dir) => {
      await Deno.mkdir(`${dir}/project/.claude`);
      await Deno.symlink(
        `${dir}/home/dotfiles/claude.json`,
        `${dir}/project/.claude/settings.json`,
      );
      const options = { cwd: `${dir}/project`, home: `${dir}/home` };
      const result = await runCli(["hooks", "lint", "--fix", "--compat", "llama"], options);
      assertEquals([result.code, result.stderr], [0, ""]);
      assertEquals(
        result.stdout.split("\n")[0],
        '.claude/settings.json:5: Fixed matcher "Bash" to "Bash|shell" at ' +
          '/hooks/PreToolUse/0/matcher (written to "~/dotfiles/claude.json")',
      );
      assert((await Deno.lstat(`${dir}/project/.claude/settings.json`)).isSymlink);
      assertStringIncludes(
        await Deno.readTextFile(`${dir}/home/dotfiles/claude.json`),
        '"matcher": "Bash|shell"',
      );
    },
  );
});

Deno.test("--fix in a project also fixes the user file, and --help says so", async () => {
  const files = {
    "project/.keep": "",
    "home/.claude/settings.json": JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: "true" }] }] },
    }),
  };
  await lint(files, ["--fix", "--compat", "llama", "--format", "json"], (result) => {
    assertEquals(result.code, 0, result.stderr);
    const [fix] = JSON.parse(result.stdout).fixes;
    assertEquals([fix.from, fix.to, fix.target], ["Read", "Read|fs_read", undefined]);
    assert(fix.file.endsWith("/home/.claude/settings.json"), fix.file);
  });
  await lint({ "project/.keep": "" }, ["--help"], (result) => {
    assertEquals(result.code, 0);
    assertStringIncludes(
      result.stdout.replaceAll("\n", " "),
      "includes $HOME/.claude/settings.json",
    );
  });
});

Deno.test("auto: the profile is decided from the hooks and said with its reason", async () => {
  const files = { "project/.claude/settings.json": FOR_CLAUDE_CODE };
  await lint(files, ["--format", "json"], (result) => {
    assertEquals([result.code, result.stderr], [0, ""]);
    const report = JSON.parse(result.stdout);
    assertEquals([report.profile, report.neverRun], ["claude", 0]);
    assertEquals(report.profileChoice, {
      auto: true,
      reason: `the hooks name Claude Code's tools in matcher "Bash", matcher "Edit|Write", ` +
        `matcher "^Read$"`,
    });
  });
  await lint(files, [], (result) => {
    assertEquals(
      result.stdout.split("\n").at(-2),
      `Profile: claude (auto: the hooks name Claude Code's tools in matcher "Bash", matcher ` +
        `"Edit|Write", matcher "^Read$")`,
    );
  });
  const mixed = JSON.stringify({
    hooks: {
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: "true" }] },
        { matcher: "fs_write", hooks: [{ type: "command", command: "true" }] },
      ],
    },
  });
  await lint({ "project/.claude/settings.json": mixed }, ["--format", "json"], (result) => {
    const report = JSON.parse(result.stdout);
    assertEquals([report.profile, report.neverRun], ["llama", 1]);
    assertStringIncludes(report.profileChoice.reason, "but the hooks also name llama-agent's");
  });
});

/** A guard for Claude Code's Edit and Write, a SubagentStop hook, and a PostCompact hook. */
const NEVER_FIRING = JSON.stringify({
  hooks: {
    PreToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: "true" }] }],
    SubagentStop: [{ hooks: [{ type: "command", command: "true" }] }],
    PostCompact: [{ hooks: [{ type: "command", command: "true" }] }],
  },
});

Deno.test("--strict: a hook that never fires in the profile is an error and exits 1, for CI", async () => {
  const files = { "project/.claude/settings.json": NEVER_FIRING };
  const severities = (stdout: string) =>
    Object.fromEntries(
      JSON.parse(stdout).diagnostics.map((
        d: { code: string; pointer: string; severity: string },
      ) => [`${d.code} ${d.pointer}`, d.severity]),
    );
  await lint(files, ["--compat", "llama", "--format", "json"], (result) => {
    assertEquals(result.code, 0, result.stdout);
    assertEquals(severities(result.stdout), {
      "LINT_TOOL_NEVER_MATCHES /hooks/PreToolUse/0/matcher": "warning",
      "LINT_EVENT_NEVER_FIRES /hooks/SubagentStop": "warning",
      "LINT_EVENT_NEVER_FIRES /hooks/PostCompact": "warning",
    });
  });
  await lint(files, ["--compat", "llama", "--strict", "--format", "json"], (result) => {
    assertEquals(result.code, 1, result.stdout);
    // SubagentStop fires in no profile: nothing a profile or a name could change, so no error.
    assertEquals(severities(result.stdout), {
      "LINT_TOOL_NEVER_MATCHES /hooks/PreToolUse/0/matcher": "error",
      "LINT_EVENT_NEVER_FIRES /hooks/SubagentStop": "warning",
      "LINT_EVENT_NEVER_FIRES /hooks/PostCompact": "error",
    });
  });
  await lint(files, ["--compat", "llama", "--strict"], (result) => {
    assertEquals(result.code, 1);
    assertStringIncludes(result.stdout, "\n2 errors, 1 warning; 1 hook never runs here\n");
  });
  // Under auto the hooks choose Claude Code's tools, where every one of them fires but SubagentStop.
  await lint(files, ["--strict", "--format", "json"], (result) => {
    assertEquals(result.code, 0, result.stdout);
    assertEquals(severities(result.stdout), {
      "LINT_EVENT_NEVER_FIRES /hooks/SubagentStop": "warning",
    });
  });
  await lint({ "project/.keep": "" }, ["--help"], (result) => {
    assertStringIncludes(result.stdout, "--strict");
    assertStringIncludes(result.stdout.replaceAll("\n", " "), "--strict (for CI) makes each");
  });
});
