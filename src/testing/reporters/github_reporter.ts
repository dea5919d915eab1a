/**
 * GitHub Actions workflow commands: an `::error` annotation at the line of each failed
 * expectation (or of the case, or of the invalid spot of a scenario file), then the shell
 * commands of session cases (answered or run) and the summary as plain text. Paths are relative
 * to the project directory, the repository root in a workflow.
 */
import type { CaseResult } from "../scenarios/case_result.ts";
import type {
  Reporter,
  ReporterOptions,
  RunResult,
  ScenarioProblem,
} from "../scenarios/scenario_run.ts";
import { displayPath } from "../../display_path.ts";
import { orderedResults } from "./case_groups.ts";
import { problemMessage } from "./problem_line.ts";
import { shellCallLines } from "./shell_call_lines.ts";
import { summaryLine } from "./summary_line.ts";
import { plainDiff } from "./text_diff.ts";

export function createGithubReporter(options: ReporterOptions): Reporter {
  return { onRunEnd: (run) => options.write(renderGithub(run, options)) };
}

function renderGithub(run: RunResult, options: ReporterOptions): string {
  const out = [
    ...run.problems.map((p) => problemAnnotation(p, options.cwd)),
    ...orderedResults(run.results).flatMap((r) => caseAnnotations(r, options.cwd)),
    ...orderedResults(run.results).flatMap((r) => shellLog(r, options.cwd)),
    summaryLine(run),
  ];
  return out.join("\n") + "\n";
}

function problemAnnotation(problem: ScenarioProblem, cwd: string): string {
  return annotation({
    file: displayPath(problem.file, cwd, undefined),
    line: problem.line,
    col: problem.column,
    title: "Invalid scenario file",
  }, problemMessage(problem));
}

function caseAnnotations(result: CaseResult, cwd: string): string[] {
  const file = displayPath(result.location.file, cwd, undefined);
  switch (result.status) {
    case "passed":
      return [];
    case "failed":
      return result.failures.map((f) =>
        annotation(
          { file, line: f.line ?? result.location.line, title: `${result.name}: ${f.path}` },
          [f.message, ...plainDiff(f.expected, f.actual)].join("\n"),
        )
      );
    case "error":
      return [
        annotation(
          { file, line: result.location.line, title: `${result.name}: could not run` },
          result.error ?? "no reason given",
        ),
      ];
    default:
      return result.status satisfies never;
  }
}

/**
 * A session case's shell commands as plain log lines: worth a look, not a pull-request
 * annotation. Each starts with the case's file and keeps its command on one line, so no
 * command can pass for a workflow command.
 */
function shellLog(result: CaseResult, cwd: string): string[] {
  const file = displayPath(result.location.file, cwd, undefined);
  return shellCallLines(result.shellCalls).map((line) => `${file} > ${result.name}: ${line}`);
}

/** `::error file=F,line=L,title=T::message`, every part escaped. */
export function annotation(
  properties: Readonly<Record<string, string | number>>,
  message: string,
): string {
  const props = Object.entries(properties).map(([k, v]) => `${k}=${escapeProperty(String(v))}`);
  return `::error ${props.join(",")}::${escapeData(message)}`;
}

/** A workflow command's message: `%`, `\r` and `\n` percent-encoded. */
export function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

/** A workflow command's property value: as a message, plus `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}
