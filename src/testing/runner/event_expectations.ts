/**
 * An event case's `expect` against one firing: pure, so every rule is tested without processes.
 *
 * Semantics (beyond the schema's descriptions):
 * - Strings are exact (`reason`, `context`, `systemMessage`, `stopReason`); `{"matches"}` is an
 *   unanchored regex. An absent value (no block, no context...) matches no expectation.
 * - `updatedInput: null` expects no rewrite; an object must equal the rewrite exactly.
 * - `exitCodes` lists the exit codes of hooks that ran and exited, in chain order: a hook that
 *   timed out, could not start or is not a command has none.
 * - `timedOut`: each named hook ran and timed out (other hooks may have too).
 * - A hook reference that names no hook of the settings at all is a failure of its own: a typo
 *   must not make `notMatched` pass.
 * - `context` and `notices` are what a session would make of the firing (session_view.ts):
 *   plain stdout counts as context where the event reads it.
 */
import type { HookFiring } from "../../hooks/hook_engine.ts";
import type { HookPayload } from "../../hooks/handler_runner.ts";
import type { Registry, Selection } from "../../hooks/registry.ts";
import { registrationId } from "../../hooks/registration_id.ts";
import { handlerText } from "../../hooks/handler_config.ts";
import type { EventExpectation } from "../scenarios/scenario_schema.ts";
import {
  checkTextList,
  decisionName,
  FailureList,
  jsonEqual,
  refersTo,
  sameDecision,
} from "./expectation_match.ts";
import {
  checkEnvFile,
  checkHookEnv,
  type EnvFileReadBack,
  type HookEnvs,
} from "./hook_env_expectations.ts";
import { hookLabel } from "./hook_label.ts";
import { contextOf, noticesOf } from "./session_view.ts";

/** What one event case's firing left to compare. */
export interface EventObservations {
  readonly firing: HookFiring;
  /** The completed payload the hooks read. */
  readonly payload: HookPayload;
  readonly selection: Selection;
  readonly registry: Registry;
  /** Each command hook's environment; recorded only when the case asserts `env`. */
  readonly hookEnvs?: HookEnvs;
  /** SessionStart: what the hooks' `CLAUDE_ENV_FILE`s set. */
  readonly envFile?: EnvFileReadBack;
}

export function checkEventExpectations(
  expect: EventExpectation,
  seen: EventObservations,
  failures: FailureList,
): void {
  const { firing, registry } = seen;
  const { decision } = firing;
  const verdict = decision.verdict;
  if (expect.decision !== undefined) {
    const actual = decisionName(firing.event, verdict);
    if (!sameDecision(expect.decision, actual)) {
      failures.add(
        "expect.decision",
        `Expected the decision "${expect.decision}", but it is "${actual}"`,
        expect.decision,
        actual,
      );
    }
  }
  if (expect.reason !== undefined) {
    const actual = verdict.kind === "block" ? verdict.reason : null;
    failures.text("expect.reason", "the reason", expect.reason, actual);
  }
  if (expect.context !== undefined) {
    failures.text("expect.context", "the context", expect.context, contextOf(decision));
  }
  if (expect.updatedInput !== undefined) {
    const actual = decision.updatedInput?.input ?? null;
    if (!jsonEqual(expect.updatedInput, actual)) {
      failures.add(
        "expect.updatedInput",
        expect.updatedInput === null
          ? "Expected no updatedInput, but a hook rewrote the input"
          : actual === null
          ? "Expected an updatedInput, but no hook rewrote the input"
          : "The updatedInput differs",
        expect.updatedInput,
        actual,
      );
    }
  }
  if (expect.systemMessage !== undefined) {
    const said = decision.systemMessages.map((s) => s.text);
    failures.text(
      "expect.systemMessage",
      "the systemMessage",
      expect.systemMessage,
      said.length === 0 ? null : said.join("\n"),
    );
  }
  if (expect.stopReason !== undefined) {
    const actual = verdict.kind === "stop" ? verdict.stopReason ?? "" : null;
    failures.text("expect.stopReason", "the stopReason", expect.stopReason, actual);
  }
  const known = knownHooks(registry);
  const ran = firing.runs.map((run) => run.registration);
  if (expect.matched !== undefined) {
    checkMatched(expect.matched, seen, known, failures);
  }
  expect.notMatched?.forEach((ref, i) => {
    const path = `expect.notMatched[${i}]`;
    if (!known.some((hook) => hook.refersTo(ref))) return unknownRef(failures, path, ref);
    const run = ran.find((registration) => refersTo(ref, registration));
    if (run !== undefined) {
      failures.add(
        path,
        `Expected "${ref}" not to run, but it ran (${run.id})`,
        ref,
        ran.map((r) => r.id),
      );
    }
  });
  if (expect.exitCodes !== undefined) {
    const actual = firing.runs.flatMap((run) =>
      run.result?.kind === "exited" ? [run.result.exitCode] : []
    );
    if (!jsonEqual(expect.exitCodes, actual)) {
      failures.add(
        "expect.exitCodes",
        `Expected the exit codes ${JSON.stringify(expect.exitCodes)}, but they are ${
          JSON.stringify(actual)
        }`,
        expect.exitCodes,
        actual,
      );
    }
  }
  expect.timedOut?.forEach((ref, i) => {
    const path = `expect.timedOut[${i}]`;
    if (!known.some((hook) => hook.refersTo(ref))) return unknownRef(failures, path, ref);
    const run = firing.runs.find((r) => refersTo(ref, r.registration));
    if (run === undefined) {
      failures.add(path, `Expected "${ref}" to time out, but it did not run`, ref, null);
    } else if (run.outcome.kind === "success" || !run.outcome.timedOut) {
      failures.add(
        path,
        `Expected "${ref}" to time out, but it finished (${run.outcome.kind})`,
        ref,
        run.outcome.kind,
      );
    }
  });
  if (expect.notices !== undefined) {
    checkTextList(
      "expect.notices",
      "notice",
      expect.notices,
      noticesOf(firing, seen.payload),
      failures,
    );
  }
  if (expect.env !== undefined) {
    checkHookEnv(expect.env, firing, seen.hookEnvs ?? new Map(), failures);
  }
  if (expect.envFile !== undefined) {
    checkEnvFile(expect.envFile, seen.envFile ?? { values: new Map(), notes: [] }, failures);
  }
  if (expect.errors !== undefined && expect.errors !== decision.errors.length) {
    failures.add(
      "expect.errors",
      `Expected ${expect.errors} non-blocking hook error(s), but there are ${decision.errors.length}` +
        (decision.errors.length > 0 ? `: ${decision.errors.map((e) => e.detail).join("; ")}` : ""),
      expect.errors,
      decision.errors.length,
    );
  }
}

