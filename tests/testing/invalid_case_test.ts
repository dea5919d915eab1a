/**
 * One invalid case no longer hides the valid cases of its file: the loader reports it as a case
 * that cannot run, at its line, with every problem it has, and keeps the rest; a problem outside
 * `cases` still makes the whole file invalid.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { invalidCaseResult } from "../../src/testing/scenarios/invalid_cases.ts";
import { runScenarios } from "../../src/testing/runner/run_scenarios.ts";
import { loadScenarioFile } from "../../src/testing/scenarios/scenario_file.ts";
import { EventCase } from "../../src/testing/scenarios/scenario_schema.ts";
import { lines, problemsOf, where, withFiles } from "./scenario_files.ts";

async function load(text: string, files: Record<string, string> = {}) {
  return await withFiles({ ...files, "s.test.jsonc": text }, async (dir) => {
    const result = await loadScenarioFile(`${dir}/s.test.jsonc`, { displayPath: "s.test.jsonc" });
    assert(result.ok, JSON.stringify(!result.ok && result.problems));
    const { scenario } = result;
    return {
      valid: scenario.cases.map((c) => [c.case.name, c.location.pointer, c.location.line]),
      invalid: (scenario.invalidCases ?? []).map(({ problems: _, ...c }) => ({
        ...c,
        location: { ...c.location, file: c.location.file.replace(dir, "<dir>") },
      })),
      lineOf: scenario.lineOf,
    };
  });
}

const THREE_CASES = lines(
  "{",
  '  "cases": [',
  '    { "name": "first", "event": "Stop", "expect": {"errors": 0} },',
  "    {",
  '      "name": "typo",',
  '      "event": "Stop",',
  '      "expect": {"errors": 0, "contxt": "a"}',
  "    },",
  '    { "name": "third", "event": "Stop", "expect": {"errors": 0} }',
  "  ]",
  "}",
);

Deno.test("an invalid case is reported at its line with its problems, and the others load", async () => {
  const loaded = await load(THREE_CASES);
  assertEquals(loaded.valid, [["first", "/cases/0", 3], ["third", "/cases/2", 9]]);
  assertEquals(loaded.invalid, [{
    name: "typo",
    kind: "event",
    location: { file: "<dir>/s.test.jsonc", line: 4, pointer: "/cases/1" },
    error: 'Invalid case: unknown field "contxt" (did you mean "context"?) ' +
      "at /cases/1/expect/contxt (line 7, column 31)",
  }]);
  assertEquals(loaded.lineOf("/cases/2/expect/errors"), 9);
});

Deno.test("an invalid case's result is an error naming the case, so the run exits 2", async () => {
  const loaded = await load(THREE_CASES);
  const result = invalidCaseResult({ ...loaded.invalid[0]!, problems: [] });
  assertEquals(result.status, "error");
  assertEquals(result.name, "typo");
  assertEquals(result.location.line, 4);
  assertEquals(result.failures, []);
  assert(result.error?.includes('unknown field "contxt"'), result.error);
});

Deno.test("a case without a name, one that is no object, a duplicate name and a missing home are each its own error", async () => {
  const loaded = await load(lines(
    "{",
    '  "cases": [',
    '    { "event": "Stop", "expect": {"errors": 0} },',
    "    7,",
    '    { "name": "ok", "event": "Stop", "expect": {"errors": 0} },',
    '    { "name": "ok", "session": {"model": {"turns": []}, "prompts": ["p"]}, ' +
      '"expect": {"stopReason": "end_turn"} },',
    '    { "name": "homeless", "event": "Stop", "home": "nowhere", "expect": {"errors": 0} }',
    "  ]",
    "}",
  ));
  assertEquals(loaded.valid, [["ok", "/cases/2", 5]]);
  assertEquals(loaded.invalid.map((c) => [c.name, c.kind, c.location.line]), [
    ["case 1", "event", 3],
    ["case 2", "event", 4],
    ["ok", "session", 6],
    ["homeless", "event", 7],
  ]);
  const errors = loaded.invalid.map((c) => c.error);
  assert(errors[0]?.includes('missing required field "name"'), errors[0]);
  assert(errors[2]?.includes('duplicate case name "ok" (case 2, line 5, has it too)'), errors[2]);
  assert(errors[3]?.includes('home directory "nowhere" does not exist'), errors[3]);
});

Deno.test("every case invalid: the file still loads, with no case to run and each one reported", async () => {
  const loaded = await load('{"cases": [{"name": "a", "event": "Stop", "expect": {}}]}');
  assertEquals(loaded.valid, []);
  assertEquals(loaded.invalid.map((c) => c.error), [
    'Invalid case: "expect": must assert something: give at least one ' +
    "expectation at /cases/0/expect (line 1, column 43)",
  ]);
});

Deno.test("a problem outside the cases still makes the whole file invalid, the cases' problems listed too", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "descripton": "typo at the top",',
    '  "cases": [{ "name": "x", "event": "Stop", "expect": {"erors": 0} }]',
    "}",
  ));
  assertEquals(where(problems).map((p) => p.split(" Invalid")[0]), [
    "2:3 /descripton",
    "3:56 /cases/0/expect/erors",
  ]);
  assertEquals(
    (await problemsOf('{"cases": []}')).map((p) => p.pointer),
    ["/cases"],
  );
});

Deno.test("a missing expect makes the case invalid without a crash in the envFile rule", () => {
  const parsed = EventCase.safeParse({ name: "x", event: "Stop" });
  assertEquals(parsed.success, false);
  assertEquals(parsed.error?.issues.map((i) => i.path.join("/")), ["expect"]);
});

Deno.test("a run reports the invalid case as an error in file order and runs the valid ones", async () => {
  await withFiles({ "s.test.jsonc": THREE_CASES, ".claude/settings.json": "{}" }, async (dir) => {
    const run = await runScenarios({
      projectDir: dir,
      files: [`${dir}/s.test.jsonc`],
      env: () => undefined,
      concurrency: 1,
    });
    assertEquals(run.problems, []);
    assertEquals(run.results.map((r) => [r.name, r.status, r.location.line]), [
      ["first", "passed", 3],
      ["typo", "error", 4],
      ["third", "passed", 9],
    ]);
    assertEquals(run.summary.errors, 1);
    const filtered = await runScenarios({
      projectDir: dir,
      files: [`${dir}/s.test.jsonc`],
      env: () => undefined,
      filter: "third",
    });
    assertEquals(filtered.results.map((r) => r.name), ["third"]);
  });
});
