/**
 * The readable reporter: invalid scenario files first, then one line per case grouped by file
 * (with a line per shell command of a session case: answered or run), each failure with its
 * expectation, where it is written and an expected/actual diff, and a summary. ANSI colors only
 * when asked (a terminal), and then a live count while cases run.
 */
import type { CaseResult, CaseStatus } from "../scenarios/case_result.ts";
import type { Reporter, ReporterOptions, RunResult } from "../scenarios/scenario_run.ts";
import { displayPath } from "../../display_path.ts";
import { groupByFile } from "./case_groups.ts";
import { explainLines } from "./explain_lines.ts";
import { problemLine } from "./problem_line.ts";
import { shellCallLines } from "./shell_call_lines.ts";
import { milliseconds, plural, summaryLine } from "./summary_line.ts";
import { compareValues, type DiffOp, markLine, MAX_DIFF_LINES, PAIR_LABELS } from "./text_diff.ts";

type Style = "bold" | "dim" | "red" | "green" | "yellow";

const ANSI: Readonly<Record<Style, readonly [string, string]>> = {
  bold: ["\x1b[1m", "\x1b[22m"],
  dim: ["\x1b[2m", "\x1b[22m"],
  red: ["\x1b[31m", "\x1b[39m"],
  green: ["\x1b[32m", "\x1b[39m"],
  yellow: ["\x1b[33m", "\x1b[39m"],
};

type Paint = (style: Style, text: string) => string;

const MARKS: Readonly<Record<CaseStatus, readonly [string, Style]>> = {
  passed: ["✓", "green"],
  failed: ["✗", "red"],
  error: ["!", "yellow"],
};

const DIFF_STYLES: Readonly<Record<DiffOp, Style | undefined>> = {
  same: undefined,
  expected: "green",
  actual: "red",
};

/** Erases the live count line on a terminal. */
const CLEAR_LINE = "\r\x1b[2K";

export function createDefaultReporter(options: ReporterOptions): Reporter {
  const paint: Paint = options.color
    ? (style, text) => `${ANSI[style][0]}${text}${ANSI[style][1]}`
    : (_style, text) => text;
  let done = 0;
  let notPassed = 0;
  return {
    onCaseEnd(result) {
      if (!options.color) return;
      done++;
      if (result.status !== "passed") notPassed++;
      const failed = notPassed > 0 ? paint("red", `, ${notPassed} failed`) : "";
      options.write(`${CLEAR_LINE}${paint("dim", `${plural(done, "case")} run`)}${failed}`);
    },
    onRunEnd(run) {
      if (options.color && done > 0) options.write(CLEAR_LINE);
      options.write(renderDefault(run, options, paint));
    },
  };
}

function renderDefault(run: RunResult, options: ReporterOptions, paint: Paint): string {
  const { cwd } = options;
  const out: string[] = [];
  if (run.problems.length > 0) {
    out.push(paint("red", paint("bold", "Invalid scenario files:")));
    for (const problem of run.problems) out.push(`  ${problemLine(problem, cwd)}`);
    out.push("");
  }
  for (const group of groupByFile(run.results)) {
    out.push(paint("bold", displayPath(group.file, cwd, undefined)));
    for (const result of group.results) {
      const [header, ...blocks] = caseBlocks(result, options, paint);
      out.push(...header!);
      // Each detail (a failure, an error, the explanation) followed by a blank line.
      for (const block of blocks) out.push(...block, "");
    }
    if (out.at(-1) !== "") out.push("");
  }
  const summary = summaryLine(run);
  const allPassed = run.problems.length === 0 && run.results.every((r) => r.status === "passed");
  out.push(paint(allPassed ? "green" : "red", summary));
  return out.join("\n") + "\n";
}

/**
 * The case's line with its shell commands below it, then its details: one block per failure, the
 * error, the explanation.
 */
function caseBlocks(result: CaseResult, options: ReporterOptions, paint: Paint): string[][] {
  const [mark, style] = MARKS[result.status];
  const duration = paint("dim", `(${milliseconds(result.durationMs)})`);
  const blocks = [[
    `  ${paint(style, mark)} ${result.name} ${duration}`,
    ...indent("      ", shellCallLines(result.shellCalls)),
  ]];
  const file = displayPath(result.location.file, options.cwd, undefined);
  switch (result.status) {
    case "passed":
      break;
    case "failed":
      for (const failure of result.failures) {
        const line = failure.line ?? result.location.line;
        blocks.push([
          `      ${paint("bold", failure.path)} ${paint("dim", `at ${file}:${line}`)}`,
          `      ${failure.message}`,
          ...indent("        ", diffLines(failure.expected, failure.actual, paint)),
        ]);
      }
      break;
    case "error":
      blocks.push([
        `      ${paint("yellow", "could not run")} ${
          paint("dim", `at ${file}:${result.location.line}`)
        }`,
        ...indent("      ", (result.error ?? "no reason given").split("\n")),
      ]);
      break;
    default:
      result.status satisfies never;
  }
  if (options.explain && result.explain !== undefined) {
    blocks.push([
      `      ${paint("dim", "explain:")}`,
      ...indent("        ", explainLines(result.explain, options.cwd).map((l) => paint("dim", l))),
    ]);
  }
  return blocks;
}

/** Indents every line but the empty ones, so no line ends in spaces. */
function indent(prefix: string, lines: readonly string[]): string[] {
  return lines.map((line) => (line === "" ? "" : prefix + line));
}

function diffLines(expected: unknown, actual: unknown, paint: Paint): string[] {
  const comparison = compareValues(expected, actual);
  if (comparison.kind === "pair") {
    return [
      paint("green", PAIR_LABELS.expected + comparison.expected),
      paint("red", PAIR_LABELS.actual + comparison.actual),
    ];
  }
  const { lines } = comparison;
  const shown = lines.slice(0, MAX_DIFF_LINES).map((line) => {
    const text = markLine(line);
    const style = DIFF_STYLES[line.op];
    return style === undefined ? text : paint(style, text);
  });
  if (lines.length > MAX_DIFF_LINES) {
    shown.push(paint("dim", `… ${lines.length - MAX_DIFF_LINES} more lines`));
  }
  return [paint("green", "- expected"), paint("red", "+ actual"), "", ...shown];
}
