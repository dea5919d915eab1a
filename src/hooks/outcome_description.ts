/**
 * One line saying what a hook's outcome meant, shared by `hooks run` and `hooks test --explain`
 * so both name an outcome the same way.
 */
import type { HookOutcome } from "./hook_outcome.ts";

export function describeOutcome(outcome: HookOutcome): string {
  switch (outcome.kind) {
    case "success":
      if (outcome.output !== null) return `success, JSON output ${JSON.stringify(outcome.output)}`;
      return outcome.text === null ? "success, no output" : "success, plain text";
    case "block":
      return `blocks (${outcome.cause}): ${outcome.reason}`;
    case "error":
      return `non-blocking error (${outcome.cause}${outcome.timedOut ? ", timed out" : ""}): ` +
        outcome.detail;
    default:
      return outcome satisfies never;
  }
}
