import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { type CliRun, runCli, withTempProject } from "../helpers/run_cli.ts";

/** Blocks a shell command that contains "rm -rf", says nothing otherwise. */
const GUARD = {
  text: "#!/bin/sh\n" +
    "if grep -q 'rm -rf'; then echo 'Refusing rm -rf' >&2; exit 2; fi\n" +
    "exit 0\n",
  mode: 0o755,
};

const SETTINGS = JSON.stringify(
  {
    hooks: {
      PreToolUse: [{
        matcher: "shell",
        hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh' }],
      }],
    },
  },
  null,
  2,
);

const shell = (command: string) => ({ tool_name: "shell", tool_input: { command } });

function scenario(cases: readonly unknown[]): string {
  return JSON.stringify({ cases }, null, 2) + "\n";
}

const ALLOWS_LS = {
  name: "allows ls",
  event: "PreToolUse",
  input: shell("ls"),
  expect: { decision: "none" },
};

const DENIES_RM = {
  name: "denies rm -rf",
  event: "PreToolUse",
  input: shell("rm -rf /"),
  // Claude Code prefixes an exit-2 reason with the command.
  expect: { decision: "deny", reason: { matches: "guard\\.sh\\]: Refusing rm -rf$" } },
};

/** Expects a reason the hook does not give. */
const WRONG_REASON = {
  ...DENIES_RM,
  name: "denies rm -rf politely",
  expect: { decision: "deny", reason: { matches: "^Please" } },
};

/** The line of `"reason"` in the scenario of `ALLOWS_LS` and `WRONG_REASON`. */
const REASON_LINE = scenario([ALLOWS_LS, WRONG_REASON]).split("\n")
  .findIndex((line) => line.includes('"reason"')) + 1;

/**
 * Runs `hooks test` in `<tmp>/project`, HOME at `<tmp>/home`, colors off (not a terminal).
 * TMPDIR is `<tmp>/home/tmp`: the launcher lets llama-agent write only under the launch
 * directory and HOME, and the runner makes its hermetic directories in TMPDIR.
 */
function hooksTest(
  files: Readonly<Record<string, string | { text: string; mode: number }>>,
  args: readonly string[],
  check: (result: CliRun, dir: string) => void,
): Promise<void> {
  return withTempProject({ "home/tmp/.keep": "", "project/.keep": "", ...files }, async (dir) => {
    const result = await runCli(["hooks", "test", ...args], {
      cwd: `${dir}/project`,
      home: `${dir}/home`,
      env: { TMPDIR: `${dir}/home/tmp` },
    });
    check(result, dir);
  });
}

const PROJECT = {
  "project/.claude/settings.json": SETTINGS,
  "project/.claude/hooks/guard.sh": GUARD,
};

/** Durations vary: `(12 ms)` → `(N ms)`, `in 0.12 s` → `in N s`. */
function normalize(text: string): string {
  return text.replace(/\(\d+ ms\)/g, "(N ms)").replace(/ in \d+\.\d+ s$/m, " in N s");
}

Deno.test("hooks test --help: usage, paths, every reporter, exit codes and examples", async () => {
  await hooksTest({}, ["--help"], (result) => {
    assertEquals([result.code, result.stderr], [0, ""]);
    assertStringIncludes(result.stdout, "Usage: llama-agent hooks test [PATHS...] [flags]");
    assertStringIncludes(result.stdout, "*.test.jsonc");
    assertStringIncludes(result.stdout, "--reporter NAME");
    assertStringIncludes(result.stdout, "default, tap, junit, json, or github");
    for (const flag of ["--filter TEXT", "--explain", "--bail", "--cwd DIR"]) {
      assertStringIncludes(result.stdout, flag);
    }
    assertStringIncludes(result.stdout, "Exit codes: 0 every case passed; 1 a case failed; 2");
    assertStringIncludes(result.stdout, "--reporter github   # in a GitHub Actions step");
  });
});

