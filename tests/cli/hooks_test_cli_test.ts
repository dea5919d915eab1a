/**
 * `hooks test` through the real launcher: help, usage errors, what it finds to run, the readable
 * report of passing, failing and invalid cases, and --filter, --explain and --bail.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import {
  ALLOWS_LS,
  DENIES_RM,
  hooksTest,
  PROJECT,
  REASON_LINE,
  reportLines,
  scenario,
  WRONG_REASON,
} from "./hooks_test_fixture.ts";

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
      assertEquals(reportLines(result, 0), [
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
      const lines = reportLines(result, 1);
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
  // A mistake outside the cases makes the whole file invalid.
  const broken = '{\n  "cases": [{ "name": "a", "event": "Stop", "expect": {"errors": 0} }],\n' +
    '  "settingz": {}\n}\n';
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
      assertEquals(report.problems[0].pointer, "/settingz");
      assertMatch(result.stderr, /^\.claude\/hooks-tests\/broken\.test\.jsonc:3:\d+: .*\n$/);
    },
  );
});

Deno.test("an invalid case is an error at its line; the other cases of its file still run", async () => {
  const mixed = '{\n  "cases": [\n' +
    '    { "name": "allows ls", "event": "PreToolUse", "input": ' +
    '{ "tool_name": "shell", "tool_input": { "command": "ls" } }, "expect": { "decision": "none" } },\n' +
    '    { "name": "typo", "event": "PreToolUsee", "expect": { "errors": 0 } }\n  ]\n}\n';
  await hooksTest(
    { ...PROJECT, "project/.claude/hooks-tests/mixed.test.jsonc": mixed },
    [],
    (result) => {
      assertEquals(result.code, 2, result.stdout + result.stderr);
      assert(!result.stdout.includes("Invalid scenario files:"), result.stdout);
      assertStringIncludes(result.stdout, "  ✓ allows ls");
      assertMatch(result.stdout, /typo[^\n]*\n(.*\n)*.*line 4/);
      assertMatch(result.stdout, /1 passed, 1 failed \(1 error\)/);
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

Deno.test("--shard 1/2 and 2/2 run one case each of two; a bad --shard is a usage error", async () => {
  const project = {
    ...PROJECT,
    "project/.claude/hooks-tests/guard.test.jsonc": scenario([ALLOWS_LS, DENIES_RM]),
  };
  await hooksTest(project, ["--shard", "1/2"], (result) => {
    assertEquals(reportLines(result, 0), [
      ".claude/hooks-tests/guard.test.jsonc",
      "  ✓ allows ls (N ms)",
      "",
      "1 passed, 0 failed in N s",
      "",
    ]);
  });
  await hooksTest(project, ["--shard", "2/2"], (result) => {
    assertEquals(reportLines(result, 0).slice(0, 2), [
      ".claude/hooks-tests/guard.test.jsonc",
      "  ✓ denies rm -rf (N ms)",
    ]);
  });
  await hooksTest(project, ["--shard", "3/3"], (result) => {
    assertEquals(result.code, 0);
    assertStringIncludes(
      result.stderr,
      "Shard 3/3 has no case: the run has 2, fewer than its shards",
    );
  });
  await hooksTest(project, ["--shard", "3/2"], (result) => {
    assertEquals([result.code, result.stdout], [2, ""]);
    assertStringIncludes(
      result.stderr,
      '--shard takes I/N, the I-th of N slices with 1 <= I <= N (e.g. 2/4), not "3/2"',
    );
  });
});
