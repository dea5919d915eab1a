/**
 * Walking a value parsed from JSON: whether it is an object (not an array, not null), and what
 * lies at a path of keys and indices, as zod and JSON pointers name places in it.
 */

export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at `path`, undefined where a segment does not exist or does not fit the value. */
export function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === "number") current = current[segment];
    else if (isRecord(current) && typeof segment === "string") current = current[segment];
    else return undefined;
  }
  return current;
}
