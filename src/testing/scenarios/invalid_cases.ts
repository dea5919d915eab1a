/**
 * A case the schema (or a check beside it) refuses does not make its whole file invalid: it is
 * reported as a case that could not run, at its own line, and the file's other cases still run.
 * A problem outside `cases` (a file-level field, `cases` itself) still makes the file invalid.
 */
import type { CaseLocation, CaseResult } from "./case_result.ts";
import { isObject, valueAt } from "./describe_issues.ts";
import type { ScenarioProblem } from "./scenario_run.ts";
import { ScenarioCase, ScenarioFile } from "./scenario_schema.ts";

export interface InvalidCase {
  /** The case's name; one the case lacks (or gives wrongly) is `case <n>`, its 1-based position. */
  readonly name: string;
  /** What it was evidently meant to be: a case with `session` is a session case. */
  readonly kind: CaseResult["kind"];
  readonly location: CaseLocation;
  /** Every problem of the case, in file order. */
  readonly problems: readonly ScenarioProblem[];
  /** The problems as the case's error: one a line, each with its line and column. */
  readonly error: string;
}

/** `/cases/<i>` or below: the case index; anything else concerns the file. */
export function caseIndexOf(pointer: string): number | undefined {
  const match = /^\/cases\/(\d+)(?:\/|$)/.exec(pointer);
  return match === null ? undefined : Number(match[1]);
}

/** The problems of one file, split into the file's own and each case's, by case index. */
export function splitProblems(problems: readonly ScenarioProblem[]): {
  readonly file: readonly ScenarioProblem[];
  readonly byCase: ReadonlyMap<number, readonly ScenarioProblem[]>;
} {
  const file: ScenarioProblem[] = [];
  const byCase = new Map<number, ScenarioProblem[]>();
  for (const problem of problems) {
    const index = caseIndexOf(problem.pointer);
    if (index === undefined) file.push(problem);
    else byCase.set(index, [...byCase.get(index) ?? [], problem]);
  }
  return { file, byCase };
}

/**
 * `problems` are the case's, whose messages name the file as `shown`: the case's error names it
 * once, where the reporters show the case.
 */
export function invalidCase(
  file: string,
  shown: string,
  value: unknown,
  index: number,
  line: number,
  problems: readonly ScenarioProblem[],
): InvalidCase {
  const spec = valueAt(value, ["cases", index]).value;
  const name = isObject(spec) && typeof spec["name"] === "string" && spec["name"] !== ""
    ? spec["name"]
    : `case ${index + 1}`;
  const prefix = `Invalid scenario "${shown}": `;
  return {
    name,
    kind: isObject(spec) && Object.hasOwn(spec, "session") ? "session" : "event",
    location: { file, line, pointer: `/cases/${index}` },
    problems,
    error: problems.map((p) => {
      const what = p.message.startsWith(prefix) ? p.message.slice(prefix.length) : p.message;
      return `Invalid case: ${what} (line ${p.line}, column ${p.column})`;
    }).join("\n"),
  };
}

/** The result an invalid case reports: an error, which makes the run exit 2. */
export function invalidCaseResult(invalid: InvalidCase): CaseResult {
  return {
    name: invalid.name,
    kind: invalid.kind,
    location: invalid.location,
    status: "error",
    durationMs: 0,
    failures: [],
    error: invalid.error,
  };
}

const FileFields = ScenarioFile.omit({ cases: true });

/**
 * The file without the cases at `invalid`: its fields and the other cases, each parsed on its
 * own, with their positions in the file. Undefined when anything else fails to parse.
 */
export function validCases(
  value: unknown,
  invalid: ReadonlySet<number>,
): { scenario: ScenarioFile; positions: number[] } | undefined {
  if (!isObject(value)) return undefined;
  const { cases, ...rest } = value;
  const fields = FileFields.safeParse(rest);
  if (!fields.success || !Array.isArray(cases)) return undefined;
  const kept: ScenarioCase[] = [];
  const positions: number[] = [];
  for (const [index, spec] of cases.entries()) {
    if (invalid.has(index)) continue;
    const parsed = ScenarioCase.safeParse(spec);
    if (!parsed.success) return undefined;
    kept.push(parsed.data);
    positions.push(index);
  }
  return { scenario: { ...fields.data, cases: kept }, positions };
}
