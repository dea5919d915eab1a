import { assert, assertEquals } from "../helpers/assert.ts";
import type { CaseResult } from "../../src/testing/scenarios/case_result.ts";
import type { CaseInput } from "../../src/testing/runner/case_input.ts";
import {
  caseFilter,
  type CaseRunner,
  placementOf,
  runScenarios,
  type ScenarioLoader,
} from "../../src/testing/runner/run_scenarios.ts";
import type { LoadedScenario } from "../../src/testing/scenarios/scenario_file.ts";
import { EventCase, ScenarioFile } from "../../src/testing/scenarios/scenario_schema.ts";
import { command, hooksSettings, withTempProject } from "./scenario_project.ts";

/** A loaded scenario of event cases named `names`, as the loader would give it. */
function scenario(file: string, names: readonly string[], extra: object = {}): LoadedScenario {
  const parsed = ScenarioFile.parse({
    ...extra,
    cases: names.map((name) => ({ name, event: "Stop", expect: { errors: 0 } })),
  });
  return {
    file,
    scenario: parsed,
    cases: parsed.cases.map((c, i) => ({
      case: c,
      location: { file, line: 10 + i, pointer: `/cases/${i}` },
      home: undefined,
      settings: undefined,
    })),
    lineOf: () => 1,
  };
}

const loader = (files: Record<string, LoadedScenario>): ScenarioLoader => (file) =>
  Promise.resolve(
    files[file] ? { ok: true, scenario: files[file]! } : {
      ok: false,
      problems: [{ file, line: 1, column: 1, pointer: "", message: `bad ${file}` }],
    },
  );

/** Finishes each case after a delay that depends on its name; fails the ones named "fail*". */
function fakeRunner(log: string[], inFlight = { now: 0, max: 0 }): CaseRunner {
  return async (input: CaseInput<ScenarioFile["cases"][number]>): Promise<CaseResult> => {
    inFlight.now++;
    inFlight.max = Math.max(inFlight.max, inFlight.now);
    log.push(`start ${input.spec.name}`);
    const delay = Number(/(\d+)$/.exec(input.spec.name)?.[1] ?? 0);
    await new Promise((resolve) => setTimeout(resolve, delay));
    inFlight.now--;
    log.push(`end ${input.spec.name}`);
    return {
      name: input.spec.name,
      kind: "event",
      location: input.location,
      status: input.spec.name.startsWith("fail") ? "failed" : "passed",
      durationMs: delay,
      failures: [],
    };
  };
}

const ENV = () => undefined;

Deno.test("runScenarios: results in file and case order whatever order they finish in", async () => {
  const log: string[] = [];
  const inFlight = { now: 0, max: 0 };
  const ended: string[] = [];
  const result = await runScenarios({
    projectDir: "/p",
    files: ["/p/a.test.jsonc", "/p/missing.test.jsonc", "/p/b.test.jsonc"],
    concurrency: 3,
    env: ENV,
    onCaseEnd: (r) => ended.push(r.name),
  }, {
    load: loader({
      "/p/a.test.jsonc": scenario("/p/a.test.jsonc", ["a 60", "b 5", "c 30"]),
      "/p/b.test.jsonc": scenario("/p/b.test.jsonc", ["d 1", "fail 10"]),
    }),
    runCase: fakeRunner(log, inFlight),
  });
  assertEquals(result.results.map((r) => r.name), ["a 60", "b 5", "c 30", "d 1", "fail 10"]);
  assert(ended[0] !== "a 60", `completion order differs: ${ended}`);
  assertEquals(inFlight.max, 3);
  assertEquals(result.problems.map((p) => p.message), ["bad /p/missing.test.jsonc"]);
  assertEquals(
    { ...result.summary, durationMs: 0 },
    { passed: 4, failed: 1, errors: 0, durationMs: 0 },
  );
});

