/**
 * The few assertions the tests use (the standard library's are not reachable here).
 */
import { deepStrictEqual } from "node:assert";

export class AssertionError extends Error {
  override readonly name = "AssertionError";
}

export function assert(condition: unknown, message = "Expected a truthy value"): asserts condition {
  if (!condition) throw new AssertionError(message);
}

export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  try {
    deepStrictEqual(actual, expected);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new AssertionError(message ? `${message}\n${detail}` : detail);
  }
}

export function assertStringIncludes(actual: string, expected: string, message?: string): void {
  if (!actual.includes(expected)) {
    throw new AssertionError(
      `${message ? message + "\n" : ""}Expected ${JSON.stringify(actual)} to include ${JSON.stringify(expected)}`,
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

export async function assertRejects(fn: () => Promise<unknown>, message?: string): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new AssertionError(message ?? "Expected the promise to reject");
}
