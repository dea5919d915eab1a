/**
 * JUnit XML, as CI servers read it: one `<testsuite>` per scenario file, one `<testcase>` per
 * case with a `<failure>` (expectations not met) or an `<error>` (the case could not run), and an
 * invalid scenario file as a suite whose one case is an `<error>`. A session case's shell commands
 * (answered or run) and `--explain` go to `<system-out>`.
 */
import type { CaseResult } from "../scenarios/case_result.ts";
import type {
  Reporter,
  ReporterOptions,
  RunResult,
  ScenarioProblem,
} from "../scenarios/scenario_run.ts";
import { displayPath } from "../../display_path.ts";
import { groupByFile } from "./case_groups.ts";
import { explainLines } from "./explain_lines.ts";
import { problemLine } from "./problem_line.ts";
import { shellCallLines } from "./shell_call_lines.ts";
import { seconds } from "./summary_line.ts";
import { plainDiff } from "./text_diff.ts";

export function createJunitReporter(options: ReporterOptions): Reporter {
  return { onRunEnd: (run) => options.write(renderJunit(run, options)) };
}

interface Suite {
  readonly name: string;
  readonly tests: number;
  readonly failures: number;
  readonly errors: number;
  readonly durationMs: number;
  readonly body: readonly string[];
}

function renderJunit(run: RunResult, options: ReporterOptions): string {
  const { cwd } = options;
  const suites: Suite[] = [];
  const problemFiles = [...new Set(run.problems.map((p) => p.file))];
  for (const file of problemFiles) {
    const problems = run.problems.filter((p) => p.file === file);
    suites.push({
      name: displayPath(file, cwd, undefined),
      tests: 1,
      failures: 0,
      errors: 1,
      durationMs: 0,
      body: problemCase(file, problems, cwd),
    });
  }
  for (const group of groupByFile(run.results)) {
    const name = displayPath(group.file, cwd, undefined);
    suites.push({
      name,
      tests: group.results.length,
      failures: group.results.filter((r) => r.status === "failed").length,
      errors: group.results.filter((r) => r.status === "error").length,
      durationMs: group.results.reduce((sum, r) => sum + r.durationMs, 0),
      body: group.results.flatMap((r) => testCase(name, r, options)),
    });
  }
  const total = (key: "tests" | "failures" | "errors") =>
    suites.reduce((sum, suite) => sum + suite[key], 0);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${
      attributes({
        name: options.shard === undefined
          ? "llama-agent hooks test"
          : `llama-agent hooks test (shard ${options.shard.index}/${options.shard.count})`,
        tests: total("tests"),
        failures: total("failures"),
        errors: total("errors"),
        time: seconds(run.summary.durationMs),
      })
    }>`,
  ];
  for (const suite of suites) {
    out.push(
      `  <testsuite${
        attributes({
          name: suite.name,
          tests: suite.tests,
          failures: suite.failures,
          errors: suite.errors,
          skipped: 0,
          time: seconds(suite.durationMs),
        })
      }>`,
      ...suite.body.map((line) => `    ${line}`),
      "  </testsuite>",
    );
  }
  out.push("</testsuites>");
  return out.join("\n") + "\n";
}

function problemCase(file: string, problems: readonly ScenarioProblem[], cwd: string): string[] {
  const name = displayPath(file, cwd, undefined);
  const first = problems[0]!;
  return [
    `<testcase${
      attributes({
        name: "invalid scenario file",
        classname: name,
        file: name,
        line: first.line,
        time: seconds(0),
      })
    }>`,
    `  <error${attributes({ type: "invalid-scenario", message: first.message })}>${
      xmlText(problems.map((p) => problemLine(p, cwd)).join("\n"))
    }</error>`,
    "</testcase>",
  ];
}

function testCase(file: string, result: CaseResult, options: ReporterOptions): string[] {
  const open = `<testcase${
    attributes({
      name: result.name,
      classname: file,
      file,
      line: result.location.line,
      time: seconds(result.durationMs),
    })
  }`;
  const inner: string[] = [];
  switch (result.status) {
    case "passed":
      break;
    case "failed": {
      const message = result.failures.map((f) => `${f.path}: ${f.message}`).join("; ");
      const body = result.failures.flatMap((f) => [
        `${f.path} at ${file}:${f.line ?? result.location.line}`,
        f.message,
        ...plainDiff(f.expected, f.actual),
        "",
      ]);
      inner.push(
        `<failure${attributes({ type: "expectation", message })}>${
          xmlText(body.join("\n").trimEnd())
        }</failure>`,
      );
      break;
    }
    case "error": {
      const error = result.error ?? "no reason given";
      inner.push(
        `<error${attributes({ type: "case-error", message: error.split("\n")[0]! })}>${
          xmlText(`${file}:${result.location.line}: ${error}`)
        }</error>`,
      );
      break;
    }
    default:
      result.status satisfies never;
  }
  const out = shellCallLines(result.shellCalls);
  if (options.explain && result.explain !== undefined) {
    if (out.length > 0) out.push("");
    out.push(...explainLines(result.explain, options.cwd));
  }
  if (out.length > 0) inner.push(`<system-out>${xmlText(out.join("\n"))}</system-out>`);
  if (inner.length === 0) return [`${open}/>`];
  return [`${open}>`, ...inner.map((line) => `  ${line}`), "</testcase>"];
}

function attributes(values: Readonly<Record<string, string | number>>): string {
  return Object.entries(values).map(([key, value]) => ` ${key}="${xmlAttribute(String(value))}"`)
    .join("");
}

/**
 * Characters XML 1.0 cannot hold at all (most C0 controls, such as the ESC of a hook's colored
 * output, and lone surrogates), written as `\uXXXX` text instead.
 */
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function xmlChars(value: string): string {
  return value.replace(NOT_XML, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, "0")}`);
}

/** Element text: `&`, `<` and `>` escaped, and `\r` kept (parsers turn a raw one into `\n`). */
export function xmlText(value: string): string {
  return xmlChars(value).replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll("\r", "&#13;");
}

/** An attribute value in double quotes: also `"`, and whitespace kept as character references. */
export function xmlAttribute(value: string): string {
  return xmlText(value).replaceAll('"', "&quot;").replaceAll("\n", "&#10;").replaceAll(
    "\t",
    "&#9;",
  );
}