function checkMatched(
  refs: readonly string[],
  { firing, selection, registry }: Pick<EventObservations, "firing" | "selection" | "registry">,
  known: readonly KnownHook[],
  failures: FailureList,
): void {
  let named = true;
  refs.forEach((ref, i) => {
    if (!known.some((hook) => hook.refersTo(ref))) {
      unknownRef(failures, `expect.matched[${i}]`, ref);
      named = false;
    }
  });
  if (!named) return;
  const ran = firing.runs.map((run) => run.registration);
  const same = ran.length === refs.length && refs.every((ref, i) => refersTo(ref, ran[i]!));
  if (same) return;
  const why = refs.flatMap((ref) => {
    if (ran.some((r) => refersTo(ref, r))) return [];
    const unmatched = selection.unmatched.find((u) => refersTo(ref, u.registration));
    return [`"${ref}" did not run: ${unmatched?.reason ?? `it is no hook of ${firing.event}`}`];
  });
  const shown = ran.map((r) => JSON.stringify(handlerText(r.handler)));
  failures.add(
    "expect.matched",
    `Expected exactly these hooks to run, in order: ${refs.map((r) => `"${r}"`).join(", ")}; ` +
      `${shown.length === 0 ? "none ran" : `these ran: ${shown.join(", ")}`}` +
      (why.length > 0 ? `; ${why.join("; ")}` : ""),
    refs,
    // As hooks init names them, so that --update writes what init would.
    ran.map((r) => hookLabel(r, registry.registrations)),
  );
}

interface KnownHook {
  refersTo(ref: string): boolean;
}

/** Every hook the settings name: registered, or not (disabled, an event that never fires). */
function knownHooks(registry: Registry): KnownHook[] {
  return [
    ...registry.registrations.map((registration) => ({
      refersTo: (ref: string) => refersTo(ref, registration),
    })),
    ...registry.notRegistered.map((entry) => ({
      refersTo: (ref: string) =>
        ref === registrationId(entry.source) ||
        (entry.handler !== undefined && handlerText(entry.handler).includes(ref)),
    })),
  ];
}

function unknownRef(failures: FailureList, path: string, ref: string): void {
  failures.add(
    path,
    `"${ref}" names no hook of the settings: give a part of its command, URL or prompt, or its id`,
    ref,
    null,
  );
}
