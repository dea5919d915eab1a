import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { type CliRun, runCli, withTempProject } from "../helpers/run_cli.ts";
import { renderGithub } from "../../src/cli/hooks_lint.ts";

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
    [],
    (result) => {
      assertEquals(result.stderr, "");
      assertEquals(result.code, 1);
      assertEquals(result.stdout.split("\n"), [
        "~/.claude/settings.json:1:17: warning: Claude Code rejects comments in a settings file " +
        "and then drops every hook of the file (llama-agent accepts them): remove the comment if " +
        "Claude Code also reads this file [LINT_JSONC_REJECTED_BY_CLAUDE]",
        "",
        '.claude/settings.json:5:9: warning: Matcher "Bash" never matches a llama-agent tool: use ' +
        '"shell" (or "shell|terminal") at /hooks/PreToolUse/0/matcher [LINT_TOOL_NEVER_MATCHES]',
        '.claude/settings.json:9:13: error: Script "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh" is ' +
        "not executable, so the hook fails every time it runs: run " +
        '"chmod +x .claude/hooks/check.sh" in the project, or run it through its interpreter ' +
        '(e.g. "bash "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh"") ' +
        "at /hooks/PreToolUse/0/hooks/0/command [LINT_SCRIPT_NOT_EXECUTABLE]",
        '.claude/settings.json:20:13: warning: "timeout" is 5000 seconds (1 h 23 min): timeouts ' +
        "are in seconds; did you mean 5? at /hooks/Stop/0/hooks/0/timeout " +
        "[LINT_TIMEOUT_LOOKS_LIKE_MS]",
        "",
        "1 error, 3 warnings",
        "",
      ]);
    },
  );
});

Deno.test("only warnings exit 0; a clean chain says so", async () => {
  await lint({ "project/.claude/settings.json": ONLY_WARNINGS }, [], (result) => {
    assertEquals(result.code, 0, result.stderr);
    assertMatch(result.stdout, /^\.claude\/settings\.json:1:\d+: warning: Matcher "Edit\|Write"/);
    assertStringIncludes(result.stdout, "\n\n0 errors, 1 warning\n");
  });
  await lint({ "project/.claude/settings.json": CLEAN }, [], (result) => {
    assertEquals([result.code, result.stdout, result.stderr], [0, "No problems found\n", ""]);
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
    ["--format=json"],
    (result, dir) => {
      assertEquals(result.code, 1);
      assertEquals(result.stderr, "");
      const report = JSON.parse(result.stdout);
      assertEquals(Object.keys(report), ["cwd", "diagnostics", "errors", "warnings"]);
      assertEquals([report.cwd, report.errors, report.warnings], [`${dir}/project`, 1, 2]);
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
    ["--format", "github", "--cwd", "."],
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
