/**
 * A problem a JSON-schema check finds, and how it reads: what failed, then `at <JSON pointer>`,
 * e.g. `Missing required property "toolCallId" at /params/update`.
 */

/** One problem: where, what, and how deep (to choose the closest alternative of an `anyOf`). */
export interface Issue {
  readonly pointer: string;
  readonly message: string;
  readonly depth: number;
}

export function issue(pointer: string, message: string, extraDepth = 0): Issue {
  const depth = pointer === "" ? 0 : pointer.split("/").length - 1;
  return { pointer, message, depth: depth + extraDepth };
}

export function formatIssue(found: Issue): string {
  return `${found.message} at ${found.pointer === "" ? "(root)" : found.pointer}`;
}

/** A JSON-pointer token for a property name. */
export function escapePointer(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** The JSON type of a value, as problems name it (`integer` for whole numbers). */
export function typeName(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** A value for a problem message, clipped. */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