Deno.test("usage errors exit 2: an unknown reporter, an unknown flag", async () => {
  await hooksTest({ "project/.keep": "" }, ["--reporter", "xml"], (result) => {
    assertEquals([result.code, result.stdout], [2, ""]);
    assertEquals(
      result.stderr,
      'Flag "--reporter" does not accept "xml": use one of "default", "tap", "junit", "json", ' +
        '"github"\n',
    );
  });
  await hooksTest({ "project/.keep": "" }, ["--frob"], (result) => {
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, 'Unknown flag "--frob" for "llama-agent hooks test"');
  });
});

Deno.test("no scenario files is invalid input: a clear message, exit 2", async () => {
  await hooksTest({ "project/.keep": "" }, [], (result) => {
    assertEquals([result.code, result.stdout], [2, ""]);
    assertEquals(
      result.stderr,
      'No scenario files found under ".claude/hooks-tests": add *.test.jsonc files there, or ' +
        "name the files and directories to run\n",
    );
  });
  await hooksTest({ "project/.keep": "" }, ["missing.test.jsonc"], (result) => {
    assertEquals(result.code, 2);
    assertStringIncludes(result.stdout, 'missing.test.jsonc:1:1: Cannot find scenarios: "missing');
  });
});

Deno.test("passing cases exit 0 with one line per case and the totals", async () => {
  await hooksTest(
    {
      ...PROJECT,
      "project/.claude/hooks-tests/guard.test.jsonc": scenario([ALLOWS_LS, DENIES_RM]),
    },
    [],
    (result) => {
      assertEquals(result.code, 0, result.stdout + result.stderr);
      assertEquals(result.stderr, "");
      assertEquals(normalize(result.stdout).split("\n"), [
        ".claude/hooks-tests/guard.test.jsonc",
        "  ✓ allows ls (N ms)",
        "  ✓ denies rm -rf (N ms)",
        "",
        "2 passed, 0 failed in N s",
        "",
      ]);
    },
  );
});

Deno.test("a failing case exits 1 with the expectation, its line, expected and actual", async () => {
  await hooksTest(
    {
      ...PROJECT,
      "project/.claude/hooks-tests/guard.test.jsonc": scenario([ALLOWS_LS, WRONG_REASON]),
    },
    [],
    (result) => {
      assertEquals(result.code, 1, result.stdout + result.stderr);
      assertEquals(result.stderr, "");
      const lines = normalize(result.stdout).split("\n");
      assertEquals(lines.slice(0, 4), [
        ".claude/hooks-tests/guard.test.jsonc",
        "  ✓ allows ls (N ms)",
        "  ✗ denies rm -rf politely (N ms)",
        `      expect.reason at .claude/hooks-tests/guard.test.jsonc:${REASON_LINE}`,
      ]);
      assertStringIncludes(
        result.stdout,
        "        expected: /^Please/\n" +
          '        actual:   "[\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/guard.sh]: Refusing rm -rf"\n',
      );
      assertEquals(lines.at(-2), "1 passed, 1 failed in N s");
    },
  );
});

Deno.test("an invalid scenario file exits 2 with file:line:column; valid files still run", async () => {
  const broken =
    '{\n  "cases": [\n    { "name": "typo", "event": "PreToolUsee", "expect": {"errors": 0} }\n  ]\n}\n';
  await hooksTest(
    {
      ...PROJECT,
      "project/.claude/hooks-tests/broken.test.jsonc": broken,
      "project/.claude/hooks-tests/guard.test.jsonc": scenario([ALLOWS_LS]),
    },
    [],
    (result) => {
      assertEquals(result.code, 2, result.stdout + result.stderr);
      const lines = result.stdout.split("\n");
      assertEquals(lines[0], "Invalid scenario files:");
      assertMatch(lines[1]!, /^ {2}\.claude\/hooks-tests\/broken\.test\.jsonc:3:\d+: /);
      assertStringIncludes(result.stdout, "  ✓ allows ls");
      assertMatch(result.stdout, /1 passed, 0 failed, 1 invalid file in \d+\.\d+ s\n$/);
      assertEquals(result.stderr, "");
    },
  );
  // A report for programs carries the problem, and stderr tells the person watching.
  await hooksTest(
    {
      ...PROJECT,
      "project/.claude/hooks-tests/broken.test.jsonc": broken,
    },
    ["--reporter", "json"],
    (result) => {
      assertEquals(result.code, 2, result.stdout + result.stderr);
      const report = JSON.parse(result.stdout);
      assertEquals(report.problems.length, 1);
      assertEquals(report.problems[0].pointer, "/cases/0/event");
      assertMatch(result.stderr, /^\.claude\/hooks-tests\/broken\.test\.jsonc:3:\d+: .*\n$/);
    },
  );
});

