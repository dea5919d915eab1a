/**
 * An event case's `env` and `envFile` against what happened: the environment each command hook
 * was given, and what SessionStart hooks wrote to their `CLAUDE_ENV_FILE`s. Pure.
 *
 * - `env`: every command hook that ran must have been given each variable (a value, a regex,
 *   or `null` for not set). A case where no command hook ran fails: there is nothing to check,
 *   and passing would hide a matcher that never matched.
 * - `envFile`: the variables the files set, as a later shell call of the session gets them; a
 *   line that sets nothing is named in the failure of a variable it may have meant to set.
 */
import type { HookFiring } from "../../hooks/hook_engine.ts";
import { handlerText } from "../../hooks/handler_config.ts";
import { describeText, type FailureList, matchText } from "./expectation_match.ts";
import type { EventExpectation } from "../scenarios/scenario_schema.ts";

/** The whole environment a command hook's process got, by registration id. */
export type HookEnvs = ReadonlyMap<string, Readonly<Record<string, string>>>;

/** What a SessionStart firing's `CLAUDE_ENV_FILE`s set, read back once its hooks ended. */
export interface EnvFileReadBack {
  readonly values: ReadonlyMap<string, string>;
  /** Lines that set nothing and files that could not be read, as the session logs them. */
  readonly notes: readonly string[];
}

export function checkHookEnv(
  expected: NonNullable<EventExpectation["env"]>,
  firing: HookFiring,
  envs: HookEnvs,
  failures: FailureList,
): void {
  const commands = firing.runs.flatMap((run) => {
    const env = envs.get(run.registration.id);
    return env === undefined ? [] : [{ name: handlerText(run.registration.handler), env }];
  });
  if (commands.length === 0) {
    failures.add(
      "expect.env",
      `No command hook ran for ${firing.event}, so no environment can be checked: ` +
        'see "matched" or --explain for why',
      expected,
      null,
    );
    return;
  }
  for (const [variable, want] of Object.entries(expected)) {
    const path = `expect.env[${JSON.stringify(variable)}]`;
    for (const { name, env } of commands) {
      const actual = Object.hasOwn(env, variable) ? env[variable]! : null;
      const wrong = variableDiffers(want, actual);
      if (wrong === null) continue;
      failures.add(
        path,
        `Expected the hook "${name}" to be given ${variable} ${wrong}`,
        want,
        actual,
      );
      break;
    }
  }
}

export function checkEnvFile(
  expected: NonNullable<EventExpectation["envFile"]>,
  readBack: EnvFileReadBack,
  failures: FailureList,
): void {
  for (const [variable, want] of Object.entries(expected)) {
    const actual = readBack.values.get(variable) ?? null;
    const wrong = variableDiffers(want, actual);
    if (wrong === null) continue;
    const notes = actual === null && readBack.notes.length > 0
      ? ` (${readBack.notes.join("; ")})`
      : "";
    failures.add(
      `expect.envFile[${JSON.stringify(variable)}]`,
      `Expected the CLAUDE_ENV_FILEs to set ${variable} ${wrong}${notes}`,
      want,
      actual,
    );
  }
}

/** Null when `actual` is what was wanted; else the rest of a sentence saying how it is not. */
function variableDiffers(
  want: NonNullable<EventExpectation["env"]>[string],
  actual: string | null,
): string | null {
  if (want === null) {
    return actual === null ? null : `nothing, but it is ${JSON.stringify(actual)}`;
  }
  // A regex that does not compile matches nothing (the schema refuses one).
  const match = matchText(want, actual);
  if (match.ok && match.matched) return null;
  const is = actual === null ? "it is not set" : `it is ${JSON.stringify(actual)}`;
  return `${describeText(want)}, but ${is}`;
}
