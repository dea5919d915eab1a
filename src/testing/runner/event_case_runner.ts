/**
 * Runs one event case: the hooks of the case's cwd (read with the hermetic HOME), one firing of
 * its event with the partial payload completed, then `expect` compared with what happened —
 * the same steps as `hooks run`, in the case's hermetic place. The case's plugins (copied into
 * the place) load under its profile, and must load.
 *
 * Deterministic payload: `session_id` is `test-session-<n>` (n: the case's position in its
 * file), `transcript_path` an empty file in the temporary HOME, `prompt_id` `test-prompt-<n>`,
 * `permission_mode` that of the default policy, and a generated `tool_use_id` `toolu_test_<n>`.
 *
 * SessionStart hooks get a `CLAUDE_ENV_FILE` each, as in a session, read back once they end.
 *
 * `prompt` and `agent` hooks are not evaluated in event cases (there is no model): each gives a
 * non-blocking error saying so (a block, under `onFailure: "block"`). Session cases answer them
 * from `session.evaluator`.
 */
import { DEFAULT_PERMISSION_MODE } from "../../agent/permissions/permission_policy.ts";
import { sessionEnvDirFor } from "../../agent/shell/session_env_file.ts";
import { isFiredEvent, isHookEventName } from "../../hooks/event_table.ts";
import type { Evaluator } from "../../hooks/handlers/evaluator.ts";
import {
  createHandlerRunner,
  type HandlerRunnerOptions,
} from "../../hooks/handlers/handler_dispatch.ts";
import { fireHooks } from "../../hooks/hook_engine.ts";
import { completePayload } from "../../hooks/payload_defaults.ts";
import { permissionModeFor } from "../../hooks/payload.ts";
import { selectRegistrations } from "../../hooks/registry.ts";
import type { CaseResult } from "../scenarios/case_result.ts";
import { pluginLoadFailure, pluginsIgnored } from "./case_plugins.ts";
import {
  type CaseInput,
  erroredCase,
  finishedCase,
  inHermeticPlace,
  testSessionId,
} from "./case_input.ts";
import { EnvFileRecorder, type HookEnv, recordingEnvs } from "./event_case_env.ts";
import { checkEventExpectations } from "./event_expectations.ts";
import { FailureList } from "./expectation_match.ts";
import { explainFiring } from "./explain_firing.ts";
import { loadPlaceHooks } from "./hooks_cache.ts";
import type { HermeticPlace } from "./hermetic_env.ts";
import type { EventCase } from "../scenarios/scenario_schema.ts";
import { COMPAT_PROFILE_IDS, compatProfile } from "../../profile/compat_profile.ts";
import { chooseProfile } from "../../hooks/profile_choice.ts";
import type { ProfileDecision } from "../../hooks/profile_decision.ts";

/** Answers every prompt/agent hook of an event case with an error that says what to do. */
export const NO_MODEL_IN_EVENT_CASES: Evaluator = {
  evaluate: (request) =>
    Promise.reject(
      new Error(
        `"${request.kind}" hooks are not evaluated in event cases: ` +
          'test them in a session case with a "session.evaluator" script',
      ),
    ),
};

export async function runEventCase(input: CaseInput<EventCase>): Promise<CaseResult> {
  return await inHermeticPlace(
    input,
    "event",
    (place, started) => fireAndCheck(input, place, started),
  );
}

