/**
 * `hooks test --update`: the `expect` of each failing case rewritten to what was observed, as a
 * snapshot test runner updates its snapshots, by text edits at each value's exact span (so
 * comments and formatting stay), and what it changed and what it left, for the user to review.
 * What each failure becomes is snapshot_edit_plan.ts's.
 *
 * Only failed cases are touched; passing ones and ones that could not run are not. Every edited
 * case is checked against the schema as it will be written, and the whole new text is parsed
 * again: an update that would add a problem to the file, or not give the values planned, writes
 * nothing.
 */
import { errorMessage } from "../../error.ts";
import { nodeValue } from "../../hooks/settings/jsonc_value.ts";
import type { CaseResult, ExpectationFailure } from "../scenarios/case_result.ts";
import { jsonEqual, pointerOf } from "../runner/expectation_match.ts";
import {
  type EditResult,
  lineOfPointer,
  nodeAt,
  parseJsonc,
  pointerSegments,
  removeProperty,
  replaceValue,
} from "./jsonc_edit.ts";
import { isObject } from "../scenarios/describe_issues.ts";
import { parseScenarioText } from "../scenarios/scenario_file.ts";
import { EventCase, SessionCase } from "../scenarios/scenario_schema.ts";
import { applyToValue, type Edit, planFailure, valueAt } from "./snapshot_edit_plan.ts";

/** Where a change or a left failure is: the file, the line (before the update), the case. */
export interface SnapshotPlace {
  readonly file: string;
  readonly line: number;
  readonly caseName: string;
  /** The expectation, as failures name it: `expect.tools[1].input`. */
  readonly path: string;
}

export interface SnapshotChange extends SnapshotPlace {
  readonly from: unknown;
  readonly to: { readonly kind: "value"; readonly value: unknown } | { readonly kind: "removed" };
}

export interface SnapshotLeft extends SnapshotPlace {
  /** Why it was not updated, and what to do. */
  readonly why: string;
}

export interface TextUpdate {
  /** The new text; the text given when nothing changed. */
  readonly text: string;
  readonly changes: readonly SnapshotChange[];
  readonly left: readonly SnapshotLeft[];
  /** Pointers (`/cases/2`) of the cases whose every failure was updated: they now pass. */
  readonly updatedCases: readonly string[];
}

/** The update of one scenario file's text for the failed results of its cases. Pure. */
export function updateScenarioText(
  file: string,
  text: string,
  results: readonly CaseResult[],
): TextUpdate {
  const failed = results.filter((r) => r.status === "failed" && r.location.file === file);
  const root = parseJsonc(text);
  const changes: SnapshotChange[] = [];
  const left: SnapshotLeft[] = [];
  const updatedCases: string[] = [];
  const planned = new Map<string, unknown>();
  let current = text;
  for (const result of failed) {
    const casePointer = result.location.pointer;
    const caseNode = root === undefined ? undefined : nodeAt(root, casePointer);
    const value = caseNode === undefined ? undefined : nodeValue(caseNode);
    const place = (failure: ExpectationFailure): SnapshotPlace => ({
      file,
      line: lineOfPointer(text, casePointer + pointerOf(failure.path), root) ?? failure.line ??
        result.location.line,
      caseName: result.name,
      path: failure.path,
    });
    if (!isObject(value) || value["name"] !== result.name) {
      const why = "the case is no longer where the run found it: run again with --update";
      left.push(...result.failures.map((f) => ({ ...place(f), why })));
      continue;
    }
    const outcome = planCase(value, result.failures);
    for (const { failure, why } of outcome.left) left.push({ ...place(failure), why });
    // A case is edited whole or not at all: one edit that cannot be made leaves the case as it
    // was, so what is written is always the plan of the cases that changed.
    let edited = current;
    const caseChanges: SnapshotChange[] = [];
    let failed: { failure: ExpectationFailure; message: string } | undefined;
    for (const { failure, edit, from } of outcome.accepted) {
      const next = applyToText(edited, casePointer + edit.pointer, edit);
      if (!next.ok) {
        failed = { failure, message: next.message };
        break;
      }
      edited = next.text;
      const to = edit.kind === "remove"
        ? { kind: "removed" as const }
        : { kind: "value" as const, value: edit.value };
      caseChanges.push({ ...place(failure), from, to });
    }
    if (failed !== undefined) {
      const why = `cannot edit the file here: ${failed.message}`;
      left.push(...outcome.accepted.map(({ failure }) => ({ ...place(failure), why })));
      continue;
    }
    current = edited;
    changes.push(...caseChanges);
    planned.set(casePointer, outcome.value);
    if (outcome.left.length === 0) updatedCases.push(casePointer);
  }
  if (changes.length === 0) return { text, changes, left, updatedCases };
  const broken = checkWritten(file, text, current, planned);
  if (broken === undefined) return { text: current, changes, left, updatedCases };
  const why = `nothing in this file was written: ${broken}`;
  return {
    text,
    changes: [],
    left: [...left, ...changes.map(({ from: _from, to: _to, ...place }) => ({ ...place, why }))],
    updatedCases: [],
  };
}

