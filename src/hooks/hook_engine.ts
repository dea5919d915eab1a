/**
 * One firing of one event: run every selected registration in parallel, read each result, and
 * combine them into one decision. The outside world comes in through `runHandler` only, so the
 * engine runs the same in tests, in `hooks test` and in a session.
 */
import { combineOutcomes, type HookDecision, type OutputRules } from "./decision.ts";
import { FIRED_EVENTS, type FiredEventName } from "./event_table.ts";
import type { HandlerResult } from "./handler_result.ts";
import type {
  HandlerContext,
  HandlerRunner,
  HookEnvPreparer,
  HookPayload,
} from "./handler_runner.ts";
import { type HookOutcome, interpretResult, runnerThrewOutcome } from "./hook_outcome.ts";
import type { Registration } from "./registration.ts";

export interface FireHooksRequest {
  readonly event: FiredEventName;
  /** What matchers were tested against (the tool name, source, ...); null for unmatched events. */
  readonly matcherValue: string | null;
  readonly payload: HookPayload;
  /** Already selected for this firing and deduplicated, in chain order. */
  readonly registrations: readonly Registration[];
  readonly runHandler: HandlerRunner;
  readonly context: HandlerContext;
  /** Each hook's own `extraEnv`; without it every hook gets `context` as it is. */
  readonly hookEnv?: HookEnvPreparer;
  /** What of the hooks' JSON the session's profile reads; the source document's by default. */
  readonly outputRules?: OutputRules;
}

export interface HookRun {
  readonly registration: Registration;
  /** Null when the runner threw instead of returning a result; the outcome says why. */
  readonly result: HandlerResult | null;
  readonly outcome: HookOutcome;
}

export interface HookFiring {
  readonly event: FiredEventName;
  readonly matcherValue: string | null;
  /** In chain order, whatever order the handlers finished in. */
  readonly runs: readonly HookRun[];
  readonly decision: HookDecision;
}

const NO_RUNS: readonly HookRun[] = Object.freeze([]);

// Built once per event: firing with no hooks happens on every tool call and must cost nothing.
const NO_HOOKS_DECISIONS = new Map<FiredEventName, HookDecision>(
  FIRED_EVENTS.map((event) => [event, combineOutcomes(event, [])]),
);

/** Never rejects: a runner that throws becomes a non-blocking error (or a block, when fail-closed). */
export function fireHooks(request: FireHooksRequest): Promise<HookFiring> {
  const { event, matcherValue, registrations } = request;
  if (registrations.length === 0) return Promise.resolve(noHooksFiring(event, matcherValue));
  return fireAll(request);
}

/** The firing of an event no registration matched: no runs, and the decision of no hooks. */
export function noHooksFiring(event: FiredEventName, matcherValue: string | null): HookFiring {
  return {
    event,
    matcherValue,
    runs: NO_RUNS,
    decision: NO_HOOKS_DECISIONS.get(event) ?? combineOutcomes(event, []),
  };
}

async function fireAll(request: FireHooksRequest): Promise<HookFiring> {
  const { event, matcherValue, registrations } = request;
  // Promise.all keeps input order, so runs stay in chain order however the handlers race.
  const runs = await Promise.all(
    registrations.map((registration, position) => runOne(request, registration, position)),
  );
  const decision = combineOutcomes(event, runs.map((run) => run.outcome), request.outputRules);
  return { event, matcherValue, runs, decision };
}

async function runOne(
  request: FireHooksRequest,
  registration: Registration,
  position: number,
): Promise<HookRun> {
  const { event, payload, runHandler, hookEnv } = request;
  let result: HandlerResult;
  try {
    const context = hookEnv === undefined
      ? request.context
      : { ...request.context, extraEnv: await hookEnv(registration, position) };
    // Inside the try, a runner that throws synchronously is caught as well as one that rejects.
    result = await runHandler(registration, payload, context);
  } catch (error) {
    return { registration, result: null, outcome: runnerThrewOutcome(event, registration, error) };
  }
  return { registration, result, outcome: interpretResult(event, registration, result) };
}