async function fireAndCheck(
  input: CaseInput<EventCase>,
  place: HermeticPlace,
  started: number,
): Promise<CaseResult> {
  const { spec, index } = input;
  const event = spec.event;
  // The case's profile, or the one its hooks decide (`auto`), from the run's cache.
  const { hooks, decision } = await chooseProfile(
    input.profile,
    (profile) => loadPlaceHooks(place, profile, input.hooksCache),
    { cwd: place.cwd, pluginDirs: place.pluginDirs, origin: '"compat"' },
  );
  const { profile } = decision;
  // The schema lists the events some profile fires; the case's profile must be one of them.
  if (!isFiredEvent(event, profile)) {
    return erroredCase(input, "event", started, notFiredMessage(event, decision));
  }
  if (place.pluginDirs.length > 0 && !profile.readsPlugins) {
    return erroredCase(input, "event", started, pluginsIgnored(decision));
  }
  const broken = pluginLoadFailure(hooks.loaded, place);
  if (broken !== null) return erroredCase(input, "event", started, broken);
  const sessionId = testSessionId(index);
  // A flat file: an event case has no session whose history it would hold, and five levels of
  // directories per case cost more than the hook itself.
  const transcriptPath = `${place.home}/${sessionId}.jsonl`;
  await Deno.writeTextFile(transcriptPath, "");
  const completed = completePayload(event, spec.input ?? {}, {
    sessionId,
    transcriptPath,
    cwd: place.cwd,
    promptId: `test-prompt-${index}`,
    permissionMode: permissionModeFor(DEFAULT_PERMISSION_MODE),
    effort: profile.effort,
    notifications: profile.notifications,
  }, () => `test_${index}`);
  if (!completed.ok) {
    return erroredCase(input, "event", started, `Invalid "input": ${completed.error}`);
  }

  const selection = selectRegistrations(hooks.registry, event, completed.matcherValue, {
    profile,
    projectDir: place.cwd,
    toolInput: completed.payload["tool_input"],
  });
  const runnerOptions: HandlerRunnerOptions = {
    baseEnv: place.env,
    evaluator: NO_MODEL_IN_EVENT_CASES,
    ...(input.killGraceMs === undefined ? {} : { killGraceMs: input.killGraceMs }),
    // Every process of a case ends with it, background children of hooks included.
    reapGroupOnExit: true,
  };
  // Only a case that asserts the environment pays for recording it.
  const hookEnvs = spec.expect.env === undefined ? undefined : new Map<string, HookEnv>();
  const envFiles = event === "SessionStart"
    ? await EnvFileRecorder.forFiring(sessionEnvDirFor(transcriptPath))
    : undefined;
  const firing = await fireHooks({
    event,
    matcherValue: completed.matcherValue,
    payload: completed.payload,
    outputRules: profile,
    registrations: selection.matched,
    runHandler: hookEnvs === undefined
      ? createHandlerRunner(runnerOptions)
      : recordingEnvs(runnerOptions, hookEnvs),
    ...(envFiles === undefined ? {} : { hookEnv: envFiles.hookEnv }),
    context: {
      event,
      cwd: place.cwd,
      sessionId,
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    },
  });
  const failures = new FailureList(input.location.pointer, input.lineOf);
  checkEventExpectations(spec.expect, {
    firing,
    payload: completed.payload,
    selection,
    registry: hooks.registry,
    ...(hookEnvs === undefined ? {} : { hookEnvs }),
    ...(envFiles === undefined ? {} : { envFile: await envFiles.readBack(place.env) }),
  }, failures);
  return finishedCase(input, "event", started, failures.failures, [
    explainFiring(firing, selection.unmatched, place.originalPath),
  ]);
}

/** Why an event case's event does not fire under its profile, and which profile fires it. */
function notFiredMessage(event: string, decision: ProfileDecision): string {
  const { profile } = decision;
  const elsewhere = isHookEventName(event)
    ? COMPAT_PROFILE_IDS.filter((id) => isFiredEvent(event, compatProfile(id)))
    : [];
  if (elsewhere.length === 0) return `"${event}" never fires`;
  const ids = elsewhere.map((id) => `"${id}"`).join(" or ");
  const why = decision.auto ? ` (${decision.reason})` : "";
  return `"${event}" does not fire in the "${profile.id}" profile${why}: set "compat": ${ids} ` +
    `in the case or its file, or run hooks test with --compat ${elsewhere[0]}`;
}
