/**
 * What `hooks test --explain` records for one firing: every registration of the event, matched
 * or not and why, each hook's raw result (as `hooks run` reads it), and which hook decided each
 * part of the decision. A hook is named by its registration id (`plugin:<id>:<pointer>` for a
 * plugin's) and its `file:line`.
 */
import type { HookDecision, Verdict } from "../../hooks/decision.ts";
import { summarizeHandler } from "../../hooks/handler_config.ts";
import type { CapturedStream } from "../../os/process/child_io.ts";
import type { HandlerResult } from "../../hooks/handler_result.ts";
import type { HookFiring, HookRun } from "../../hooks/hook_engine.ts";
import { describeOutcome } from "../../hooks/outcome_description.ts";
import type { Registration } from "../../hooks/registration.ts";
import type { Unmatched } from "../../hooks/registry.ts";
import type { ExplainedFiring } from "../scenarios/case_result.ts";

/** Characters of a hook's stdout or stderr kept in an explanation. */
export const EXPLAIN_EXCERPT_CHARS = 2000;

type Explained = ExplainedFiring["registrations"][number];

/**
 * `shownFile` turns a source file into the path the user knows (a plugin's copy in the case's
 * place into the real plugin dir); default: as it is.
 */
export function explainFiring(
  firing: HookFiring,
  unmatched: readonly Unmatched[],
  shownFile: (file: string) => string = (file) => file,
): ExplainedFiring {
  const identify = (registration: Registration) => ({
    id: registration.id,
    summary: summarizeHandler(registration.handler),
    source: `${shownFile(registration.source.file)}:${registration.source.line}`,
  });
  const entries: { order: number; entry: Explained }[] = [
    ...firing.runs.map((run) => ({
      order: run.registration.order,
      entry: {
        ...identify(run.registration),
        matched: true,
        why: whyMatched(run.registration, firing.matcherValue),
        result: rawResult(run),
      },
    })),
    ...unmatched.map(({ registration, reason }) => ({
      order: registration.order,
      entry: { ...identify(registration), matched: false, why: reason },
    })),
  ];
  return {
    event: firing.event,
    matcherValue: firing.matcherValue,
    registrations: entries.sort((a, b) => a.order - b.order).map(({ entry }) => entry),
    decidedBy: decidedBy(firing.decision),
  };
}

function whyMatched(registration: Registration, value: string | null): string {
  const rule = registration.ifRule;
  // Only a rule that held lets a hook run, so a hook that ran with an `if` says which.
  const andIf = rule === null ? "" : `, and if "${rule.source}" matches`;
  if (value === null) return `${registration.event} has no matcher value: every hook runs`;
  const source = registration.matcherSource;
  if (source === undefined || source === "" || source === "*") {
    return `matcher ${source === undefined ? "(none)" : `"${source}"`} matches everything${andIf}`;
  }
  return `matcher "${source}" matches "${value}"${andIf}`;
}

function rawResult(run: HookRun): Record<string, unknown> {
  const outcome = describeOutcome(run.outcome);
  const result: HandlerResult | null = run.result;
  if (result === null) return { kind: "runner_threw", outcome };
  switch (result.kind) {
    case "exited":
      return {
        kind: "exited",
        exitCode: result.exitCode,
        signal: result.signal,
        durationMs: result.durationMs,
        ...excerpts(result),
        outcome,
      };
    case "http":
      return {
        kind: "http",
        status: result.status,
        body: clip(result.body),
        durationMs: result.durationMs,
        outcome,
      };
    case "evaluated":
      return {
        kind: "evaluated",
        ok: result.ok,
        ...(result.reason === undefined ? {} : { reason: result.reason }),
        durationMs: result.durationMs,
        outcome,
      };
    case "failed":
      return {
        kind: "failed",
        failure: result.failure,
        message: result.message,
        durationMs: result.durationMs,
        ...excerpts(result),
        outcome,
      };
    default:
      return result satisfies never;
  }
}

function excerpts(streams: { stdout?: CapturedStream; stderr?: CapturedStream }) {
  const out: Record<string, unknown> = {};
  for (const name of ["stdout", "stderr"] as const) {
    const stream = streams[name];
    if (stream === undefined || (stream.text === "" && stream.discardedBytes === 0)) continue;
    out[name] = clip(stream.text);
    if (stream.discardedBytes > 0) out[`${name}DiscardedBytes`] = stream.discardedBytes;
  }
  return out;
}

function clip(text: string): string {
  return text.length > EXPLAIN_EXCERPT_CHARS
    ? `${text.slice(0, EXPLAIN_EXCERPT_CHARS)}… (${text.length - EXPLAIN_EXCERPT_CHARS} more)`
    : text;
}

function decidedBy(decision: HookDecision): Record<string, string | readonly string[]> {
  const out: Record<string, string | readonly string[]> = {};
  const verdictBy = votersOf(decision.verdict);
  if (verdictBy.length > 0) out["decision"] = verdictBy;
  if (decision.updatedInput) out["updatedInput"] = decision.updatedInput.by;
  if (decision.updatedToolOutput) out["updatedToolOutput"] = decision.updatedToolOutput.by;
  const lists = {
    context: decision.contexts,
    text: decision.texts,
    systemMessage: decision.systemMessages,
    errors: decision.errors,
    ignored: decision.ignored,
  };
  for (const [key, said] of Object.entries(lists)) {
    if (said.length > 0) out[key] = said.map((s) => s.by);
  }
  return out;
}

function votersOf(verdict: Verdict): string[] {
  switch (verdict.kind) {
    case "none":
      return [];
    case "allow":
    case "ask":
    case "defer":
      return verdict.votes.map((v) => v.by);
    case "block":
      return verdict.blocks.map((b) => b.by);
    case "stop":
      return [verdict.by];
    default:
      return verdict satisfies never;
  }
}
