/**
 * The order every reporter shows a run in: files in the order the run gives them (the order they
 * were found or named), and each file's cases by their line, whatever order they finished in.
 */
import type { CaseResult } from "../scenarios/case_result.ts";

export interface FileGroup {
  readonly file: string;
  readonly results: readonly CaseResult[];
}

export function groupByFile(results: readonly CaseResult[]): FileGroup[] {
  const byFile = new Map<string, CaseResult[]>();
  for (const result of results) {
    const group = byFile.get(result.location.file);
    if (group) group.push(result);
    else byFile.set(result.location.file, [result]);
  }
  return [...byFile].map(([file, group]) => ({
    file,
    results: group.toSorted((a, b) => a.location.line - b.location.line),
  }));
}

/** The results in reporting order. */
export function orderedResults(results: readonly CaseResult[]): CaseResult[] {
  return groupByFile(results).flatMap((group) => group.results);
}
