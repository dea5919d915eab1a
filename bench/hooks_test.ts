/**
 * `hooks test` benchmarks: what running scenario cases costs beyond the hook processes they run.
 * `runScenarios` runs in this process over a generated temp project; every figure is one JSON
 * line on stdout with its baseline measured in the same run, interleaved, as medians; a summary
 * goes to stderr. About 20 s on two cores.
 *
 *   deno task bench:hooks-test
 *   deno run -A bench/hooks_test.ts --quick     # fewer samples, for a smoke run
 *   LLAMA_AGENT_SPAWN=setsid deno run -A bench/hooks_test.ts   # the same on the fallback path
 *
 * Figure 1 sets 200 event cases, each firing one `true` PreToolUse hook, against 200 bare spawns
 * of `/bin/sh -c true` with the same parallelism (the hooks-test run's concurrency is the core
 * count, so the spawns run in a pool of as many workers). Beside them, the same pool of 200
 * `true` runs through the hooks' own runner (`runCommand`: posix_spawn through FFI with a group
 * of its own, pipes, the group reaped on exit; src/os/process/spawn_path.ts says which path, and the
 * figure names it): the gap between the two baselines is the spawn path's, the gap above the
 * runner's is what `hooks test` adds per case. A fourth arm runs the same 200 cases in a project
 * whose hook never matches: every case does all its work but spawn (hermetic place, settings,
 * transcript file, firing, checks), which is the scaffolding's cost. The settings are made older
 * than the run's settings cache trusts (src/testing/runner/hooks_cache.ts) before figure 1 starts, as a
 * checkout's are. Figure 2 sets one session case against one event case; figure 3 the same
 * session case in a project of 400 more files against the small project: the copy every session
 * case runs in.
 */
import { median, printFigure, round } from "./bench_stats.ts";
import { sleep } from "./cut_turn.ts";
import { interleave } from "./interleave.ts";
import { runCommand } from "../src/os/process/command_runner.ts";
import { describeSpawnPath } from "../src/os/process/spawn_path.ts";
import { RACY_MS } from "../src/testing/runner/hooks_cache.ts";
import { runScenarios } from "../src/testing/runner/run_scenarios.ts";
import type { RunResult } from "../src/testing/scenarios/scenario_run.ts";

const quick = Deno.args.includes("--quick");
const EVENT_CASES = 200;
/** A multiple of 8: figure 1's four arms take every position, in both directions (see rounds()). */
const MANY_ROUNDS = quick ? 2 : 8;
const ONE_CASE_ROUNDS = quick ? 4 : 40;
const WARM_UP_ROUNDS = quick ? 1 : 2;
const WORKERS = navigator.hardwareConcurrency ?? 1;
/** Figure 3's project: 20 directories of 20 files of 1 KiB, besides the small project's files. */
const LARGE_PROJECT_FILES = 400;

