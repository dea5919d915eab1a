/**
 * What a session case did, read back from the runner as `observed_event.ts` reads an event
 * case: a probe `expect` of empty lists, whose failures carry the whole observed lists (the
 * firings that ran hooks, the tool calls, every stop reason, the notices).
 */
import { isRecord } from "../../hooks/json_value_at.ts";
import type { CaseResult } from "../scenarios/case_result.ts";
import type { SessionExpectation } from "../scenarios/scenario_schema.ts";
import type { ObservedTool } from "../runner/session_expectations.ts";

export const SESSION_PROBE: SessionExpectation = {
  hooks: [],
  tools: [],
  stopReason: [],
  notices: [],
};

export interface ObservedFiring {
  readonly event: string;
  readonly matcher: string | null;
  readonly decision: string;
}

/** A tool call as the session probe's failure lists it (without its input). */
export type ObservedToolCall = Pick<ObservedTool, "name" | "dispatched" | "status">;

export interface ObservedSession {
  readonly hooks: readonly ObservedFiring[];
  readonly tools: readonly ObservedToolCall[];
  readonly stopReasons: readonly string[];
  readonly notices: readonly string[];
}

export type SessionObservation =
  | { readonly ok: true; readonly observed: ObservedSession }
  | { readonly ok: false; readonly error: string };

export function observedSession(result: CaseResult): SessionObservation {
  if (result.status === "error") return { ok: false, error: result.error ?? "it could not run" };
  const list = (path: string): readonly unknown[] => {
    const actual = result.failures.find((f) => f.path === path)?.actual;
    return Array.isArray(actual) ? actual : [];
  };
  return {
    ok: true,
    observed: {
      hooks: list("expect.hooks").filter(isRecord).map((f) => ({
        event: String(f["event"]),
        matcher: typeof f["matcher"] === "string" ? f["matcher"] : null,
        decision: String(f["decision"]),
      })),
      tools: list("expect.tools").filter(isRecord).map((t) => ({
        name: String(t["name"]),
        dispatched: t["dispatched"] === true,
        status: t["status"] === "completed" || t["status"] === "failed" ? t["status"] : null,
      })),
      stopReasons: list("expect.stopReason").map(String),
      notices: list("expect.notices").map(String),
    },
  };
}
