/** `hooks test --reporter`: each format reports the same failure, in a form its readers parse. */
import { assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";
import {
  ALLOWS_LS,
  hooksTest,
  PROJECT,
  REASON_LINE,
  scenario,
  WRONG_REASON,
} from "./hooks_test_fixture.ts";

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