const started = performance.now();
const root = await Deno.realPath(
  await Deno.makeTempDir({ prefix: "llama-agent-bench-hooks-test-" }),
);
const cache = `${root}/cache`;
const summary: string[] = [];
/** The outer environment of every run: the real one, with scratch places under `root`. */
const outerEnv = (name: string) => name === "XDG_CACHE_HOME" ? cache : Deno.env.get(name);
try {
  const project = await writeProject();
  // Settings changed less than RACY_MS ago are read again for every case; a checkout's are older.
  await sleep(RACY_MS + 100);
  await benchManyEventCases(project);
  await benchSessionVsEventCase(project);
  await benchLargeProjectSessionCase(project);
  await assertScratchEmpty();
} finally {
  await Deno.remove(root, { recursive: true });
}
summary.push(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.error(summary.map((line) => `bench/hooks_test: ${line}`).join("\n"));

interface Project {
  readonly dir: string;
  /** The same, but its one PreToolUse hook has a matcher no case matches. */
  readonly unmatchedDir: string;
  /** 200 event cases. */
  readonly manyEvents: string;
  /** One event case. */
  readonly oneEvent: string;
  /** One session case. */
  readonly oneSession: string;
  /** The project with `LARGE_PROJECT_FILES` more files, and its copy of the session case. */
  readonly largeDir: string;
  readonly largeSession: string;
}

function eventCase(name: string) {
  return {
    name,
    event: "PreToolUse",
    input: { tool_name: "shell", tool_input: { command: "ls" } },
    expect: { decision: "none" },
  };
}

/** The project: one `true` PreToolUse hook, a file to read, and the scenario files. */
async function writeProject(): Promise<Project> {
  const dir = `${root}/project`;
  const tests = `${dir}/.claude/hooks-tests`;
  await Deno.mkdir(tests, { recursive: true });
  await Deno.mkdir(cache);
  await Deno.writeTextFile(
    `${dir}/.claude/settings.json`,
    JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "true" }] }] } }),
  );
  await Deno.writeTextFile(`${dir}/notes.txt`, "Water the plants on Tuesday.\n");
  const unmatchedDir = `${root}/project_unmatched`;
  await Deno.mkdir(`${unmatchedDir}/.claude`, { recursive: true });
  await Deno.writeTextFile(
    `${unmatchedDir}/.claude/settings.json`,
    JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: "^never$", hooks: [{ type: "command", command: "true" }] }],
      },
    }),
  );
  const write = async (name: string, cases: unknown[]) => {
    const file = `${tests}/${name}.test.jsonc`;
    await Deno.writeTextFile(file, JSON.stringify({ cases }, null, 2));
    return file;
  };
  const manyEvents = await write(
    "many_events",
    Array.from({ length: EVENT_CASES }, (_, i) => eventCase(`shell call ${i + 1}`)),
  );
  const oneEvent = await write("one_event", [eventCase("one shell call")]);
  const oneSession = await write("one_session", [{
    name: "one tool call, then an answer",
    session: {
      model: {
        turns: [
          {
            text: "Let me read the notes.",
            toolCalls: [{ name: "fs_read", input: { file_path: "notes.txt" } }],
          },
          { text: "The notes say to water the plants on Tuesday." },
        ],
      },
      prompts: ["What do the notes say?"],
      client: { permissions: "allow_once" },
    },
    expect: {
      hooks: [{ event: "PreToolUse", matcher: "fs_read", decision: "none" }],
      tools: [{ name: "fs_read", dispatched: true, status: "completed" }],
      stopReason: "end_turn",
    },
  }]);
  const largeDir = `${root}/project_large`;
  await Deno.mkdir(`${largeDir}/.claude/hooks-tests`, { recursive: true });
  for (const name of [".claude/settings.json", "notes.txt"]) {
    await Deno.copyFile(`${dir}/${name}`, `${largeDir}/${name}`);
  }
  const largeSession = `${largeDir}/.claude/hooks-tests/one_session.test.jsonc`;
  await Deno.copyFile(oneSession, largeSession);
  const kib = "x".repeat(1023) + "\n";
  for (let d = 0; d < LARGE_PROJECT_FILES / 20; d++) {
    await Deno.mkdir(`${largeDir}/src/d${d}`, { recursive: true });
    for (let f = 0; f < 20; f++) await Deno.writeTextFile(`${largeDir}/src/d${d}/f${f}.txt`, kib);
  }
  return { dir, unmatchedDir, manyEvents, oneEvent, oneSession, largeDir, largeSession };
}

/** One `runScenarios` over `file`, timed; every case must pass. */
async function timedRun(
  projectDir: string,
  file: string,
  concurrency: number,
  cases: number,
): Promise<{ ms: number; run: RunResult }> {
  const start = performance.now();
  const run = await runScenarios({ projectDir, files: [file], concurrency, env: outerEnv });
  const ms = performance.now() - start;
  const { passed } = run.summary;
  if (run.problems.length > 0 || passed !== cases || run.results.length !== cases) {
    const bad = run.results.find((r) => r.status !== "passed");
    throw new Error(
      `The bench run of ${file} went wrong: ${passed}/${cases} passed; ` +
        JSON.stringify(run.problems[0] ?? bad),
    );
  }
  return { ms, run };
}

async function spawnTrue(): Promise<void> {
  const status = await new Deno.Command("/bin/sh", { args: ["-c", "true"] }).spawn().status;
  if (!status.success) throw new Error("/bin/sh -c true failed");
}

/** `true` as a hook runs it: the hooks' command runner, the group reaped on exit. */
async function runTrue(cwd: string): Promise<void> {
  const result = await runCommand({
    commandLine: { kind: "shell", command: "true" },
    cwd,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    timeoutMs: 60_000,
    reapGroupOnExit: true,
  });
  if (result.kind !== "exited" || result.exitCode !== 0) {
    throw new Error(`true through the hook runner: ${JSON.stringify(result)}`);
  }
}

