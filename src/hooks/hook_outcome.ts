/**
 * What one handler's raw result means, per Claude Code's contract: a success (with JSON output
 * or plain text), a blocking answer, or a non-blocking error. Pure: the event only matters for
 * `onFailure:"block"`, which blocks on blockable events alone.
 */
import { errorMessage } from "../error.ts";
import { type FiredEventName, HOOK_EVENTS } from "./event_table.ts";
import { summarizeHandler } from "./handler_config.ts";
import type { CapturedStream } from "../os/process/child_io.ts";
import type { HandlerFailure, HandlerResult } from "./handler_result.ts";
import { commandReason, DEFAULT_BLOCK_REASON, NO_STDERR_OUTPUT } from "./hook_messages.ts";
import { type HookOutput, parseHookOutput } from "./hook_output.ts";
import { isRecord } from "./json_value_at.ts";
import type { Registration } from "./registration.ts";

/** Why a hook blocked: exit 2, a prompt/agent `ok:false`, or a failure under `onFailure:"block"`. */
export type BlockCause = "exit_2" | "ok_false" | "on_failure";

/** Why a hook gave no usable answer. */
export type ErrorCause =
  | HandlerFailure
  | "exit_code"
  | "signal"
  | "http_status"
  | "http_body"
  | "output_invalid"
  | "runner_threw";

export type HookOutcome =
  /** Exit 0, http 2xx or `ok:true`: the JSON output, or plain stdout, or neither. */
  | {
    readonly kind: "success";
    readonly registration: Registration;
    readonly output: HookOutput | null;
    /** Trimmed stdout that is not one JSON object; null when there is none. */
    readonly text: string | null;
  }
  | {
    readonly kind: "block";
    readonly registration: Registration;
    readonly cause: BlockCause;
    /** As messages quote it: `[<cmd>]: <stderr>` for exit 2 and failures, else the hook's reason. */
    readonly reason: string;
    /** The hook's own words: trimmed stderr, the evaluator's reason, or the failure. */
    readonly detail: string;
    /** For `on_failure`: the failure that blocked. */
    readonly failure: ErrorCause | null;
    readonly timedOut: boolean;
  }
  /** The action proceeds unchecked; `detail` is for the user, never the model. */
  | {
    readonly kind: "error";
    readonly registration: Registration;
    readonly cause: ErrorCause;
    readonly detail: string;
    readonly timedOut: boolean;
  };

// A user reads the detail in one notice; a 1 MiB stderr line must not become one.
const MAX_DETAIL_CHARS = 300;

export function interpretResult(
  event: FiredEventName,
  registration: Registration,
  result: HandlerResult,
): HookOutcome {
  switch (result.kind) {
    case "exited":
      return interpretExit(event, registration, result);
    case "http":
      return interpretHttp(event, registration, result.status, result.body);
    case "evaluated": {
      if (result.ok) return { kind: "success", registration, output: null, text: null };
      const reason = result.reason?.trim() || DEFAULT_BLOCK_REASON;
      return block(registration, "ok_false", reason, reason);
    }
    case "failed": {
      const detail = clip(oneLine(result.message)) || `The hook failed (${result.failure})`;
      return failure(event, registration, result.failure, detail);
    }
    default:
      return result satisfies never;
  }
}

/** A runner that threw instead of returning a result: a bug there, never a rejected firing. */
export function runnerThrewOutcome(
  event: FiredEventName,
  registration: Registration,
  error: unknown,
): HookOutcome {
  return failure(
    event,
    registration,
    "runner_threw",
    `The hook runner failed: ${errorMessage(error)}`,
  );
}

function interpretExit(
  event: FiredEventName,
  registration: Registration,
  result: Extract<HandlerResult, { kind: "exited" }>,
): HookOutcome {
  const stderrLine = firstLine(result.stderr);
  if (result.signal !== null) {
    return failure(
      event,
      registration,
      "signal",
      stderrLine || `Killed by signal ${result.signal}`,
    );
  }
  if (result.exitCode === 0) return interpretStdout(event, registration, result.stdout.text);
  if (result.exitCode === 2) {
    // Any stdout JSON is ignored on exit 2, as in Claude Code.
    const stderr = result.stderr.text.trim() || NO_STDERR_OUTPUT;
    if (!HOOK_EVENTS[event].readsExitTwo) return exitTwoUnread(event, registration, stderr);
    return block(registration, "exit_2", commandReason(commandOf(registration), stderr), stderr);
  }
  return failure(
    event,
    registration,
    "exit_code",
    stderrLine || `Exited with code ${result.exitCode}`,
  );
}

/**
 * Exit 2 where Claude Code reads no answer from it (PermissionRequest): an error the user is told
 * of, saying how to answer instead; the action goes on as if the hook had said nothing.
 */
