/**
 * A session case's `expect` against what the session did: pure, over the observations the
 * runner gathered (firings, tool calls, what the model received, files, responses, updates).
 *
 * Semantics (beyond the schema's descriptions):
 * - `hooks` is the whole ordered list of firings that ran at least one hook; each entry checks
 *   its event, and its `matcher` value and `decision` when given. Firings are listed as they
 *   finished: Notification hooks run beside the turn, so they may finish after a later firing.
 * - `tools` is the whole ordered list of tool calls; `input` must equal the input exactly.
 * - `modelSaw` / `modelNeverSaw`: a string is searched as a substring of each piece the model
 *   received (system prompt, each prompt with its injected context, each assistant text and
 *   thought, each tool call's input JSON and result); a regex is tested against each piece.
 *   `evaluatorSaw` / `evaluatorNeverSaw` do the same over what the evaluator of prompt and agent
 *   hooks received (its system prompt, the hook's prompt with `$ARGUMENTS` filled in, an agent
 *   hook's own tool calls and results).
 * - `notices` is the whole ordered list; strings are exact. `agentText` is every prompt's agent
 *   message text joined, notices left out.
 * - `files`: content exact, or `{"matches"}` / `{"contains"}`; null means the file must not
 *   exist. Paths are relative to the case's copy of the project, where the session ran (the
 *   schema refuses absolute ones).
 * - `tools[].dispatched`: the call got past hooks and permissions; a shell call's command was
 *   then answered by the scripted terminal, or executed with `execute`.
 * - `meta`: each key of the last response's `_meta` named, a subset match (nested objects too),
 *   where `{"matches": "<regex>"}` is tested against a string.
 */
import type { StopReason } from "@agentclientprotocol/sdk";
import { capabilityOf, COMPAT_PROFILE_IDS, compatProfile } from "../../profile/compat_profile.ts";
import type { HookFiring } from "../../hooks/hook_engine.ts";
import {
  checkTextList,
  type DecisionName,
  decisionName,
  describeText,
  expectedPhrase,
  FailureList,
  jsonEqual,
  matchText,
  sameDecision,
  subsetMatch,
} from "./expectation_match.ts";
import {
  type SessionExpectation,
  type TextExpectation,
  textMatcherOf,
} from "../scenarios/scenario_schema.ts";

export interface ObservedTool {
  readonly toolCallId: string;
  /** As the model emitted it. */
  readonly name: string;
  /** It got `in_progress`: it ran. A call refused before dispatch never does. */
  readonly dispatched: boolean;
  /** The input it ran with (or would have run with). */
  readonly input: unknown;
  readonly status: "completed" | "failed" | null;
}

export interface SessionObservations {
  /** Every firing that ran at least one hook, as it finished. */
  readonly firings: readonly HookFiring[];
  readonly tools: readonly ObservedTool[];
  /** The distinct pieces of text the model received. */
  readonly modelTexts: readonly string[];
  /** The distinct pieces of text prompt and agent hooks' evaluator received (none: no script). */
  readonly evaluatorTexts: readonly string[];
  /** The files `expect.files` names: content, or null when absent. */
  readonly files: Readonly<Record<string, string | null>>;
  /** One per prompt, in order. */
  readonly responses: readonly {
    readonly stopReason: StopReason;
    readonly _meta?: Readonly<Record<string, unknown>> | null;
  }[];
  readonly notices: readonly string[];
  readonly agentText: string;
  /** The case ran its shell commands (`execute`); otherwise the scripted terminal answered them. */
  readonly shellExecuted: boolean;
}

export function checkSessionExpectations(
  expect: SessionExpectation,
  seen: SessionObservations,
  failures: FailureList,
): void {
  if (expect.hooks !== undefined) checkHooks(expect.hooks, seen.firings, failures);
  if (expect.tools !== undefined) {
    checkTools(expect.tools, seen.tools, seen.shellExecuted, failures);
  }
  const model = { field: "model", reader: "The model", texts: seen.modelTexts };
  checkReceived(expect.modelSaw, expect.modelNeverSaw, model, failures);
  const evaluator = {
    field: "evaluator",
    reader: "The evaluator of prompt and agent hooks",
    texts: seen.evaluatorTexts,
  };
  checkReceived(expect.evaluatorSaw, expect.evaluatorNeverSaw, evaluator, failures);
  for (const [path, expected] of Object.entries(expect.files ?? {})) {
    checkFile(path, expected, seen.files[path] ?? null, failures);
  }
  if (expect.stopReason !== undefined) checkStopReason(expect.stopReason, seen, failures);
  if (expect.meta !== undefined) checkMeta(expect.meta, seen.responses.at(-1)?._meta, failures);
  if (expect.notices !== undefined) {
    checkTextList("expect.notices", "notice", expect.notices, seen.notices, failures);
  }
  if (expect.agentText !== undefined) {
    failures.text("expect.agentText", "the agent's text", expect.agentText, seen.agentText);
  }
}