/** `count` runs of `spawn`, `workers` at a time, timed. */
async function spawnPool(
  count: number,
  workers: number,
  spawn: () => Promise<void>,
): Promise<number> {
  const start = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      await spawn();
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, count) }, worker));
  return performance.now() - start;
}

/**
 * Runs every arm once per round, after `warmUpRounds` unrecorded rounds; returns each arm's
 * samples in arm order. interleave.ts walks every order of its arms, which with four arms is 24
 * rounds (a short run would keep the same arm first throughout); here round r rotates the arms by
 * r, and every other block of four rounds runs in reverse, so any 8 consecutive rounds give each
 * arm every position and put each arm after its neighbours on both sides.
 */
async function rounds(
  count: number,
  warmUpRounds: number,
  arms: readonly (() => Promise<number>)[],
): Promise<number[][]> {
  const samples = arms.map((): number[] => []);
  for (let round = 0; round < warmUpRounds + count; round++) {
    const shift = round % arms.length;
    const order = arms.map((_, i) => (i + shift) % arms.length);
    if (Math.floor(round / arms.length) % 2 === 1) order.reverse();
    for (const index of order) {
      const ms = await arms[index]!();
      if (round >= warmUpRounds) samples[index]!.push(ms);
    }
  }
  return samples;
}

/** Figure 1: 200 event cases, each one `true` hook, vs 200 bare spawns in as many workers. */
async function benchManyEventCases(project: Project): Promise<void> {
  const caseMs: number[] = [];
  const samples = await rounds(MANY_ROUNDS, WARM_UP_ROUNDS, [
    () => spawnPool(EVENT_CASES, WORKERS, spawnTrue),
    () => spawnPool(EVENT_CASES, WORKERS, () => runTrue(project.dir)),
    async () => {
      const { ms, run } = await timedRun(project.dir, project.manyEvents, WORKERS, EVENT_CASES);
      caseMs.push(median(run.results.map((r) => r.durationMs)));
      return ms;
    },
    async () => (await timedRun(project.unmatchedDir, project.manyEvents, WORKERS, EVENT_CASES)).ms,
  ]);
  const [bareMs, runnerMs, casesMs, scaffoldMs] = samples.map(median) as [
    number,
    number,
    number,
    number,
  ];
  const perCase = (ms: number) => ms / EVENT_CASES;
  const overhead = (baseline: number) => perCase(casesMs - baseline);
  const spawnPath = describeSpawnPath();
  printFigure({
    bench: "hooks_test_200_event_cases_vs_200_bare_spawns",
    median_ms: casesMs,
    baseline: `${EVENT_CASES} Deno.Command("/bin/sh", {args: ["-c", "true"]}).spawn() and ` +
      `status, ${WORKERS} at a time`,
    baseline_median_ms: bareMs,
    target_ratio_max: 1.3,
    ...{
      cases: EVENT_CASES,
      concurrency: WORKERS,
      samples: samples[2]?.length ?? 0,
      spawn_path: spawnPath,
      // Wall time per case, amortized over the run; per worker: what one case holds a worker.
      overhead_per_case_ms: round(overhead(bareMs)),
      overhead_per_case_per_worker_ms: round(overhead(bareMs) * WORKERS),
      case_duration_median_ms: median(caseMs.slice(WARM_UP_ROUNDS)),
      hook_runner_median_ms: round(runnerMs),
      ratio_vs_hook_runner: round(casesMs / runnerMs),
      overhead_per_case_vs_hook_runner_ms: round(overhead(runnerMs)),
      hook_runner_cost_per_spawn_ms: round(perCase(runnerMs - bareMs)),
      unmatched_hook_run_median_ms: round(scaffoldMs),
      scaffolding_per_case_ms: round(perCase(scaffoldMs)),
    },
  });
  printFigure({
    bench: "hooks_test_200_event_cases_vs_200_hook_runner_spawns",
    median_ms: casesMs,
    baseline: `${EVENT_CASES} runs of true through the hooks' runCommand (${spawnPath}), ` +
      `${WORKERS} at a time`,
    baseline_median_ms: runnerMs,
    ...{ overhead_per_case_ms: round(overhead(runnerMs)) },
  });
  printFigure({
    bench: "hooks_test_200_event_cases_unmatched_hook",
    median_ms: scaffoldMs,
    baseline: `the ${EVENT_CASES} bare spawns of figure 1`,
    baseline_median_ms: bareMs,
    ...{
      what: "the same cases in a project whose PreToolUse hook never matches: no process runs",
      scaffolding_per_case_ms: round(perCase(scaffoldMs)),
      scaffolding_per_case_per_worker_ms: round(perCase(scaffoldMs) * WORKERS),
    },
  });
  summary.push(
    `${EVENT_CASES} event cases (concurrency ${WORKERS}): ${casesMs.toFixed(1)} ms vs ` +
      `${bareMs.toFixed(1)} ms of bare spawns (${(casesMs / bareMs).toFixed(2)}, target <= 1.3), ` +
      `${runnerMs.toFixed(1)} ms through the hook runner (${(casesMs / runnerMs).toFixed(2)}); ` +
      `overhead ${overhead(bareMs).toFixed(2)} ms per case ` +
      `(${overhead(runnerMs).toFixed(2)} ms over the hook runner; spawn path: ${spawnPath})`,
    `  the same cases, hook unmatched (no spawn): ${scaffoldMs.toFixed(1)} ms = ` +
      `${perCase(scaffoldMs).toFixed(2)} ms per case`,
  );
}

