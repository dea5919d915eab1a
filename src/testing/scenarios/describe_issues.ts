/**
 * Zod issues as a user reads them: one entry per problem, with the JSON pointer of the offending
 * value and what was expected there (`"errors" must be a number, not "two"`,
 * `unknown field "matchs" (did you mean "matches"?)`).
 *
 * Of a union that failed, only the alternative the value was evidently meant to be is described:
 * the one whose fields are closest to the value's (an event case's mistakes are not reported as
 * "session is missing").
 */
import { z } from "zod";
import { jsonPointer } from "../../hooks/diagnostic.ts";
import { nearestName } from "../../nearest_name.ts";

type Issue = z.core.$ZodIssue;
type Segment = string | number;
type Schema = z.core.$ZodType | undefined;

export interface DescribedIssue {
  /** JSON pointer of the offending value (of a missing field: where it belongs). */
  readonly pointer: string;
  /** What is wrong there, in words, starting lower-case. */
  readonly what: string;
}

/** Describes the issues `schema.safeParse(value)` reported; paths are taken from `value`. */
export function describeIssues(
  issues: readonly Issue[],
  schema: z.core.$ZodType,
  value: unknown,
): DescribedIssue[] {
  const out: DescribedIssue[] = [];
  describeAll(issues, [], schema, value, out);
  return out;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at a path, and whether it is there at all (an own property or an element). */
export function valueAt(
  root: unknown,
  path: readonly Segment[],
): { present: boolean; value: unknown } {
  let value = root;
  for (const segment of path) {
    if (Array.isArray(value) && typeof segment === "number" && segment < value.length) {
      value = value[segment];
    } else if (isObject(value) && Object.hasOwn(value, String(segment))) {
      value = value[String(segment)];
    } else {
      return { present: false, value: undefined };
    }
  }
  return { present: true, value };
}

function describeAll(
  issues: readonly Issue[],
  base: readonly Segment[],
  baseSchema: Schema,
  root: unknown,
  out: DescribedIssue[],
): void {
  for (const issue of withoutShadowedRules(issues)) {
    const relative = issue.path.map(segmentOf);
    const path = [...base, ...relative];
    const schema = schemaAt(baseSchema, relative, valueAt(root, base).value);
    const { present, value } = valueAt(root, path);
    const push = (what: string) => out.push({ pointer: jsonPointer(path), what });
    const name = subject(path);
    switch (issue.code) {
      case "invalid_type": {
        const type = issue.expected === "number" && isInteger(schema) ? "int" : issue.expected;
        const expected = typeText(type) + (isNullable(schema) ? " or null" : "");
        push(
          present
            ? `${name} must be ${expected}, not ${shown(value)}`
            : `missing required field ${name} (${expected})`,
        );
        break;
      }
      case "invalid_value": {
        const options = issue.values.map((v) => JSON.stringify(v) ?? String(v));
        const wanted = options.length === 1 ? options[0] : `one of ${options.join(", ")}`;
        if (!present) {
          push(`missing required field ${name} (${wanted})`);
          break;
        }
        const close = typeof value === "string"
          ? nearestName(value, issue.values.filter((v) => typeof v === "string"))
          : undefined;
        const hint = close === undefined ? "" : ` (did you mean "${close}"?)`;
        // A schema with its own message says why only that value is allowed.
        const why = schema?._zod.def.error === undefined ? "" : `: ${lowerFirst(issue.message)}`;
        push(`${name} must be ${wanted}, not ${shown(value)}${hint}${why}`);
        break;
      }
      case "too_small":
      case "too_big":
        push(sizeText(issue, name, value));
        break;
      case "invalid_format":
        push(
          issue.format === "regex" && issue.pattern
            ? `${name} must match /${issue.pattern}/, not ${shown(value)}`
            : `${name} must be a valid ${issue.format}, not ${shown(value)}`,
        );
        break;
      case "not_multiple_of":
        push(`${name} must be a multiple of ${issue.divisor}, not ${shown(value)}`);
        break;
      case "unrecognized_keys":
        for (const key of issue.keys) {
          out.push({
            pointer: jsonPointer([...path, key]),
            what: unknownField(key, schema, value),
          });
        }
        break;
      case "invalid_union":
        describeUnion(issue, path, schema, root, out);
        break;
      case "invalid_key":
        // The key's own schema says what a key must be; zod's message only says it is a key.
        push(keyProblem(issue, name));
        break;
      case "invalid_element":
      case "custom":
        push(`${name}: ${lowerFirst(issue.message)}`);
        break;
      default:
        issue satisfies never;
    }
  }
}

/**
 * A rule over an object that also has unknown fields is left out: the fields were most likely
 * misspelt (`{"erors": 0}` is not "an expect that asserts nothing"), and the suggestion for them
 * is the useful message.
 */
function withoutShadowedRules(issues: readonly Issue[]): readonly Issue[] {
  const key = (issue: Issue) => JSON.stringify(issue.path.map(segmentOf));
  const unknownAt = new Set(issues.filter((i) => i.code === "unrecognized_keys").map(key));
  if (unknownAt.size === 0) return issues;
  return issues.filter((issue) => issue.code !== "custom" || !unknownAt.has(key(issue)));
}

function keyProblem(issue: z.core.$ZodIssueInvalidKey, name: string): string {
  const inner = issue.issues[0];
  return inner === undefined ? `${name}: ${lowerFirst(issue.message)}` : `${name} ${inner.message}`;
}

interface BranchScore {
  /** Fields the branch lacks plus fields it does not know, at the union's own place. */
  readonly shape: number;
  readonly issues: number;
  readonly missing: readonly string[];
  readonly unknown: number;
}

/** Describes the alternative the value was meant to be: the one whose fields fit it best. */
function describeUnion(
  issue: z.core.$ZodIssueInvalidUnion,
  path: readonly Segment[],
  schema: Schema,
  root: unknown,
  out: DescribedIssue[],
): void {
  const name = subject(path);
  const { value } = valueAt(root, path);
  const push = (what: string) => out.push({ pointer: jsonPointer(path), what });
  if (issue.errors.length === 0) {
    push(`${name}: ${lowerFirst(issue.message)}`);
    return;
  }
  const scores = issue.errors.map((errors) => scoreBranch(errors, path, root));
  if (scores.every((s) => s.shape === Infinity)) {
    // No alternative accepts this kind of value at all.
    const expected = issue.errors.flatMap((errors) =>
      errors.flatMap((e) => e.path.length === 0 && e.code === "invalid_type" ? [e.expected] : [])
    );
    push(`${name} must be ${joinOr([...new Set(expected)].map(typeText))}, not ${shown(value)}`);
    return;
  }
  const best = Math.min(...scores.map((s) => s.shape));
  const tied = scores.filter((s) => s.shape === best);
  if (tied.length > 1 && tied.every((s) => s.unknown === 0 && s.missing.length > 0)) {
    // Each alternative lacks its own field: the value says nothing about which it meant.
    const needs = [...new Set(tied.flatMap((s) => s.missing))].map((key) => `"${key}"`);
    push(`${name} needs ${joinOr(needs)}`);
    return;
  }
  let chosen = 0;
  scores.forEach((score, index) => {
    const current = scores[chosen];
    if (
      current === undefined || score.shape < current.shape ||
      (score.shape === current.shape && score.issues < current.issues)
    ) chosen = index;
  });
  const options = schema instanceof z.ZodUnion ? schema.options : [];
  describeAll(issue.errors[chosen] ?? [], path, options[chosen], root, out);
}

function scoreBranch(errors: readonly Issue[], path: readonly Segment[], root: unknown) {
  const missing: string[] = [];
  let unknown = 0;
  for (const e of errors) {
    const [first, ...rest] = e.path.map(segmentOf);
    if (first === undefined && e.code === "invalid_type") {
      return { shape: Infinity, issues: errors.length, missing, unknown } satisfies BranchScore;
    }
    if (first === undefined && e.code === "unrecognized_keys") unknown += e.keys.length;
    if (
      first !== undefined && rest.length === 0 && !valueAt(root, [...path, first]).present
    ) {
      missing.push(String(first));
    }
  }
  return {
    shape: missing.length + unknown,
    issues: errors.length,
    missing,
    unknown,
  } satisfies BranchScore;
}

function unknownField(key: string, schema: Schema, value: unknown): string {
  const known = fieldsOf(schema, value);
  const close = nearestName(key, known);
  if (close !== undefined) return `unknown field "${key}" (did you mean "${close}"?)`;
  if (known.length === 0) return `unknown field "${key}"`;
  return `unknown field "${key}" (expected ${joinOr(known.map((k) => `"${k}"`))})`;
}

/**
 * The fields an object schema declares. Zod reports unknown keys of a union's object directly,
 * without the union, so of a union the object alternative that knows most of `value`'s keys.
 */
function fieldsOf(schema: Schema, value: unknown): string[] {
  const option = schema instanceof z.ZodUnion ? closestOption(schema, value) : schema;
  return option instanceof z.ZodObject ? Object.keys(option.shape) : [];
}

/** The object alternative of a union that knows most of `value`'s keys (the first on a tie). */
function closestOption(union: z.ZodUnion, value: unknown): Schema {
  const present = isObject(value) ? Object.keys(value) : [];
  let best: Schema = undefined;
  let bestKnown = -1;
  for (const option of union.options.map(unwrap)) {
    if (!(option instanceof z.ZodObject)) continue;
    const fields = Object.keys(option.shape);
    const known = present.filter((key) => fields.includes(key)).length;
    if (known > bestKnown) [best, bestKnown] = [option, known];
  }
  return best;
}

function sizeText(
  issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig,
  name: string,
  value: unknown,
): string {
  const small = issue.code === "too_small";
  const limit = Number(small ? issue.minimum : issue.maximum);
  const bound = small
    ? (issue.inclusive ? "at least" : "more than")
    : (issue.inclusive ? "at most" : "less than");
  switch (issue.origin) {
    case "string":
      if (small && limit === 1) return `${name} must not be empty`;
      return `${name} must be ${bound} ${plural(limit, "character")} long`;
    case "array":
    case "set":
      return `${name} must have ${bound} ${plural(limit, "item")}`;
    case "number":
    case "int":
    case "bigint":
      return `${name} must be ${bound} ${limit}, not ${shown(value)}`;
    default:
      return `${name}: ${lowerFirst(issue.message)}`;
  }
}

/**
 * The schema a relative path leads to, through objects, arrays, records and wrappers; through a
 * union, the alternative `value` (the value at the path's start) was evidently meant to be.
 */
function schemaAt(schema: Schema, path: readonly Segment[], value: unknown): Schema {
  let current = unwrap(schema);
  let here = value;
  for (const segment of path) {
    if (current instanceof z.ZodUnion) current = closestOption(current, here);
    here = valueAt(here, [segment]).value;
    if (current instanceof z.ZodObject) {
      current = Object.hasOwn(current.shape, segment) ? current.shape[segment] : undefined;
    } else if (current instanceof z.ZodArray) current = current.element;
    else if (current instanceof z.ZodRecord) current = current.valueType;
    else return undefined;
    current = unwrap(current);
  }
  return current;
}

function unwrap(schema: Schema): Schema {
  let current = schema;
  while (
    current instanceof z.ZodOptional || current instanceof z.ZodNullable ||
    current instanceof z.ZodDefault
  ) {
    current = current.unwrap();
  }
  return current;
}

function isNullable(schema: Schema): boolean {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault) {
    current = current.unwrap();
  }
  return current instanceof z.ZodNullable;
}

function isInteger(schema: Schema): boolean {
  return schema instanceof z.ZodNumber && schema.isInt;
}

function segmentOf(segment: PropertyKey): Segment {
  return typeof segment === "symbol" ? String(segment) : segment;
}

/** How a message names the value at a path. */
function subject(path: readonly Segment[]): string {
  const last = path.at(-1);
  if (last === undefined) return "the file";
  if (typeof last === "string") return `"${last}"`;
  const parent = path.at(-2);
  return typeof parent === "string" ? `item ${last} of "${parent}"` : `item ${last}`;
}

const TYPE_TEXT: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  record: "an object",
  array: "an array",
  null: "null",
};

function typeText(expected: string): string {
  return TYPE_TEXT[expected] ?? `a ${expected}`;
}

/** A value as a message shows it: primitives as written, containers by kind. */
function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (isObject(value)) return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}..."` : text;
}

function joinOr(items: readonly string[]): string {
  if (items.length <= 2) return items.join(" or ");
  return `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
