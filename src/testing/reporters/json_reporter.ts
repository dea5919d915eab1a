/**
 * One JSON document with everything a tool needs: the project directory, the summary, every
 * invalid scenario file and every case result (with its explanation under `--explain`), paths
 * absolute as the runner saw them.
 */
import type { Reporter, ReporterOptions, RunResult } from "../scenario_run.ts";
import { orderedResults } from "./case_groups.ts";

export function createJsonReporter(options: ReporterOptions): Reporter {
  return { onRunEnd: (run) => options.write(renderJson(run, options)) };
}

function renderJson(run: RunResult, options: ReporterOptions): string {
  const results = orderedResults(run.results).map((result) =>
    options.explain ? result : { ...result, explain: undefined }
  );
  const document = { cwd: options.cwd, summary: run.summary, problems: run.problems, results };
  return JSON.stringify(document, null, 2) + "\n";
}
