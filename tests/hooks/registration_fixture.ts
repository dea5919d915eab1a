/**
 * Hand-built registrations, and the raw results their handlers could produce, for the pure
 * tests of outcomes, decisions and the engine: no settings file, no process.
 */
import { combineOutcomes, type HookDecision } from "../../src/hooks/decision.ts";
import type { FiredEventName } from "../../src/hooks/event_table.ts";
import type { HandlerConfig } from "../../src/hooks/handler_config.ts";
import type { HandlerFailure, HandlerResult } from "../../src/hooks/handler_result.ts";
import { type HookOutcome, interpretResult } from "../../src/hooks/hook_outcome.ts";
import type { Registration } from "../../src/hooks/registration.ts";

export interface RegistrationOptions {
  readonly event?: FiredEventName;
  /** Chain position; also names the registration (`project:/hooks/<event>/0/hooks/<order>`). */
  readonly order?: number;
  readonly onFailure?: "block";
}

export function registration(
  handler: HandlerConfig,
  options: RegistrationOptions = {},
): Registration {
  const event = options.event ?? "PreToolUse";
  const order = options.order ?? 0;
  const pointer = `/hooks/${event}/0/hooks/${order}`;
  return {
    id: id(event, order),
    event,
    matcherSource: undefined,
    matcher: { kind: "all" },
    handler,
    ifRule: null,
    source: { scope: "project", file: "/project/.claude/settings.json", pointer, line: 1 + order },
    order,
  };
}

export function commandRegistration(
  command: string,
  options: RegistrationOptions = {},
): Registration {
  const handler: HandlerConfig = options.onFailure
    ? { type: "command", command, onFailure: options.onFailure }
    : { type: "command", command };
  return registration(handler, options);
}

export function httpRegistration(url: string, options: RegistrationOptions = {}): Registration {
  return registration({ type: "http", url }, options);
}

export function promptRegistration(
  prompt: string,
  options: RegistrationOptions = {},
): Registration {
  return registration({ type: "prompt", prompt }, options);
}

/** A command's exit: also what a stub `runCommand` answers, as a CommandRunResult. */
export function exited(
  exitCode: number,
  streams: { stdout?: string; stderr?: string; signal?: string } = {},
): Extract<HandlerResult, { readonly kind: "exited" }> {
  return {
    kind: "exited",
    exitCode,
    signal: streams.signal ?? null,
    stdout: { text: streams.stdout ?? "", discardedBytes: 0 },
    stderr: { text: streams.stderr ?? "", discardedBytes: 0 },
    durationMs: 5,
  };
}

/** Exit 0 with `value` as JSON on stdout. */
export function answered(value: unknown): HandlerResult {
  return exited(0, { stdout: JSON.stringify(value) + "\n" });
}

export function http(status: number, body = ""): HandlerResult {
  return { kind: "http", status, body, durationMs: 5 };
}

export function evaluated(ok: boolean, reason?: string): HandlerResult {
  return reason === undefined
    ? { kind: "evaluated", ok, durationMs: 5 }
    : { kind: "evaluated", ok, reason, durationMs: 5 };
}

export function failed(failure: HandlerFailure, message: string): HandlerResult {
  return { kind: "failed", failure, message, durationMs: 5 };
}

/** The id `registration()` gives hook number `order` of `event`. */
export function id(event: FiredEventName, order: number): string {
  return `project:/hooks/${event}/0/hooks/${order}`;
}

/** The outcome of hook number `order` (command `./hook<order>.sh`) of `event`. */
export function outcome(event: FiredEventName, order: number, result: HandlerResult): HookOutcome {
  const registration = commandRegistration(`./hook${order}.sh`, { event, order });
  return interpretResult(event, registration, result);
}

/** Combines `results`, each from the hook at its own index in the chain. */
export function decide(event: FiredEventName, results: readonly HandlerResult[]): HookDecision {
  return combineOutcomes(event, results.map((result, order) => outcome(event, order, result)));
}
