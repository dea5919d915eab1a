/**
 * TAP version 13: one test point per case (`file > name`) and one per invalid scenario file,
 * YAML diagnostics for each failure (expectation, where, expected, actual), a session case's shell
 * commands (answered or run) and `--explain` as comments.
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
import { explainLines } from "./explain_lines.ts";
import { problemPlace } from "./problem_line.ts";
import { shellCallLines } from "./shell_call_lines.ts";
import { summaryLine } from "./summary_line.ts";

export function createTapReporter(options: ReporterOptions): Reporter {
  return { onRunEnd: (run) => options.write(renderTap(run, options)) };
}

function renderTap(run: RunResult, options: ReporterOptions): string {
  const results = orderedResults(run.results);
  const out = ["TAP version 13", `1..${run.problems.length + results.length}`];
  let n = 0;
  for (const problem of run.problems) out.push(...problemPoint(++n, problem, options.cwd));
  for (const result of results) out.push(...casePoint(++n, result, options));
  out.push(`# ${summaryLine(run)}`);
  return out.join("\n") + "\n";
}

function problemPoint(n: number, problem: ScenarioProblem, cwd: string): string[] {
  const file = displayPath(problem.file, cwd, undefined);
  return [
    `not ok ${n} - ${description(file)} # invalid scenario file`,
    "  ---",
    ...yamlLines({
      message: problem.message,
      at: problemPlace(problem, cwd),
      pointer: problem.pointer,
    }, "  "),
    "  ...",
  ];
}

function casePoint(n: number, result: CaseResult, options: ReporterOptions): string[] {
  const file = displayPath(result.location.file, options.cwd, undefined);
  const ok = result.status === "passed" ? "ok" : "not ok";
  const out = [
    `${ok} ${n} - ${description(`${file} > ${result.name}`)} # time=${
      Math.round(result.durationMs)
    }ms`,
  ];
  const at = `${file}:${result.location.line}`;
  switch (result.status) {
    case "passed":
      break;
    case "failed":
      out.push(
        "  ---",
        ...yamlLines({
          status: "failed",
          at,
          failures: result.failures.map((f) => ({
            path: f.path,
            message: f.message,
            at: `${file}:${f.line ?? result.location.line}`,
            expected: f.expected,
            actual: f.actual,
          })),
        }, "  "),
        "  ...",
      );
      break;
    case "error":
      out.push(
        "  ---",
        ...yamlLines({ status: "error", at, message: result.error ?? "" }, "  "),
        "  ...",
      );
      break;
    default:
      result.status satisfies never;
  }
  out.push(...shellCallLines(result.shellCalls).map((line) => `# ${line}`));
  if (options.explain && result.explain !== undefined) {
    out.push(...explainLines(result.explain, options.cwd).map((line) => `# ${line}`));
  }
  return out;
}

/** A test point description: `#` starts a directive and `\` escapes, so both are escaped. */
function description(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll("#", "\\#").replaceAll("\n", " ");
}

/**
 * A small YAML writer for the diagnostics: mappings and sequences in block style, texts over
 * several lines as literal blocks, every other scalar as JSON (which YAML reads as flow style).
 */
export function yamlLines(value: Readonly<Record<string, unknown>>, indent: string): string[] {
  return Object.entries(value).flatMap(([key, v]) => yamlEntry(`${indent}${key}:`, v, indent));
}

function yamlEntry(head: string, value: unknown, indent: string): string[] {
  const inner = indent + "  ";
  if (Array.isArray(value) && value.length > 0 && value.every(isPlainRecord)) {
    return [
      head,
      ...value.flatMap((item: Readonly<Record<string, unknown>>) => {
        const lines = yamlLines(item, inner + "  ");
        return lines.length === 0
          ? [`${inner}- {}`]
          : [`${inner}- ${lines[0]!.trimStart()}`, ...lines.slice(1)];
      }),
    ];
  }
  if (typeof value === "string" && isLiteralBlockSafe(value)) {
    const chomp = value.endsWith("\n") ? "" : "-";
    const body = value.endsWith("\n") ? value.slice(0, -1) : value;
    return [
      `${head} |${chomp}`,
      ...body.split("\n").map((line) => line === "" ? "" : `${inner}${line}`),
    ];
  }
  return [`${head} ${JSON.stringify(value) ?? "null"}`];
}

function isPlainRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A text that reads back unchanged from a `|` or `|-` block. */
function isLiteralBlockSafe(text: string): boolean {
  const firstLine = text.split("\n").find((line) => line !== "") ?? "";
  return firstLine !== "" && text.includes("\n") && !text.endsWith("\n\n") &&
    !/^[ \t]/.test(firstLine) &&
    // deno-lint-ignore no-control-regex
    !/[\x00-\x08\x0b-\x1f\x7f\u0085\u2028\u2029\ufeff]/.test(text);
}
