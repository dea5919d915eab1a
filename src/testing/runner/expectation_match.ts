/**
 * The comparisons both runners share: text expectations (exact, contained, or a regex), deep and
 * subset equality of JSON values, hook references, and the list of failures a case collects.
 * Pure: no I/O.
 */
import type { Verdict } from "../../hooks/decision.ts";
import { handlerText } from "../../hooks/handler_config.ts";
import type { Registration } from "../../hooks/registration.ts";
import type { ExpectationFailure } from "../scenarios/case_result.ts";
import { type TextExpectation, textMatcherOf } from "../scenarios/scenario_schema.ts";

/**
 * How a plain string expectation compares: `exact` (most fields) or `contains` (`modelSaw`,
 * `modelNeverSaw`: "found in" what the model received). A `{"matches"}` regex is always
 * unanchored; a `{"contains"}` is always found anywhere in the text.
 */
export type TextMode = "exact" | "contains";

export type TextMatch =
  | { readonly ok: true; readonly matched: boolean }
  /** The regex does not compile. */
  | { readonly ok: false; readonly error: string };

export function matchText(
  expected: TextExpectation,
  actual: string | null,
  mode: TextMode = "exact",
): TextMatch {
  if (typeof expected === "string") {
    if (actual === null) return { ok: true, matched: false };
    return {
      ok: true,
      matched: mode === "exact" ? actual === expected : actual.includes(expected),
    };
  }
  if ("contains" in expected) {
    return { ok: true, matched: actual !== null && actual.includes(expected.contains) };
  }
  let pattern: RegExp;
  try {
    pattern = new RegExp(expected.matches);
  } catch (error) {
    return {
      ok: false,
      error: `Invalid regular expression ${JSON.stringify(expected.matches)}: ${
        error instanceof Error ? error.message : String(error)
      }`,
    };
  }
  return { ok: true, matched: actual !== null && pattern.test(actual) };
}

/**
 * How an expectation reads in a message: `"text"`, `/regex/`, or `containing "text"` (in
 * `contains` mode, where every text is searched for, just `"text"`).
 */
export function describeText(expected: TextExpectation, mode: TextMode = "exact"): string {
  if (typeof expected === "string") return JSON.stringify(expected);
  if ("matches" in expected) return `/${expected.matches}/`;
  const quoted = JSON.stringify(expected.contains);
  return mode === "contains" ? quoted : `containing ${quoted}`;
}

/** What a value is expected to be, as a message says it: `to be "x"`, `to be /re/`, ... */
export function expectedPhrase(expected: TextExpectation): string {
  if (typeof expected === "string") return `to be ${JSON.stringify(expected)}`;
  if ("matches" in expected) return `to be /${expected.matches}/`;
  return `to contain ${JSON.stringify(expected.contains)}`;
}

/** Strict structural equality of JSON values (key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
}

/**
 * `expected` is contained in `actual`: every key of an expected object is present and matches
 * (recursively); arrays match element by element and must have the same length; an expected
 * `{"matches": "<regex>"}` (that one key) is an unanchored regex a string must match, and a
 * `{"contains": "<text>"}` a text the string holds; anything else must be equal.
 */
export function subsetMatch(expected: unknown, actual: unknown): boolean {
  const matcher = textMatcherOf(expected);
  if (matcher !== null) {
    const match = matchText(matcher, typeof actual === "string" ? actual : null);
    return match.ok && match.matched;
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return false;
    return Object.entries(expected).every(([key, value]) =>
      Object.hasOwn(actual, key) && subsetMatch(value, actual[key])
    );
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false;
    return expected.every((item, i) => subsetMatch(item, actual[i]));
  }
  return Object.is(expected, actual);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A `HookRef` names a registration by its exact id, or by a substring of its handler's text. */
export function refersTo(ref: string, registration: Registration): boolean {
  return registration.id === ref || handlerText(registration.handler).includes(ref);
}

/** The failures of one case, each with the line of its expectation when the file says. */
export class FailureList {
  readonly #failures: ExpectationFailure[] = [];

  constructor(
    /** The case's JSON pointer in its file, e.g. `/cases/2`. */
    private readonly casePointer: string,
    private readonly lineOf?: (pointer: string) => number | undefined,
  ) {}

  /** `path` is dotted from the case, e.g. `expect.tools[1].input`. */
  add(path: string, message: string, expected: unknown, actual: unknown): void {
    const line = this.lineOf?.(`${this.casePointer}${pointerOf(path)}`);
    this.#failures.push({
      path,
      message,
      expected,
      actual,
      ...(line === undefined ? {} : { line }),
    });
  }

  /** Compares one text; a bad regex is a failure of its own. */
  text(
    path: string,
    what: string,
    expected: TextExpectation,
    actual: string | null,
    mode: TextMode = "exact",
  ): void {
    const match = matchText(expected, actual, mode);
    if (!match.ok) return this.add(path, match.error, expected, actual);
    if (match.matched) return;
    const shown = actual === null ? "there is none" : `it is ${JSON.stringify(actual)}`;
    this.add(path, `Expected ${what} ${describeText(expected)}, but ${shown}`, expected, actual);
  }

  get failures(): readonly ExpectationFailure[] {
    return this.#failures;
  }
}

/**
 * A whole ordered list of texts (`notices`): the same length, each entry exact or a regex. A
 * length that differs is one failure listing what there was.
 */
export function checkTextList(
  path: string,
  noun: string,
  expected: readonly TextExpectation[],
  actual: readonly string[],
  failures: FailureList,
): void {
  if (expected.length !== actual.length) {
    failures.add(
      path,
      `Expected ${expected.length} ${noun}(s), but there ${actual.length === 1 ? "is" : "are"} ` +
        `${actual.length}` + (actual.length > 0
          ? `: ${actual.map((t) => JSON.stringify(t)).join(", ")}`
          : ""),
      expected,
      actual,
    );
    return;
  }
  expected.forEach((want, i) => {
    failures.text(`${path}[${i}]`, `${noun} ${i + 1}`, want, actual[i] ?? null);
  });
}

/** `expect.tools[1].input` → `/expect/tools/1/input`; `expect.files["a/b.txt"]` → `/expect/files/a~1b.txt`. */
export function pointerOf(path: string): string {
  let pointer = "";
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    const token: string = m[1] ?? m[2] ?? JSON.parse(m[3]!);
    pointer += "/" + token.replaceAll("~", "~0").replaceAll("/", "~1");
  }
  return pointer;
}

/** A decision as scenario files name it: `deny` is PreToolUse's word for `block`. */
export type DecisionName = "none" | "allow" | "ask" | "defer" | "deny" | "block" | "stop";

export function decisionName(event: string, verdict: Verdict): DecisionName {
  switch (verdict.kind) {
    case "none":
    case "allow":
    case "ask":
    case "defer":
    case "stop":
      return verdict.kind;
    case "block":
      return event === "PreToolUse" ? "deny" : "block";
    default:
      return verdict satisfies never;
  }
}

/** `deny` and `block` are the same verdict, whatever the event. */
export function sameDecision(expected: DecisionName, actual: DecisionName): boolean {
  const canonical = (name: DecisionName) => (name === "deny" ? "block" : name);
  return canonical(expected) === canonical(actual);
}
