/**
 * `hooks test --update` through the real launcher: failing expectations rewritten in place with
 * comments kept, the changes listed (on stderr under a reporter for programs), the exit code
 * saying whether every failure was updated, and the next run passing.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { type CliRun, runCli, withTempProject } from "../helpers/run_cli.ts";
import { PROJECT } from "./hooks_test_fixture.ts";

const SCENARIO = `{
  // The guard's cases. This comment must survive an update.
  "cases": [
    {
      "name": "allows ls",
      "event": "PreToolUse",
      "input": { "tool_name": "shell", "tool_input": { "command": "ls" } },
      "expect": { "decision": "none" } // passes: never touched
    },
    {
      "name": "denies rm -rf politely",
      "event": "PreToolUse",
      "input": { "tool_name": "shell", "tool_input": { "command": "rm -rf /" } },
      "expect": {
        "decision": "deny",
        /* the wording we hope for */
        "reason": { "matches": "^Please" }
      }
    }
  ]
}
`;

const FILE = ".claude/hooks-tests/guard.test.jsonc";
/** The 1-based line of the first line of `text` that holds `part`. */
const lineOf = (text: string, part: string) =>
  text.split("\n").findIndex((line) => line.includes(part)) + 1;

const REASON = '[\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/guard.sh]: Refusing rm -rf';

/** A project with the guard and `scenario`; `fn` may run `hooks test` in it more than once. */
function inProject(
  scenario: string,
  fn: (hooksTest: (args: readonly string[]) => Promise<CliRun>, file: string) => Promise<void>,
): Promise<void> {
  return withTempProject({
    "home/tmp/.keep": "",
    ...PROJECT,
    [`project/${FILE}`]: scenario,
  }, (dir) =>
    fn(
      (args) =>
        runCli(["hooks", "test", ...args], {
          cwd: `${dir}/project`,
          home: `${dir}/home`,
          env: { TMPDIR: `${dir}/home/tmp` },
        }),
      `${dir}/project/${FILE}`,
    ));
}

Deno.test("--update rewrites the failing expectation in place, lists it, exits 0; the next run passes", async () => {
  await inProject(SCENARIO, async (hooksTest, file) => {
    const updated = await hooksTest(["--update"]);
    assertEquals([updated.code, updated.stderr], [0, ""], updated.stdout);
    const line = lineOf(SCENARIO, '"reason"');
    assertStringIncludes(
      updated.stdout,
      "Updated 1 expectation(s) in 1 file(s); review them before you commit:\n" +
        `  ${FILE}:${line}: "denies rm -rf politely" expect.reason: { "matches": "^Please" } → ` +
        `"${REASON}"\n`,
    );
    assertEquals(
      await Deno.readTextFile(file),
      SCENARIO.replace('{ "matches": "^Please" }', `"${REASON}"`),
    );
    const again = await hooksTest([]);
    assertEquals(again.code, 0, again.stdout);
    assertStringIncludes(again.stdout, "2 passed");
  });
});

Deno.test("--update leaves what it cannot express, says so on stderr for a program's reporter, exits 1", async () => {
  const typo = SCENARIO.replace(
    '"decision": "deny",',
    '"decision": "deny",\n        "notMatched": ["gaurd.sh"],',
  );
  await inProject(typo, async (hooksTest, file) => {
    const run = await hooksTest(["--update", "--reporter", "json"]);
    assertEquals(run.code, 1, run.stderr);
    JSON.parse(run.stdout);
    assertStringIncludes(run.stderr, 'expect.reason: { "matches": "^Please" } → ');
    assertStringIncludes(
      run.stderr,
      "Not updated (1), to edit by hand or run again:\n" +
        `  ${FILE}:${
          lineOf(typo, "notMatched")
        }: "denies rm -rf politely" expect.notMatched[0]: "gaurd.sh" names no hook`,
    );
    const written = await Deno.readTextFile(file);
    assert(written.includes('"notMatched": ["gaurd.sh"],'), written);
    assert(written.includes("This comment must survive an update."), written);
  });
});

Deno.test("--update writes the hooks that ran as hooks init names them: the script, not a registration id", async () => {
  const expectsNone = SCENARIO.replace('"decision": "deny",', '"decision": "deny", "matched": [],');
  await inProject(expectsNone, async (hooksTest, file) => {
    const run = await hooksTest(["--update"]);
    assertEquals(run.code, 0, run.stdout);
    const written = await Deno.readTextFile(file);
    assert(written.includes('"matched": ["guard.sh"],'), written);
    assertEquals((await hooksTest([])).code, 0);
  });
});

Deno.test("--update with --filter updates only the cases that ran; without failures nothing is written", async () => {
  await inProject(SCENARIO, async (hooksTest, file) => {
    const run = await hooksTest(["--update", "--filter", "allows ls"]);
    assertEquals([run.code, run.stderr], [0, ""]);
    assert(!run.stdout.includes("Updated"), run.stdout);
    assertEquals(await Deno.readTextFile(file), SCENARIO);
  });
});

Deno.test("hooks test --help describes --update and its exit code", async () => {
  await inProject(SCENARIO, async (hooksTest) => {
    const help = await hooksTest(["--help"]);
    assertStringIncludes(help.stdout, "--update");
    assertStringIncludes(help.stdout, "whose every failure was updated counts as passed");
  });
});
