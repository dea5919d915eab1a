/**
 * How `hooks run` shows one firing: every hook that ran (where it is written, and its plugin if
 * it is a plugin's) with its raw result and what it meant, the registrations that did not run and
 * why, then the combined decision.
 */
import { displayPath } from "../display_path.ts";
import type { HookDecision, Verdict } from "../hooks/decision.ts";
import type { Diagnostic } from "../hooks/diagnostic.ts";
import { summarizeHandler } from "../hooks/handler_config.ts";
import type { CapturedStream } from "../os/process/child_io.ts";
import type { HandlerResult } from "../hooks/handler_result.ts";
import type { HookFiring, HookRun } from "../hooks/hook_engine.ts";
import { describeOutcome } from "../hooks/outcome_description.ts";
import type { Registration } from "../hooks/registration.ts";
import type { Selection } from "../hooks/registry.ts";
import type { SessionHooks } from "../hooks/session_hooks.ts";

export interface FiringReport {
  readonly cwd: string;
  readonly home: string | undefined;
  readonly hooks: SessionHooks;
  readonly selection: Selection;
  readonly firing: HookFiring;
  /** The problems `hooks lint` finds in the hooks (cli/hook_problems.ts). */
  readonly problems: readonly Diagnostic[];
}

const EXCERPT_LINES = 8;
const EXCERPT_CHARS = 600;

function text(report: FiringReport): string {
  const { firing, selection, hooks, cwd, home } = report;
  const where = ({ source }: Registration) =>
    (source.plugin === undefined ? "" : `plugin ${source.plugin.id}, `) +
    `${displayPath(source.file, cwd, home)}:${source.line}`;
  const value = firing.matcherValue === null ? "" : ` (matcher value "${firing.matcherValue}")`;
  const total = firing.runs.length + selection.unmatched.length;
  const out = [`${firing.event}${value}: ${firing.runs.length} of ${total} hooks ran`];
  if (hooks.loaded.disabledBy.length > 0) {
    out.push(`All hooks are off: "disableAllHooks": true in ${hooks.loaded.disabledBy.join(", ")}`);
  }
  firing.runs.forEach((run, index) => {
    const r = run.registration;
    out.push("", `[${index + 1}] ${r.handler.type}: ${summarizeHandler(r.handler)}`);
    out.push(`    from ${where(r)} (${r.id})`);
    out.push(...describeResult(run.result).map((line) => `    ${line}`));
    out.push(`    outcome: ${describeOutcome(run.outcome)}`);
  });
  if (selection.unmatched.length > 0) {
    out.push("", "Not run:");
    for (const { registration, reason } of selection.unmatched) {
      out.push(`  ${where(registration)}  ${reason}`);
    }
  }
  out.push("", ...describeDecision(firing.event, firing.decision));
  return out.join("\n") + "\n";
}

function describeResult(result: HandlerResult | null): string[] {
  if (result === null) return ["the runner failed before the hook produced a result"];
  switch (result.kind) {
    case "exited": {
      const how = result.signal ? `killed by ${result.signal}` : `exit ${result.exitCode}`;
      return [
        `${how} in ${Math.round(result.durationMs)} ms`,
        ...streamLines("stdout", result.stdout),
        ...streamLines("stderr", result.stderr),
      ];
    }
    case "http":
      return [
        `HTTP ${result.status} in ${Math.round(result.durationMs)} ms`,
        ...streamLines("body", { text: result.body, discardedBytes: 0 }),
      ];
    case "evaluated":
      return [
        `answered ok:${result.ok} in ${Math.round(result.durationMs)} ms`,
        ...(result.reason ? [`reason: ${result.reason}`] : []),
      ];
    case "failed":
      return [
        `${result.failure}: ${result.message} (after ${Math.round(result.durationMs)} ms)`,
        ...(result.stdout ? streamLines("stdout", result.stdout) : []),
        ...(result.stderr ? streamLines("stderr", result.stderr) : []),
      ];
    default:
      return result satisfies never;
  }
}

