/**
 * What a runner needs to run one case, and the one way a runner turns what happened into a
 * `CaseResult` (a case that cannot run is an `error`, never a thrown exception).
 */
import { errorMessage } from "../../error.ts";
import type {
  CaseLocation,
  CaseResult,
  ExpectationFailure,
  ExplainedFiring,
} from "../scenarios/case_result.ts";
import { PLUGINS_NEED_CLAUDE } from "./case_plugins.ts";
import { createHermeticPlace, type HermeticPlace, type Placement } from "./hermetic_env.ts";
import type { HooksCache } from "./hooks_cache.ts";
import type { ScenarioCase } from "../scenarios/scenario_schema.ts";
import type { ProfileSetting } from "../../profile/compat_profile.ts";

export interface CaseInput<C extends ScenarioCase> {
  readonly spec: C;
  readonly location: CaseLocation;
  /** The scenario file's placement with the case's over it, paths absolute. */
  readonly placement: Placement;
  /** The repository whose settings the case runs against. */
  readonly projectDir: string;
  /**
   * How the agent presents itself to the case's hooks: the case's, the file's, or the run's;
   * `"auto"`: decided from the hooks of the case's place, as a session there would.
   */
  readonly profile: ProfileSetting;
  /** The outer environment: only the allowlist reaches hooks. */
  readonly outerEnv: (name: string) => string | undefined;
  /** 1-based position of the case in its file: its session id is `test-session-<index>`. */
  readonly index: number;
  readonly explain: boolean;
  /** The line of a JSON pointer in the scenario file, for failures. */
  readonly lineOf?: (pointer: string) => number | undefined;
  /** SIGTERM-to-SIGKILL grace of hook processes; tests shorten it. */
  readonly killGraceMs?: number;
  /** The run's interruption: the case then ends at once (see `inHermeticPlace`). */
  readonly signal?: AbortSignal;
  /** The run's hooks, read once for the cases that run in the project with an empty HOME. */
  readonly hooksCache?: HooksCache;
}

/** What a case that was running when the run was interrupted reports. */
export const INTERRUPTED = "Interrupted: the run was stopped before this case finished";

/** Deterministic ids: hooks see the same session id on every run. */
export function testSessionId(index: number): string {
  return `test-session-${index}`;
}

export function finishedCase(
  input: CaseInput<ScenarioCase>,
  kind: CaseResult["kind"],
  started: number,
  failures: readonly ExpectationFailure[],
  explain: readonly ExplainedFiring[] | undefined,
): CaseResult {
  return {
    name: input.spec.name,
    kind,
    location: input.location,
    status: failures.length === 0 ? "passed" : "failed",
    durationMs: Math.round(performance.now() - started),
    failures,
    ...(input.explain && explain !== undefined ? { explain } : {}),
  };
}

export function erroredCase(
  input: CaseInput<ScenarioCase>,
  kind: CaseResult["kind"],
  started: number,
  error: unknown,
  explain?: readonly ExplainedFiring[],
): CaseResult {
  return {
    name: input.spec.name,
    kind,
    location: input.location,
    status: "error",
    durationMs: Math.round(performance.now() - started),
    failures: [],
    error: typeof error === "string" ? error : errorMessage(error),
    ...(input.explain && explain !== undefined ? { explain } : {}),
  };
}

/**
 * Runs a case's body in a hermetic place of its own, removed afterwards; a place that cannot be
 * made (or plugin dirs under a profile that reads no plugins), or a body that throws, makes the
 * case an `error` with the reason. The body stops its
 * processes when `input.signal` aborts; whatever it then returns, the case is `INTERRUPTED`.
 */
export async function inHermeticPlace<C extends ScenarioCase>(
  input: CaseInput<C>,
  kind: "event" | "session",
  body: (place: HermeticPlace, started: number) => Promise<CaseResult>,
): Promise<CaseResult> {
  const started = performance.now();
  const forced = input.profile === "auto" ? undefined : input.profile;
  if ((input.placement.pluginDirs?.length ?? 0) > 0 && forced?.readsPlugins === false) {
    return erroredCase(input, kind, started, PLUGINS_NEED_CLAUDE);
  }
  let place: HermeticPlace;
  try {
    place = await createHermeticPlace({
      projectDir: input.projectDir,
      placement: input.placement,
      outerEnv: input.outerEnv,
    });
  } catch (error) {
    return erroredCase(input, kind, started, error);
  }
  try {
    const result = await body(place, started);
    return input.signal?.aborted ? erroredCase(input, kind, started, INTERRUPTED) : result;
  } catch (error) {
    return erroredCase(input, kind, started, input.signal?.aborted ? INTERRUPTED : error);
  } finally {
    await place.dispose();
  }
}
