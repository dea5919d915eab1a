/**
 * A whole `hooks test` run: load every scenario file (problems collected, the valid files still
 * run), keep the cases the filter selects, run them in parallel up to a limit, and return the
 * results in file and case order, whatever order they finished in.
 *
 * - Filter: a case is kept when its name, or `<file> > <name>` (the file relative to the project,
 *   or absolute), contains the text or matches it as a regular expression.
 * - Shard: of the cases the filter keeps, only the slice `--shard I/N` names (case_shard.ts);
 *   invalid files are reported by the first shard only.
 * - Bail: after the first case that does not pass (failed or error), no case starts; the cases
 *   already running finish and are reported; the ones never started are left out.
 * - Interrupted (`signal`): as bail, but the running cases end at once, as errors.
 * - Plugins: a case loads the plugin dirs its scenario names (the case's, else the file's), then
 *   the run's (`--plugin-dir`) when its profile reads plugins or is decided from its hooks
 *   (where plugin dirs vote for the claude profile); under another profile the run's are left
 *   out, and a scenario's own make the case an error that says what to set.
 */
import { compatProfile, type ProfileSetting } from "../../profile/compat_profile.ts";
import { relative } from "node:path";
import type { CaseLocation, CaseResult, RunSummary } from "../scenarios/case_result.ts";
import type { CaseInput } from "./case_input.ts";
import { casesOfShard, reportsProblems } from "../scenarios/case_shard.ts";
import { runEventCase } from "./event_case_runner.ts";
import { caseIndexOf, invalidCaseResult } from "../scenarios/invalid_cases.ts";
import type { Placement } from "./hermetic_env.ts";
import { HooksCache } from "./hooks_cache.ts";
import type { LoadedCase, LoadedScenario, LoadScenarioResult } from "../scenarios/scenario_file.ts";
import { loadScenarioFile } from "../scenarios/scenario_file.ts";
import type { RunOptions, RunResult, ScenarioProblem } from "../scenarios/scenario_run.ts";
import { isEventCase } from "../scenarios/scenario_schema.ts";
import { runSessionCase } from "./session_case_runner.ts";

/** Loads one scenario file; `loadScenarioFile` unless a test passes another. */
export type ScenarioLoader = (file: string) => Promise<LoadScenarioResult>;

/** Runs one case; the real runners unless a test passes another. */
export type CaseRunner = (input: CaseInput<LoadedCase["case"]>) => Promise<CaseResult>;

export const runCase: CaseRunner = (input) => {
  const spec = input.spec;
  return isEventCase(spec) ? runEventCase({ ...input, spec }) : runSessionCase({ ...input, spec });
};

export interface RunDeps {
  readonly load?: ScenarioLoader;
  readonly runCase?: CaseRunner;
  /** SIGTERM-to-SIGKILL grace of hook processes (tests shorten it). */
  readonly killGraceMs?: number;
}

export async function runScenarios(options: RunOptions, deps: RunDeps = {}): Promise<RunResult> {
  const started = performance.now();
  // Messages name files as the user sees them: relative to the project.
  const load = deps.load ??
    ((file: string) => loadScenarioFile(file, { displayPath: relative(options.projectDir, file) }));
  const run = deps.runCase ?? runCase;
  const problems: ScenarioProblem[] = [];
  let inputs: Planned[] = [];
  const selected = caseFilter(options.filter);
  const hooksCache = new HooksCache();
  for (const file of options.files) {
    const loaded = await load(file);
    if (!loaded.ok) {
      if (reportsProblems(options.shard)) problems.push(...loaded.problems);
      continue;
    }
    const shown = relative(options.projectDir, loaded.scenario.file);
    const keep = (name: string) =>
      selected([name, `${shown} > ${name}`, `${loaded.scenario.file} > ${name}`]);
    const planned: Planned[] = [
      ...loaded.scenario.cases.map((item): Planned => ({
        name: item.case.name,
        location: item.location,
        input: caseInput(
          options,
          deps,
          loaded.scenario,
          item,
          positionOf(item.location),
          hooksCache,
        ),
      })),
      ...(loaded.scenario.invalidCases ?? []).map((invalid): Planned => ({
        name: invalid.name,
        location: invalid.location,
        result: invalidCaseResult(invalid),
      })),
    ];
    // File order: an invalid case is reported where it is written.
    planned.sort((a, b) => positionOf(a.location) - positionOf(b.location));
    inputs.push(...planned.filter((p) => keep(p.name)));
  }

  const selectedCount = inputs.length;
  inputs = casesOfShard(inputs, options.shard);
  const results: (CaseResult | undefined)[] = new Array(inputs.length).fill(undefined);
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && !options.signal?.aborted && next < inputs.length) {
      const index = next++;
      const planned = inputs[index]!;
      options.onCaseStart?.(planned.name, planned.location.file);
      const result = "result" in planned ? planned.result : await run(planned.input);
      results[index] = result;
      options.onCaseEnd?.(result);
      if (options.bail && result.status !== "passed") stopped = true;
    }
  };
  const limit = Math.max(1, options.concurrency ?? navigator.hardwareConcurrency ?? 1);
  await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker));

  const done = results.filter((r): r is CaseResult => r !== undefined);
  return { results: done, problems, summary: summarize(done, started), selected: selectedCount };
}