function streamLines(name: string, stream: CapturedStream): string[] {
  const trimmed = stream.text.trimEnd();
  if (trimmed === "" && stream.discardedBytes === 0) return [];
  let lines = trimmed.slice(0, EXCERPT_CHARS).split("\n");
  const cut = lines.length > EXCERPT_LINES || trimmed.length > EXCERPT_CHARS;
  lines = lines.slice(0, EXCERPT_LINES);
  if (cut) lines.push("…");
  if (stream.discardedBytes > 0) lines.push(`(${stream.discardedBytes} more bytes discarded)`);
  return [`${name}:`, ...lines.map((line) => `  | ${line}`)];
}

function describeVerdict(event: string, verdict: Verdict): string[] {
  switch (verdict.kind) {
    case "none":
      return ["Decision: none (the action proceeds)"];
    case "allow":
      return [`Decision: allow (by ${verdict.votes.map((v) => v.by).join(", ")})`];
    case "ask":
      return [`Decision: ask the user (by ${verdict.votes.map((v) => v.by).join(", ")})`];
    case "defer":
      return [
        `Decision: defer, the call is held and the turn ends (by ${
          verdict.votes.map((v) => v.by).join(", ")
        })`,
      ];
    case "block": {
      const word = event === "PreToolUse" ? "deny" : "block";
      return [
        `Decision: ${word} (by ${verdict.blocks.map((b) => b.by).join(", ")})`,
        ...verdict.reason.split("\n").map((line) => `  reason: ${line}`),
      ];
    }
    case "stop":
      return [
        `Decision: stop the turn, continue:false (by ${verdict.by})`,
        ...(verdict.stopReason ? [`  stopReason: ${verdict.stopReason}`] : []),
      ];
    default:
      return verdict satisfies never;
  }
}

function describeDecision(event: string, decision: HookDecision): string[] {
  const out = describeVerdict(event, decision.verdict);
  if (decision.updatedInput) {
    out.push(
      `  updatedInput (by ${decision.updatedInput.by}): ${
        JSON.stringify(decision.updatedInput.input)
      }`,
    );
  }
  if (decision.updatedToolOutput) {
    const { by, value, text } = decision.updatedToolOutput;
    out.push(
      typeof value === "string"
        ? `  updatedToolOutput, what the model reads (by ${by}): ${text}`
        // The tool tells a value of its own response's shape its own way (ToolKit.rewrittenOutput).
        : `  updatedToolOutput (by ${by}), read as the tool's own output if it has its ` +
          `tool_response's shape, else as this JSON: ${text}`,
    );
  }
  for (const said of decision.contexts) {
    out.push(`  additionalContext (by ${said.by}): ${said.text}`);
  }
  for (const said of decision.texts) {
    out.push(`  plain stdout for the model (by ${said.by}): ${said.text}`);
  }
  for (const said of decision.systemMessages) {
    out.push(`  systemMessage for the user (by ${said.by}): ${said.text}`);
  }
  for (const note of decision.errors) {
    out.push(
      `  hook error for the user (by ${note.by}${
        note.timedOut ? ", timed out" : ""
      }): ${note.detail}`,
    );
  }
  for (const said of decision.ignored) {
    out.push(`  ignored on ${event} (by ${said.by}): ${said.text}`);
  }
  return out;
}

function json(report: FiringReport) {
  const { firing, selection } = report;
  return {
    event: firing.event,
    matcherValue: firing.matcherValue,
    cwd: report.cwd,
    disabledBy: report.hooks.loaded.disabledBy,
    runs: firing.runs.map((run: HookRun) => ({
      id: run.registration.id,
      ...pluginOf(run.registration),
      source: run.registration.source,
      handler: run.registration.handler,
      result: run.result,
      outcome: { ...run.outcome, registration: undefined },
    })),
    notRun: selection.unmatched.map(({ registration, reason }) => ({
      id: registration.id,
      ...pluginOf(registration),
      reason,
    })),
    decision: firing.decision,
    diagnostics: report.problems,
  };
}

/** The plugin id of a plugin's hook, for the JSON report; nothing for a settings hook. */
function pluginOf({ source }: Registration): { plugin?: string } {
  return source.plugin === undefined ? {} : { plugin: source.plugin.id };
}

export const renderFiring = { text, json };