/** What one reader (the model, the evaluator) received, against `…Saw` and `…NeverSaw`. */
function checkReceived(
  saw: readonly TextExpectation[] | undefined,
  neverSaw: readonly TextExpectation[] | undefined,
  reader: { readonly field: string; readonly reader: string; readonly texts: readonly string[] },
  failures: FailureList,
): void {
  saw?.forEach((text, i) => {
    const path = `expect.${reader.field}Saw[${i}]`;
    const found = findText(text, reader.texts);
    if (!found.ok) failures.add(path, found.error, text, null);
    else if (!found.found) {
      failures.add(
        path,
        reader.texts.length > 0
          ? `${reader.reader} never received ${describeText(text, "contains")}`
          : `${reader.reader} received nothing, so never ${describeText(text, "contains")}`,
        text,
        reader.texts.length > 0 ? reader.texts.map(clip) : null,
      );
    }
  });
  neverSaw?.forEach((text, i) => {
    const path = `expect.${reader.field}NeverSaw[${i}]`;
    const found = findText(text, reader.texts);
    if (!found.ok) failures.add(path, found.error, text, null);
    else if (found.found) {
      failures.add(
        path,
        `${reader.reader} received ${describeText(text, "contains")}: ` +
          JSON.stringify(clip(found.in)),
        text,
        clip(found.in),
      );
    }
  });
}

/** One file of `expect.files`: null for absent, else its content exact or matched. */
function checkFile(
  path: string,
  expected: TextExpectation | null,
  actual: string | null,
  failures: FailureList,
): void {
  const at = `expect.files[${JSON.stringify(path)}]`;
  if (expected === null || actual === null) {
    if (expected === actual) return;
    const message = expected === null
      ? `Expected "${path}" not to exist, but it does`
      : `Expected "${path}" to exist, but it does not`;
    return failures.add(at, message, expected, actual);
  }
  const match = matchText(expected, actual);
  if (!match.ok) return failures.add(at, match.error, expected, actual);
  if (match.matched) return;
  const message = typeof expected === "string"
    ? `The content of "${path}" differs`
    : `Expected the content of "${path}" ${expectedPhrase(expected)}, but it does not`;
  failures.add(at, message, expected, actual);
}

function checkMeta(
  expected: NonNullable<SessionExpectation["meta"]>,
  meta: Readonly<Record<string, unknown>> | null | undefined,
  failures: FailureList,
): void {
  for (const [key, want] of Object.entries(expected)) {
    const present = meta != null && Object.hasOwn(meta, key);
    const actual = present ? meta[key] : undefined;
    if (present && subsetMatch(want, actual)) continue;
    const matcher = textMatcherOf(want);
    const wanted = matcher === null ? `to be ${JSON.stringify(want)}` : expectedPhrase(matcher);
    failures.add(
      `expect.meta[${JSON.stringify(key)}]`,
      `Expected the last response's _meta "${key}" ${wanted}, but ` +
        (present ? `it is ${JSON.stringify(actual)}` : "it has no such key"),
      want,
      present ? actual : null,
    );
  }
}

/** A firing as a scenario writes it: no "matcher" for an event that has no matcher value. */
interface WrittenFiring {
  readonly event: string;
  readonly matcher?: string | null;
  readonly decision?: DecisionName;
}

type FiringExpectation = NonNullable<SessionExpectation["hooks"]>[number];

function checkHooks(
  expected: readonly FiringExpectation[],
  firings: readonly HookFiring[],
  failures: FailureList,
): void {
  const actual: WrittenFiring[] = firings.map((f) => ({
    event: f.event,
    ...(f.matcherValue === null ? {} : { matcher: f.matcherValue }),
    decision: decisionName(f.event, f.decision.verdict),
  }));
  const differs = (i: number) => !firingAccepted(expected[i]!, actual[i]);
  const first = expected.findIndex((_, i) => differs(i));
  if (first === -1 && expected.length === actual.length) return;
  const at = first === -1 ? expected.length : first;
  const show = (f: WrittenFiring | undefined) =>
    f === undefined
      ? "nothing"
      : `${f.event}${f.matcher ? `(${f.matcher})` : ""}${f.decision ? ` → ${f.decision}` : ""}`;
  failures.add(
    "expect.hooks",
    `The hooks fired differ at position ${at + 1}: expected ${show(expected[at])}, got ${
      show(actual[at])
    } (${actual.length} firing(s) ran hooks, ${expected.length} expected)`,
    expected,
    actual.map((got, i) => asWritten(expected[i], got)),
  );
}