/** Figure 2: one session case (a tool call, then an answer) vs one event case. Report only. */
async function benchSessionVsEventCase(project: Project): Promise<void> {
  const caseMs: number[][] = [[], []];
  const samples = await interleave(ONE_CASE_ROUNDS, WARM_UP_ROUNDS, [
    async () => {
      const { ms, run } = await timedRun(project.dir, project.oneEvent, 1, 1);
      caseMs[0]!.push(run.results[0]!.durationMs);
      return ms;
    },
    async () => {
      const { ms, run } = await timedRun(project.dir, project.oneSession, 1, 1);
      caseMs[1]!.push(run.results[0]!.durationMs);
      return ms;
    },
  ]);
  const eventMs = median(samples[0] ?? []);
  const sessionMs = median(samples[1] ?? []);
  printFigure({
    bench: "hooks_test_session_case_vs_event_case",
    median_ms: sessionMs,
    baseline: "runScenarios over one event case (PreToolUse, one true hook)",
    baseline_median_ms: eventMs,
    ...{
      session: "scripted model: fs_read call, then an answer; one true PreToolUse hook",
      samples: samples[1]?.length ?? 0,
      session_case_duration_median_ms: median(caseMs[1]!.slice(WARM_UP_ROUNDS)),
      event_case_duration_median_ms: median(caseMs[0]!.slice(WARM_UP_ROUNDS)),
    },
  });
  summary.push(
    `one session case ${sessionMs.toFixed(2)} ms vs one event case ${eventMs.toFixed(2)} ms ` +
      `(${(sessionMs / eventMs).toFixed(2)}, report only)`,
  );
}

/**
 * Figure 3: the same session case in a project of `LARGE_PROJECT_FILES` more files: what the
 * copy each session case runs in costs as a project grows. Report only.
 */
async function benchLargeProjectSessionCase(project: Project): Promise<void> {
  const samples = await interleave(quick ? 2 : 10, WARM_UP_ROUNDS, [
    async () => (await timedRun(project.dir, project.oneSession, 1, 1)).ms,
    async () => (await timedRun(project.largeDir, project.largeSession, 1, 1)).ms,
  ]);
  const smallMs = median(samples[0] ?? []);
  const largeMs = median(samples[1] ?? []);
  printFigure({
    bench: "hooks_test_session_case_large_project",
    median_ms: largeMs,
    baseline: "the same session case in the small project (3 files)",
    baseline_median_ms: smallMs,
    ...{
      files_added: LARGE_PROJECT_FILES,
      copy_ms_per_added_file: round((largeMs - smallMs) / LARGE_PROJECT_FILES),
    },
  });
  summary.push(
    `one session case in a project of ${LARGE_PROJECT_FILES} more files ${largeMs.toFixed(1)} ms ` +
      `vs ${smallMs.toFixed(1)} ms (${(largeMs / smallMs).toFixed(2)}, report only)`,
  );
}

/** Every case removed its scratch place. */
async function assertScratchEmpty(): Promise<void> {
  const left: string[] = [];
  for await (const entry of Deno.readDir(`${cache}/llama-agent/hooks-test`)) left.push(entry.name);
  if (left.length > 0) throw new Error(`Cases left scratch places behind: ${left.join(", ")}`);
}