Deno.test("--filter picks cases by name; a filter that matches nothing exits 2", async () => {
  const files = {
    ...PROJECT,
    "project/.claude/hooks-tests/guard.test.jsonc": scenario([ALLOWS_LS, WRONG_REASON]),
  };
  await hooksTest(files, ["--filter", "allows"], (result) => {
    assertEquals(result.code, 0, result.stdout + result.stderr);
    assertStringIncludes(result.stdout, "allows ls");
    assert(!result.stdout.includes("politely"), result.stdout);
  });
  await hooksTest(files, ["--filter", "nothing like it"], (result) => {
    assertEquals(result.code, 2);
    assertEquals(result.stderr, 'No case matches --filter "nothing like it"\n');
  });
});

Deno.test("--explain shows each registration, its raw result and who decided", async () => {
  await hooksTest(
    {
      ...PROJECT,
      "project/.claude/hooks-tests/guard.test.jsonc": scenario([DENIES_RM]),
    },
    ["--explain"],
    (result) => {
      assertEquals(result.code, 0, result.stdout + result.stderr);
      assertStringIncludes(result.stdout, '        PreToolUse (matcher value "shell"):\n');
      assertMatch(result.stdout, /matched: .*guard\.sh \(.*\.claude\/settings\.json:\d+\)/);
      assertStringIncludes(result.stdout, "exitCode: 2");
      assertStringIncludes(result.stdout, "        decided by:\n");
    },
  );
});

Deno.test("--bail starts no case after the first failure", async () => {
  const many = Array.from({ length: 6 }, (_, i) => ({ ...WRONG_REASON, name: `fails ${i}` }));
  await hooksTest(
    {
      ...PROJECT,
      "project/.claude/hooks-tests/guard.test.jsonc": scenario(many),
    },
    ["--bail", "--reporter", "json"],
    (result) => {
      assertEquals(result.code, 1, result.stderr);
      const report = JSON.parse(result.stdout);
      assert(report.results.length >= 1 && report.results.length < 6, result.stdout);
    },
  );
});

