/**
 * The few assertions the tests use (the standard library's are not reachable here).
 */

export class AssertionError extends Error {
  override readonly name = "AssertionError";
}

export function assert(condition: unknown, message = "Expected a truthy value"): asserts condition {
  if (!condition) throw new AssertionError(message);
}

export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  if (deepEqual(actual, expected)) return;
  const show = (value: unknown) => Deno.inspect(value, { depth: 10, sorted: true, colors: false });
  const detail = `Expected values to be strictly deep-equal:\nactual:   ${show(actual)}\n` +
    `expected: ${show(expected)}`;
  throw new AssertionError(message ? `${message}\n${detail}` : detail);
}

/**
 * Strict structural equality in the manner of `node:assert`'s `deepStrictEqual` (same
 * prototypes, same own keys, `Object.is` for primitives). Written here because importing
 * `node:assert` makes `deno check` look for `@types/node`, which this project does not install.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Date && b instanceof Date) return Object.is(a.getTime(), b.getTime());
  if (a instanceof RegExp && b instanceof RegExp) return String(a) === String(b);
  if (a instanceof Error && b instanceof Error && (a.name !== b.name || a.message !== b.message)) {
    return false;
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [key, value] of a) if (!b.has(key) || !deepEqual(value, b.get(key))) return false;
    return true;
  }
  if (a instanceof Set && b instanceof Set) {
    if (a.size !== b.size) return false;
    const rest = [...b];
    for (const item of a) {
      const index = rest.findIndex((other) => deepEqual(item, other));
      if (index < 0) return false;
      rest.splice(index, 1);
    }
    return true;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) =>
    Object.hasOwn(b, key) &&
    deepEqual(Reflect.get(a, key), Reflect.get(b, key))
  );
}

export function assertStringIncludes(actual: string, expected: string, message?: string): void {
  if (!actual.includes(expected)) {
    throw new AssertionError(
      `${message ? message + "\n" : ""}Expected ${JSON.stringify(actual)} to include ${
        JSON.stringify(expected)
      }`,
    );
  }
}

export function assertMatch(actual: string, pattern: RegExp, message?: string): void {
  if (!pattern.test(actual)) {
    throw new AssertionError(
      `${message ? message + "\n" : ""}Expected ${JSON.stringify(actual)} to match ${pattern}`,
    );
  }
}

export function assertLess(actual: number, limit: number, message?: string): void {
  if (!(actual < limit)) {
    throw new AssertionError(`${message ? message + ": " : ""}expected ${actual} < ${limit}`);
  }
}

export async function assertRejects(
  fn: () => Promise<unknown>,
  message?: string,
): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new AssertionError(message ?? "Expected the promise to reject");
}

/** Like `assertRejects`, and the rejection must be an instance of `errorClass`. */
export async function assertRejectsWith<E extends Error>(
  fn: () => Promise<unknown>,
  // deno-lint-ignore no-explicit-any
  errorClass: new (...args: any[]) => E,
): Promise<E> {
  const error = await assertRejects(fn);
  if (!(error instanceof errorClass)) {
    throw new AssertionError(`Expected a ${errorClass.name}, got ${error}`);
  }
  return error;
}

/** `fn` throws an `errorClass` whose message includes `messageIncludes`; returns the error. */
export function assertThrows<E extends Error>(
  fn: () => unknown,
  // deno-lint-ignore no-explicit-any
  errorClass: new (...args: any[]) => E,
  messageIncludes = "",
): E {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  if (!(thrown instanceof errorClass)) {
    throw new AssertionError(`Expected a ${errorClass.name} to be thrown, got ${thrown}`);
  }
  assertStringIncludes(thrown.message, messageIncludes);
  return thrown;
}
