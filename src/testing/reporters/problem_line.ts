/**
 * A scenario file that cannot be used, in the one-line form every command prints:
 * `file:line:column: message at /pointer`.
 */
import { displayPath } from "../../display_path.ts";
import type { ScenarioProblem } from "../scenarios/scenario_run.ts";

export function problemLine(problem: ScenarioProblem, cwd: string): string {
  return `${problemPlace(problem, cwd)}: ${problemMessage(problem)}`;
}

/** `file:line:column`, the file shown relative to `cwd`. */
export function problemPlace(problem: ScenarioProblem, cwd: string): string {
  return `${displayPath(problem.file, cwd, undefined)}:${problem.line}:${problem.column}`;
}

/** The message, with the JSON pointer unless the message already names it. */
export function problemMessage(problem: ScenarioProblem): string {
  const named = problem.pointer === "" || problem.message.includes(problem.pointer);
  return named ? problem.message : `${problem.message} at ${problem.pointer}`;
}