Deno.test("runScenarios: --bail starts no case after the first failure", async () => {
  const log: string[] = [];
  const result = await runScenarios({
    projectDir: "/p",
    files: ["/p/a.test.jsonc"],
    concurrency: 1,
    bail: true,
    env: ENV,
  }, {
    load: loader({ "/p/a.test.jsonc": scenario("/p/a.test.jsonc", ["one", "fail two", "three"]) }),
    runCase: fakeRunner(log),
  });
  assertEquals(result.results.map((r) => [r.name, r.status]), [
    ["one", "passed"],
    ["fail two", "failed"],
  ]);
  assert(!log.includes("start three"));
});

Deno.test("runScenarios: --filter keeps cases by name or by file > name, substring or regex", async () => {
  const files = {
    "/p/.claude/hooks-tests/guard.test.jsonc": scenario("/p/.claude/hooks-tests/guard.test.jsonc", [
      "denies rm -rf",
      "allows ls",
    ]),
    "/p/.claude/hooks-tests/format.test.jsonc": scenario(
      "/p/.claude/hooks-tests/format.test.jsonc",
      ["formats on write", "allows ls"],
    ),
  };
  const names = async (filter: string) =>
    (await runScenarios({ projectDir: "/p", files: Object.keys(files), filter, env: ENV }, {
      load: loader(files),
      runCase: fakeRunner([]),
    })).results.map((r) => `${r.location.file.split("/").pop()}:${r.name}`);
  assertEquals(await names("rm -rf"), ["guard.test.jsonc:denies rm -rf"]);
  assertEquals(await names("^allows"), [
    "guard.test.jsonc:allows ls",
    "format.test.jsonc:allows ls",
  ]);
  assertEquals(await names("format.test.jsonc > allows"), ["format.test.jsonc:allows ls"]);
  assertEquals(await names(".claude/hooks-tests/guard.test.jsonc > allows ls"), [
    "guard.test.jsonc:allows ls",
  ]);
  assertEquals(await names("(unbalanced"), []);
  assertEquals(caseFilter("(x")(["a (x b"]), true, "an invalid regex is still a substring");
});

Deno.test("placementOf: env merges, the case wins; home and settings come resolved from the loader", () => {
  const loaded = scenario("/p/a.test.jsonc", ["x"], {
    env: { A: "file", B: "file" },
    isolate: true,
  });
  const item = {
    ...loaded.cases[0]!,
    case: EventCase.parse({ ...loaded.cases[0]!.case, env: { B: "case" }, isolate: false }),
    home: "/p/fixtures/home",
  };
  assertEquals(placementOf(loaded, item), {
    env: { A: "file", B: "case" },
    home: "/p/fixtures/home",
    isolate: false,
  });
});

Deno.test("runScenarios: real scenario files, event and session cases, hermetic and in parallel", async () => {
  const scenarioText = `// guard rails
{
  "cases": [
    {
      "name": "rm is denied",
      "event": "PreToolUse",
      "input": {"tool_name": "shell", "tool_input": {"command": "rm -rf /"}},
      "expect": {"decision": "deny", "reason": {"matches": "rm -rf"}, "matched": ["guard.sh"]}
    },
    {
      "name": "ls is fine",
      "event": "PreToolUse",
      "input": {"tool_name": "shell", "tool_input": {"command": "ls"}},
      "expect": {
        "decision": "allow"
      }
    },
    {
      "name": "the model is told",
      "isolate": true,
      "session": {
        "model": {"turns": [
          {"toolCalls": [{"name": "shell", "input": {"command": "rm -rf build"}}]},
          {"text": "ok"}
        ]},
        "prompts": ["clean"]
      },
      "expect": {
        "tools": [{"name": "shell", "dispatched": false}],
        "modelSaw": ["rm -rf is not allowed"]
      }
    }
  ]
}
`;
  const guard = `input=$(cat)
case "$input" in
  *"rm -rf"*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf is not allowed"}}' ;;
  *) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}' ;;
esac
`;
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ matcher: "shell", hooks: [command("./hooks/guard.sh")] }],
    }),
    "hooks/guard.sh": guard,
    ".claude/hooks-tests/guard.test.jsonc": scenarioText,
  }, async (project) => {
    const file = `${project.dir}/.claude/hooks-tests/guard.test.jsonc`;
    const started: string[] = [];
    const result = await runScenarios({
      projectDir: project.dir,
      files: [file],
      env: project.outerEnv,
      concurrency: 2,
      explain: true,
      onCaseStart: (name) => started.push(name),
    }, { killGraceMs: 100 });
    assertEquals(result.problems, []);
    assertEquals(
      result.results.map((r) => [r.name, r.status, r.failures.map((f) => f.message)]),
      [
        ["rm is denied", "passed", []],
        ["ls is fine", "passed", []],
        ["the model is told", "passed", []],
      ],
    );
    assertEquals(started.length, 3);
    assertEquals(result.results[1]!.location, { file, line: 10, pointer: "/cases/1" });
    assert(result.results.every((r) => r.explain !== undefined));

    // A failing expectation carries the line of that expectation in the file.
    const failing = scenarioText.replace('"decision": "allow"', '"decision": "ask"');
    await Deno.writeTextFile(file, failing);
    const rerun = await runScenarios({
      projectDir: project.dir,
      files: [file],
      filter: "ls is fine",
      env: project.outerEnv,
    });
    assertEquals(rerun.results.length, 1);
    assertEquals(rerun.results[0]!.failures.map((f) => [f.path, f.line]), [
      ["expect.decision", 15],
    ]);
  });
});