/** Whether `got` is the firing `want` describes; `"matcher": null` is an event without one. */
function firingAccepted(want: FiringExpectation, got: WrittenFiring | undefined): boolean {
  if (got === undefined || got.event !== want.event) return false;
  if (want.matcher !== undefined && want.matcher !== (got.matcher ?? null)) return false;
  return want.decision === undefined || sameDecision(want.decision, got.decision ?? "none");
}

/**
 * A firing as the failure shows it beside what the user wrote at its place, so the diff marks
 * only what differs: the expectation itself where it holds; the keys it names where the event is
 * the same; the whole firing where it is another event, or beyond the list.
 */
function asWritten(want: FiringExpectation | undefined, got: WrittenFiring): WrittenFiring {
  if (want === undefined || want.event !== got.event) return got;
  if (firingAccepted(want, got)) return want;
  return {
    event: got.event,
    ...(want.matcher === undefined ? {} : { matcher: got.matcher ?? null }),
    ...(want.decision === undefined ? {} : { decision: got.decision }),
  };
}

function checkTools(
  expected: NonNullable<SessionExpectation["tools"]>,
  tools: readonly ObservedTool[],
  shellExecuted: boolean,
  failures: FailureList,
): void {
  const actual = tools.map(({ name, dispatched, input, status }) => ({
    name,
    dispatched,
    input,
    status,
  }));
  if (expected.length !== actual.length) {
    failures.add(
      "expect.tools",
      `Expected ${expected.length} tool call(s), but the model made ${actual.length}` +
        (actual.length > 0 ? `: ${actual.map((t) => t.name).join(", ")}` : ""),
      expected,
      actual,
    );
  }
  expected.forEach((want, i) => {
    const got = actual[i];
    if (got === undefined) return;
    const path = `expect.tools[${i}]`;
    if (want.name !== got.name) {
      failures.add(
        `${path}.name`,
        `Expected tool call ${i + 1} to be "${want.name}", but it is "${got.name}"`,
        want.name,
        got.name,
      );
      return;
    }
    if (want.dispatched !== undefined && want.dispatched !== got.dispatched) {
      failures.add(
        `${path}.dispatched`,
        want.dispatched
          ? `Expected "${got.name}" (call ${i + 1}) to run, but it was refused before dispatch`
          : `Expected "${got.name}" (call ${i + 1}) not to run, but it ${
            ranHow(got.name, shellExecuted)
          }`,
        want.dispatched,
        got.dispatched,
      );
    }
    if (want.input !== undefined && !jsonEqual(want.input, got.input)) {
      failures.add(
        `${path}.input`,
        `The input of "${got.name}" (call ${i + 1}) differs`,
        want.input,
        got.input,
      );
    }
    if (want.status !== undefined && want.status !== got.status) {
      failures.add(
        `${path}.status`,
        `Expected "${got.name}" (call ${i + 1}) to end ${want.status}, but it ended ${
          got.status ?? "without a status"
        }`,
        want.status,
        got.status,
      );
    }
  });
}

/** What "it ran" meant for a dispatched call: a shell command may only have been answered. */
function ranHow(name: string, shellExecuted: boolean): string {
  // A dispatched call ran in the case's profile, so a shell name of either profile is that one's.
  const shell = COMPAT_PROFILE_IDS.some((id) => capabilityOf(compatProfile(id), name) === "shell");
  if (!shell) return "ran (in the case's copy of the project)";
  return shellExecuted
    ? "ran (executed in the case's copy of the project)"
    : "was dispatched (the scripted terminal answered it; nothing was executed)";
}

function checkStopReason(
  expected: NonNullable<SessionExpectation["stopReason"]>,
  seen: SessionObservations,
  failures: FailureList,
): void {
  const all = seen.responses.map((r) => r.stopReason);
  if (typeof expected === "string") {
    const last = all.at(-1) ?? null;
    if (last !== expected) {
      failures.add(
        "expect.stopReason",
        `Expected the stop reason "${expected}", but it is ${JSON.stringify(last)}`,
        expected,
        last,
      );
    }
  } else if (!jsonEqual(expected, all)) {
    failures.add(
      "expect.stopReason",
      `Expected the stop reasons ${JSON.stringify(expected)}, but they are ${JSON.stringify(all)}`,
      expected,
      all,
    );
  }
}

type Found =
  | { readonly ok: true; readonly found: false }
  | { readonly ok: true; readonly found: true; readonly in: string }
  | { readonly ok: false; readonly error: string };

function findText(
  expected: Parameters<typeof matchText>[0],
  pieces: readonly string[],
): Found {
  for (const piece of pieces) {
    const match = matchText(expected, piece, "contains");
    if (!match.ok) return match;
    if (match.matched) return { ok: true, found: true, in: piece };
  }
  return { ok: true, found: false };
}

/** Characters of one received text shown in a failure. */
const SHOWN_CHARS = 2000;

function clip(text: string): string {
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}