interface CaseOutcome {
  /** The case as it will be written. */
  readonly value: Record<string, unknown>;
  readonly accepted: readonly { failure: ExpectationFailure; edit: Edit; from: unknown }[];
  readonly left: readonly { failure: ExpectationFailure; why: string }[];
}

/**
 * Each failure's edits, tried in turn on the case value and kept when the case still matches the
 * schema. A failure inside a value another failure replaced (`expect.tools[0].input` under
 * `expect.tools`) is covered by it.
 */
function planCase(
  original: Record<string, unknown>,
  failures: readonly ExpectationFailure[],
): CaseOutcome {
  const schema = "event" in original ? EventCase : SessionCase;
  let value = structuredClone(original);
  const accepted: { failure: ExpectationFailure; edit: Edit; from: unknown }[] = [];
  const left: { failure: ExpectationFailure; why: string }[] = [];
  const byDepth = [...failures].sort((a, b) => depth(a) - depth(b));
  for (const failure of byDepth) {
    const pointer = pointerOf(failure.path);
    if (accepted.some(({ edit }) => pointer.startsWith(edit.pointer + "/"))) continue;
    const plan = planFailure(failure, value);
    if ("hand" in plan) {
      left.push({ failure, why: plan.hand });
      continue;
    }
    let why = "there is nothing observed to write in its place";
    const from = valueAt(value, pointer);
    const kept = plan.edits.find((edit) => {
      const next = applyToValue(value, edit);
      const checked = schema.safeParse(next);
      if (checked.success) return true;
      const issue = checked.error.issues[0];
      why = `the observed value is not valid here: ${issue?.message ?? "schema mismatch"}` +
        (issue === undefined || issue.path.length === 0 ? "" : ` at ${issue.path.join(".")}`);
      return false;
    });
    if (kept === undefined) {
      left.push({ failure, why: `${failure.message}; ${why}` });
      continue;
    }
    value = applyToValue(value, kept);
    accepted.push({ failure, edit: kept, from });
    if (plan.rerun !== undefined) left.push({ failure, why: plan.rerun });
  }
  return { value, accepted, left };
}

function applyToText(text: string, pointer: string, edit: Edit): EditResult {
  return edit.kind === "remove"
    ? removeProperty(text, pointer)
    : replaceValue(text, pointer, edit.value);
}

/**
 * Undefined when the new text parses, has no problem the old text had not (a file may hold
 * invalid cases, which run as errors and are not edited), and its edited cases hold exactly the
 * values planned; else what is wrong.
 */
function checkWritten(
  file: string,
  before: string,
  after: string,
  planned: Readonly<Map<string, unknown>>,
): string | undefined {
  const parsed = parseScenarioText(file, after);
  const had = new Set(parseScenarioText(file, before).problems.map((p) => p.message));
  const added = parsed.problems.find((p) => !had.has(p.message));
  if (parsed.document === undefined || added !== undefined) {
    return `the updated file would not be valid (${added?.message ?? "not JSONC"})`;
  }
  const root = parseJsonc(after);
  for (const [pointer, value] of planned) {
    const node = root === undefined ? undefined : nodeAt(root, pointer);
    if (node === undefined || !jsonEqual(nodeValue(node), value)) {
      return `the edit of the case at ${pointer} did not give the planned value`;
    }
  }
  return undefined;
}

function depth(failure: ExpectationFailure): number {
  return pointerSegments(pointerOf(failure.path)).length;
}

/** What `--update` needs of the file system: the file's text, and an atomic write of it. */
export interface ScenarioFileAccess {
  read(file: string): Promise<string>;
  write(file: string, text: string): Promise<void>;
}

export interface SnapshotUpdate {
  readonly changes: readonly SnapshotChange[];
  readonly left: readonly SnapshotLeft[];
  /** `file` and case pointer of each case whose every failure was updated. */
  readonly updated: ReadonlySet<string>;
  /** Files that could not be read or written, with why. */
  readonly problems: readonly string[];
}

/** The key of a case in `SnapshotUpdate.updated`. */
export function caseKey(result: Pick<CaseResult, "location">): string {
  return `${result.location.file}#${result.location.pointer}`;
}

/** Updates every file that has a failed case; a file is written only when something changed. */
export async function updateSnapshots(
  results: readonly CaseResult[],
  files: ScenarioFileAccess,
): Promise<SnapshotUpdate> {
  const failedFiles = [
    ...new Set(results.filter((r) => r.status === "failed").map((r) => r.location.file)),
  ];
  const changes: SnapshotChange[] = [];
  const left: SnapshotLeft[] = [];
  const updated = new Set<string>();
  const problems: string[] = [];
  for (const file of failedFiles) {
    try {
      const before = await files.read(file);
      const update = updateScenarioText(file, before, results);
      if (update.text !== before) await files.write(file, update.text);
      changes.push(...update.changes);
      left.push(...update.left);
      for (const pointer of update.updatedCases) updated.add(`${file}#${pointer}`);
    } catch (error) {
      problems.push(`Cannot update "${file}": ${errorMessage(error)}`);
    }
  }
  return { changes, left, updated, problems };
}
