/**
 * The one-line total every human-readable reporter ends with:
 * `3 passed, 2 failed (1 error), 1 invalid file in 0.42 s`. "failed" counts the cases that did
 * not pass, of which "errors" could not run at all; the counts are those of the results shown.
 */
import type { RunResult } from "../scenarios/scenario_run.ts";

export function summaryLine({ results, summary, problems }: RunResult): string {
  const count = (status: string) => results.filter((r) => r.status === status).length;
  const passed = count("passed");
  const errored = count("error");
  const errors = errored > 0 ? ` (${plural(errored, "error")})` : "";
  const files = new Set(problems.map((p) => p.file)).size;
  const invalid = files > 0 ? `, ${plural(files, "invalid file")}` : "";
  return `${passed} passed, ${results.length - passed} failed${errors}${invalid} in ` +
    `${seconds(summary.durationMs)} s`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Milliseconds as seconds with two decimals (`0.42`). */
export function seconds(ms: number): string {
  return (ms / 1000).toFixed(2);
}

/** A case's duration as a reader wants it: whole milliseconds. */
export function milliseconds(ms: number): string {
  return `${Math.round(ms)} ms`;
}
