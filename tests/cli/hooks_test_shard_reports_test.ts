/**
 * The reports of a CI matrix's shards merge by concatenation: the JSON reports of every shard,
 * concatenated, are a JSON Lines file (a run a line) holding each case once; the JUnit reports
 * name their shard.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  ALLOWS_LS,
  DENIES_RM,
  GUARD,
  hooksTest,
  scenario,
  SETTINGS,
} from "./hooks_test_fixture.ts";

const CASES = [
  ALLOWS_LS,
  DENIES_RM,
  {
    ...ALLOWS_LS,
    name: "allows pwd",
    input: { tool_name: "shell", tool_input: { command: "pwd" } },
  },
];

const PROJECT = {
  "project/.claude/settings.json": SETTINGS,
  "project/.claude/hooks/guard.sh": GUARD,
  "project/.claude/hooks-tests/guard.test.jsonc": scenario(CASES),
};

interface JsonRun {
  readonly shard?: { readonly index: number; readonly count: number };
  readonly summary: { readonly passed: number };
  readonly results: readonly { readonly name: string }[];
}

Deno.test("the JSON reports of shards 1/2 and 2/2 concatenate into JSON Lines with every case once", async () => {
  const reports: string[] = [];
  for (const shard of ["1/2", "2/2"]) {
    await hooksTest(PROJECT, ["--reporter", "json", "--shard", shard], (result) => {
      assertEquals([result.code, result.stderr], [0, ""]);
      reports.push(result.stdout);
    });
  }
  const lines = reports.join("").split("\n").filter((line) => line !== "");
  assertEquals(lines.length, 2, "one line per shard's run");
  const runs: JsonRun[] = lines.map((line) => JSON.parse(line));
  assertEquals(runs.map((run) => run.shard), [{ index: 1, count: 2 }, { index: 2, count: 2 }]);
  const names = runs.flatMap((run) => run.results.map((r) => r.name)).sort();
  assertEquals(names, CASES.map((c) => c.name).sort());
  assertEquals(runs.reduce((sum, run) => sum + run.summary.passed, 0), CASES.length);
});

Deno.test("a shard's JUnit report names its shard; an unsharded one does not", async () => {
  await hooksTest(PROJECT, ["--reporter", "junit", "--shard", "2/2"], (result) => {
    assertEquals(result.code, 0);
    assertStringIncludes(result.stdout, '<testsuites name="llama-agent hooks test (shard 2/2)"');
  });
  await hooksTest(PROJECT, ["--reporter", "junit"], (result) => {
    assertEquals(result.code, 0);
    assert(result.stdout.includes('<testsuites name="llama-agent hooks test" '));
  });
});
