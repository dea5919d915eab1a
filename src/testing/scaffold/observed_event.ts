/**
 * What an event case's hooks did, read back from the runner itself: the case runs with a probe
 * `expect` whose every expectation either holds for exactly one known outcome or never holds,
 * so each failure's `actual` (or its absence) is the observed value. The firing then goes
 * through the very code `hooks test` runs (hermetic place, payload, selection, checks), and
 * what init writes is what that code will compare.
 */
import { isRecord } from "../../hooks/json_value_at.ts";
import type { CaseResult, ExplainedFiring } from "../scenarios/case_result.ts";
import type { EventExpectation } from "../scenarios/scenario_schema.ts";

/** A regex that matches nothing: the failure then always carries the actual text. */
const NEVER = { matches: "(?!)" } as const;
/** More hook errors than any case has: the failure always carries the count. */
const NO_COUNT = 1_000_000;

export const EVENT_PROBE: EventExpectation = {
  decision: "none",
  reason: NEVER,
  context: NEVER,
  systemMessage: NEVER,
  stopReason: NEVER,
  updatedInput: null,
  matched: [],
  exitCodes: [-1],
  errors: NO_COUNT,
};

export interface ObservedEvent {
  readonly decision: string;
  readonly reason: string | null;
  readonly context: string | null;
  readonly systemMessage: string | null;
  readonly stopReason: string | null;
  readonly updatedInput: Readonly<Record<string, unknown>> | null;
  /** The hooks that ran, in chain order, as references the way `expect.matched` reports them. */
  readonly matched: readonly string[];
  readonly exitCodes: readonly number[];
  readonly errors: number;
  /** The firing as `--explain` records it: who decided, each hook's raw result. */
  readonly explain: ExplainedFiring | undefined;
}

export type EventObservation =
  | { readonly ok: true; readonly observed: ObservedEvent }
  | { readonly ok: false; readonly error: string };

/** The observation of a case run with `EVENT_PROBE` (and `explain`). */
export function observedEvent(result: CaseResult): EventObservation {
  if (result.status === "error") return { ok: false, error: result.error ?? "it could not run" };
  const actual = (path: string): { found: boolean; value: unknown } => {
    const failure = result.failures.find((f) => f.path === path);
    return failure === undefined
      ? { found: false, value: undefined }
      : { found: true, value: failure.actual };
  };
  const text = (path: string): string | null => {
    const { value } = actual(path);
    return typeof value === "string" ? value : null;
  };
  const decision = actual("expect.decision");
  const updated = actual("expect.updatedInput");
  const matched = actual("expect.matched");
  const exitCodes = actual("expect.exitCodes").value;
  const errors = actual("expect.errors");
  return {
    ok: true,
    observed: {
      decision: decision.found ? String(decision.value) : "none",
      reason: text("expect.reason"),
      context: text("expect.context"),
      systemMessage: text("expect.systemMessage"),
      stopReason: text("expect.stopReason"),
      updatedInput: updated.found && isRecord(updated.value) ? updated.value : null,
      matched: matched.found && Array.isArray(matched.value) ? matched.value.map(String) : [],
      exitCodes: Array.isArray(exitCodes) ? exitCodes.filter((c) => typeof c === "number") : [],
      errors: errors.found && typeof errors.value === "number" ? errors.value : NO_COUNT,
      explain: result.explain?.[0],
    },
  };
}