function exitTwoUnread(
  event: FiredEventName,
  registration: Registration,
  stderr: string,
): HookOutcome {
  const detail = `Exit 2 decides nothing on ${event}, as in Claude Code (stderr: ` +
    `${JSON.stringify(clip(oneLine(stderr)))}): to refuse, exit 0 and print ` +
    `{"hookSpecificOutput": {"hookEventName": "${event}", "decision": {"behavior": "deny", ` +
    `"message": "<why>"}}}`;
  return { kind: "error", registration, cause: "exit_code", detail, timedOut: false };
}

function interpretStdout(
  event: FiredEventName,
  registration: Registration,
  stdout: string,
): HookOutcome {
  const trimmed = stdout.trim();
  if (trimmed === "") return { kind: "success", registration, output: null, text: null };
  // Stdout that starts with "{" is meant as JSON: one that does not parse (two objects, a log
  // line after it, a quote left unescaped) is a non-blocking error, as in Claude Code, not plain
  // text an event may quietly drop. Text before the object still makes it plain text.
  if (!trimmed.startsWith("{")) {
    return { kind: "success", registration, output: null, text: trimmed };
  }
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch (error) {
    return failure(event, registration, "output_invalid", notJsonDetail(error));
  }
  return isRecord(json)
    ? fromJsonOutput(event, registration, json)
    : { kind: "success", registration, output: null, text: trimmed };
}

/** Claude Code's words for stdout that looks like a JSON object and is not one. */
function notJsonDetail(error: unknown): string {
  return `Hook output looks like a JSON object but is not valid JSON — ${errorMessage(error)}. ` +
    "Emit the payload with a JSON encoder (jq, ConvertTo-Json, json.dumps) rather than string " +
    "concatenation so backslashes and quotes inside strings are escaped";
}

function interpretHttp(
  event: FiredEventName,
  registration: Registration,
  status: number,
  body: string,
): HookOutcome {
  const trimmed = body.trim();
  if (status < 200 || status > 299) {
    const line = clip(oneLine(trimmed));
    const detail = `The hook endpoint answered HTTP ${status}${line ? `: ${line}` : ""}`;
    return failure(event, registration, "http_status", detail);
  }
  if (trimmed === "") return { kind: "success", registration, output: null, text: null };
  const json = parseJsonObject(trimmed);
  if (json === null) {
    const detail = `The hook endpoint's answer is not a JSON object: ${
      JSON.stringify(clip(oneLine(trimmed)))
    }`;
    return failure(event, registration, "http_body", detail);
  }
  return fromJsonOutput(event, registration, json);
}

function fromJsonOutput(
  event: FiredEventName,
  registration: Registration,
  json: Record<string, unknown>,
): HookOutcome {
  const parsed = parseHookOutput(event, json);
  if (!parsed.ok) return failure(event, registration, "output_invalid", parsed.message);
  return { kind: "success", registration, output: parsed.output, text: null };
}

/**
 * A non-blocking error, unless the handler asked to fail closed (`onFailure:"block"`) and the
 * event can be blocked. Invalid output counts as a failure too: a fail-closed hook that answers
 * garbage must not let the action through.
 */
function failure(
  event: FiredEventName,
  registration: Registration,
  cause: ErrorCause,
  detail: string,
): HookOutcome {
  const timedOut = cause === "timeout";
  if (registration.handler.onFailure === "block" && HOOK_EVENTS[event].blockable) {
    return {
      kind: "block",
      registration,
      cause: "on_failure",
      reason: commandReason(commandOf(registration), detail),
      detail,
      failure: cause,
      timedOut,
    };
  }
  return { kind: "error", registration, cause, detail, timedOut };
}

function block(
  registration: Registration,
  cause: "exit_2" | "ok_false",
  reason: string,
  detail: string,
): HookOutcome {
  return { kind: "block", registration, cause, reason, detail, failure: null, timedOut: false };
}

/** The whole text as one JSON object, or null (text around it, arrays, invalid JSON, ...). */
function parseJsonObject(trimmed: string): Record<string, unknown> | null {
  // Most plain stdout is not JSON at all: skip the parse and its exception.
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** The hook's command string (`<cmd>` in messages); a url or prompt for the other kinds. */
export function commandOf(registration: Registration): string {
  return summarizeHandler(registration.handler);
}

function firstLine(stream: CapturedStream): string {
  return clip(oneLine(stream.text));
}

/** The first non-blank line, trimmed. */
function oneLine(text: string): string {
  // Walks line by line instead of splitting: stderr may be a capped megabyte.
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end === -1 ? text.length : end).trim();
    if (line !== "") return line;
    if (end === -1) break;
    start = end + 1;
  }
  return "";
}

function clip(text: string): string {
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS - 1)}…` : text;
}
