/**
 * One JSON document with everything a tool needs: the project directory, the shard, the summary,
 * every invalid scenario file and every case result (with its explanation under `--explain`),
 * paths absolute as the runner saw them. The document is one line, so the reports of a CI
 * matrix's shards concatenate into one JSON Lines file (`cat hooks-tests-*.json`), a run a line.
 */
import type { Reporter, ReporterOptions, RunResult } from "../scenarios/scenario_run.ts";
import { orderedResults } from "./case_groups.ts";

export function createJsonReporter(options: ReporterOptions): Reporter {
  return { onRunEnd: (run) => options.write(renderJson(run, options)) };
}

function renderJson(run: RunResult, options: ReporterOptions): string {
  const results = orderedResults(run.results).map((result) =>
    options.explain ? result : { ...result, explain: undefined }
  );
  const document = {
    cwd: options.cwd,
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    summary: run.summary,
    problems: run.problems,
    results,
  };
  return JSON.stringify(document) + "\n";
}