/** A case to run, or one the loader refused, whose result (an error) is known already. */
type Planned =
  & { readonly name: string; readonly location: CaseLocation }
  & ({ readonly input: CaseInput<LoadedCase["case"]> } | { readonly result: CaseResult });

/** A case's 0-based position in its file, from its pointer (`/cases/<i>`). */
function positionOf(location: CaseLocation): number {
  return caseIndexOf(location.pointer) ?? 0;
}

function caseInput(
  options: RunOptions,
  deps: RunDeps,
  scenario: LoadedScenario,
  item: LoadedCase,
  index: number,
  hooksCache: HooksCache,
): CaseInput<LoadedCase["case"]> {
  const named = item.case.compat ?? scenario.scenario.compat;
  const profile: ProfileSetting = named !== undefined
    ? compatProfile(named)
    : options.profile ?? "auto";
  const runPlugins = profile === "auto" || profile.readsPlugins ? options.pluginDirs ?? [] : [];
  return {
    spec: item.case,
    location: item.location,
    placement: placementOf(scenario, item, runPlugins),
    projectDir: options.projectDir,
    profile,
    outerEnv: options.env,
    index: index + 1,
    explain: options.explain === true,
    lineOf: (pointer) => scenario.lineOf(pointer),
    hooksCache,
    ...(deps.killGraceMs === undefined ? {} : { killGraceMs: deps.killGraceMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
}

/**
 * The file's placement with the case's over it: `env` merges key by key, the case winning; the
 * run's plugin dirs come after the scenario's, each directory once.
 */
export function placementOf(
  scenario: LoadedScenario,
  item: LoadedCase,
  runPluginDirs: readonly string[] = [],
): Placement {
  const fileEnv = scenario.scenario.env;
  const caseEnv = item.case.env;
  const isolate = item.case.isolate ?? scenario.scenario.isolate;
  const pluginDirs = [...new Set([...item.pluginDirs ?? [], ...runPluginDirs])];
  return {
    ...(fileEnv || caseEnv ? { env: { ...fileEnv, ...caseEnv } } : {}),
    ...(item.home === undefined ? {} : { home: item.home }),
    ...(isolate === undefined ? {} : { isolate }),
    ...(item.settings === undefined ? {} : { settings: item.settings }),
    ...(pluginDirs.length === 0 ? {} : { pluginDirs }),
  };
}

/** Substring, or an unanchored regex when the text is one; no filter keeps everything. */
export function caseFilter(filter: string | undefined): (names: readonly string[]) => boolean {
  if (filter === undefined || filter === "") return () => true;
  let pattern: RegExp | undefined;
  try {
    pattern = new RegExp(filter);
  } catch {
    pattern = undefined;
  }
  return (names) => names.some((name) => name.includes(filter) || pattern?.test(name) === true);
}

export function summarize(results: readonly CaseResult[], started: number): RunSummary {
  const count = (status: CaseResult["status"]) => results.filter((r) => r.status === status).length;
  return {
    passed: count("passed"),
    failed: count("failed"),
    errors: count("error"),
    durationMs: Math.round(performance.now() - started),
  };
}