Deno.test("runScenarios: --shard I/N for N = 1..5 gives disjoint slices that cover the run, within one case of each other", async () => {
  const files = {
    "/p/a.test.jsonc": scenario("/p/a.test.jsonc", ["a1", "a2", "a3", "a4", "a5"]),
    "/p/b.test.jsonc": scenario("/p/b.test.jsonc", ["b1"]),
    "/p/c.test.jsonc": scenario("/p/c.test.jsonc", ["c1", "c2", "c3", "c4", "c5", "c6", "c7"]),
  };
  const everyCase = Object.values(files).flatMap((s) => s.cases.map((c) => c.case.name));
  const shardOf = async (index: number, count: number) =>
    (await runScenarios({
      projectDir: "/p",
      files: Object.keys(files),
      shard: { index, count },
      env: ENV,
    }, { load: loader(files), runCase: fakeRunner([]) })).results.map((r) => r.name);
  for (let count = 1; count <= 5; count++) {
    const slices = [];
    for (let index = 1; index <= count; index++) slices.push(await shardOf(index, count));
    const all = slices.flat();
    assertEquals(all.toSorted(), everyCase.toSorted(), `${count} shards cover the run once`);
    assertEquals(new Set(all).size, all.length, `${count} shards are disjoint`);
    const sizes = slices.map((slice) => slice.length);
    assert(Math.max(...sizes) - Math.min(...sizes) <= 1, `${count} shards: sizes ${sizes}`);
    // The same files give the same slice again, in file-then-case order.
    assertEquals(await shardOf(count, count), slices[count - 1]);
  }
  assertEquals(await shardOf(2, 3), ["a2", "a5", "c2", "c5"]);
});

Deno.test("runScenarios: with --shard, invalid files are reported by shard 1 only, and the filter applies before the slicing", async () => {
  const files = { "/p/a.test.jsonc": scenario("/p/a.test.jsonc", ["keep 1", "drop", "keep 2"]) };
  const run = (index: number) =>
    runScenarios({
      projectDir: "/p",
      files: ["/p/a.test.jsonc", "/p/broken.test.jsonc"],
      filter: "keep",
      shard: { index, count: 2 },
      env: ENV,
    }, { load: loader(files), runCase: fakeRunner([]) });
  const [first, second] = [await run(1), await run(2)];
  assertEquals(first.problems.map((p) => p.message), ["bad /p/broken.test.jsonc"]);
  assertEquals(second.problems, []);
  assertEquals([first.results.map((r) => r.name), second.results.map((r) => r.name)], [
    ["keep 1"],
    ["keep 2"],
  ]);
  assertEquals([first.selected, second.selected], [2, 2]);
});