Deno.test("every reporter reports the failure; json, tap, junit and github are parseable", async () => {
  const files = {
    ...PROJECT,
    "project/.claude/hooks-tests/guard.test.jsonc": scenario([ALLOWS_LS, WRONG_REASON]),
  };
  await hooksTest(files, ["--reporter", "json"], (result, dir) => {
    assertEquals(result.code, 1, result.stderr);
    const report = JSON.parse(result.stdout);
    assertEquals(report.cwd, `${dir}/project`);
    assertEquals(report.problems, []);
    assertEquals(report.results.map((r: { status: string }) => r.status), ["passed", "failed"]);
    assertEquals(report.results[1].failures[0].path, "expect.reason");
    assertEquals(
      report.results[1].failures[0].actual,
      '["$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh]: Refusing rm -rf',
    );
  });
  await hooksTest(files, ["--reporter", "tap"], (result) => {
    assertEquals(result.code, 1, result.stderr);
    const lines = result.stdout.split("\n");
    assertEquals(lines.slice(0, 2), ["TAP version 13", "1..2"]);
    assertMatch(
      lines[2]!,
      /^ok 1 - \.claude\/hooks-tests\/guard\.test\.jsonc > allows ls # time=\d+ms$/,
    );
    assertMatch(lines[3]!, /^not ok 2 - .* > denies rm -rf politely # time=\d+ms$/);
    assertEquals(lines[4], "  ---");
  });
  await hooksTest(files, ["--reporter", "junit"], (result) => {
    assertEquals(result.code, 1, result.stderr);
    assertMatch(result.stdout, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
    assertMatch(
      result.stdout,
      /<testsuite name="\.claude\/hooks-tests\/guard\.test\.jsonc" tests="2" failures="1" errors="0"/,
    );
    assertStringIncludes(result.stdout, '<failure type="expectation" message="expect.reason: ');
  });
  await hooksTest(files, ["--reporter", "github"], (result) => {
    assertEquals(result.code, 1, result.stderr);
    const lines = result.stdout.trimEnd().split("\n");
    assertEquals(lines.length, 2);
    assertStringIncludes(
      lines[0]!,
      `::error file=.claude/hooks-tests/guard.test.jsonc,line=${REASON_LINE},` +
        "title=denies rm -rf politely%3A expect.reason::",
    );
    assertStringIncludes(lines[0]!, "%0Aexpected: /^Please/%0Aactual:   ");
    assertMatch(lines[1]!, /^1 passed, 1 failed in \d+\.\d+ s$/);
  });
});

Deno.test("github annotations name files from the repository root, whatever --cwd says", async () => {
  const files = {
    ...PROJECT,
    "project/.claude/hooks-tests/guard.test.jsonc": scenario([WRONG_REASON]),
    "home/.keep": "",
  };
  await withTempProject(files, async (dir) => {
    const result = await runCli(["hooks", "test", "--cwd", "project", "--reporter", "github"], {
      cwd: dir,
      home: `${dir}/home`,
    });
    assertEquals(result.code, 1, result.stderr);
    assertStringIncludes(
      result.stdout,
      "::error file=project/.claude/hooks-tests/guard.test.jsonc,",
    );
  });
});

Deno.test("--help says session cases run in a copy and their shell commands are answered, not run", async () => {
  await hooksTest({}, ["--help"], (result) => {
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stdout, "Session cases run in a temporary copy of the project");
    assertStringIncludes(result.stdout, "answered from the scenario, not run");
  });
});

Deno.test("a session case whose guard never fires deletes nothing, and the report says the command was only answered", async () => {
  // Matched on Claude Code's "Bash": the guard never sees llama-agent's "shell".
  const settings = SETTINGS.replace('"matcher": "shell"', '"matcher": "Bash"');
  const unguarded = {
    name: "rm -rf victim is refused",
    session: {
      model: {
        turns: [
          { toolCalls: [{ name: "shell", input: { command: "rm -rf victim" } }] },
          {
            toolCalls: [{ name: "fs_write", input: { file_path: "../outside.txt", content: "x" } }],
          },
          { text: "Done." },
        ],
      },
      prompts: ["clean up"],
    },
    expect: { tools: [{ name: "shell", dispatched: false }, { name: "fs_write" }] },
  };
  await hooksTest(
    {
      ...PROJECT,
      "project/.claude/settings.json": settings,
      "project/victim/keep.txt": "precious\n",
      "project/.claude/hooks-tests/guard.test.jsonc": scenario([unguarded]),
    },
    [],
    (result, dir) => {
      assertEquals(result.code, 1, result.stdout + result.stderr);
      assertEquals(result.stderr, "");
      const lines = normalize(result.stdout).split("\n");
      assertEquals(lines.slice(0, 4), [
        ".claude/hooks-tests/guard.test.jsonc",
        "  ✗ rm -rf victim is refused (N ms)",
        "      shell answered, not run: rm -rf victim → exit 0",
        `      expect.tools[0].dispatched at .claude/hooks-tests/guard.test.jsonc:${
          scenario([unguarded]).split("\n").findIndex((line) => line.includes('"dispatched"')) + 1
        }`,
      ]);
      assertStringIncludes(
        result.stdout,
        'Expected "shell" (call 1) not to run, but it was dispatched (the scripted terminal ' +
          "answered it; nothing was executed)",
      );
      assertEquals(Deno.readTextFileSync(`${dir}/project/victim/keep.txt`), "precious\n");
      assert(!existsSync(`${dir}/outside.txt`), "nothing is written outside the project");
    },
  );
});

function existsSync(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
