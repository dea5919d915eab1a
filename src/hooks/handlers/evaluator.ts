/**
 * `prompt` and `agent` hooks: a model judges the event and answers `{ok, reason?}`. The model is
 * behind the `Evaluator` interface; this file owns what is the same for every model: the
 * `$ARGUMENTS` substitution, the timeout, and turning every way of failing into a result.
 */
import { errorMessage } from "../../error.ts";
import {
  type AgentHandlerConfig,
  EVALUATED_TIMEOUT_SEC,
  type PromptHandlerConfig,
} from "../handler_config.ts";
import type { HandlerFailure, HandlerResult } from "../handler_result.ts";
import type { HandlerContext, HookPayload } from "../handler_runner.ts";

export interface EvaluationRequest {
  readonly kind: "prompt" | "agent";
  /** The hook's prompt with `$ARGUMENTS` already substituted. */
  readonly prompt: string;
  readonly payload: HookPayload;
  /** The session cwd: the only place an `agent` hook's read-only tools may look. */
  readonly cwd: string;
  /** Aborted on timeout or cancel: stop generating. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
}

export interface Evaluation {
  readonly ok: boolean;
  readonly reason?: string;
}

export interface Evaluator {
  evaluate(request: EvaluationRequest): Promise<Evaluation>;
}

export type EvaluatedHandlerConfig = PromptHandlerConfig | AgentHandlerConfig;

const ARGUMENTS = "$ARGUMENTS";

/**
 * Every `$ARGUMENTS` becomes the payload JSON; a prompt without one gets the JSON appended
 * after a blank line, so the model always sees the event.
 */
export function substituteArguments(prompt: string, payload: HookPayload): string {
  const json = JSON.stringify(payload);
  // split/join, not replaceAll: the JSON may hold `$&` or `$'`, which replaceAll would expand.
  return prompt.includes(ARGUMENTS) ? prompt.split(ARGUMENTS).join(json) : `${prompt}\n\n${json}`;
}

export function evaluatedTimeoutMs(handler: EvaluatedHandlerConfig): number {
  // Clamped like every hook timeout: setTimeout fires at once past 2^31 - 1 ms.
  return Math.min((handler.timeout ?? EVALUATED_TIMEOUT_SEC[handler.type]) * 1000, 2 ** 31 - 1);
}

/** Runs one prompt/agent hook; every failure is a `failed` result, never a throw. */
export async function runEvaluatedHandler(
  handler: EvaluatedHandlerConfig,
  payload: HookPayload,
  context: HandlerContext,
  evaluator: Evaluator | undefined,
): Promise<HandlerResult> {
  const started = performance.now();
  const failed = (failure: EvaluationFailure, message: string): HandlerResult => ({
    kind: "failed",
    failure,
    message,
    durationMs: elapsedSince(started),
  });
  const cancelled = `The "${handler.type}" hook was cancelled`;

  if (evaluator === undefined) {
    return failed(
      "no_evaluator",
      `"${handler.type}" hooks need a model; this command runs without one`,
    );
  }
  if (context.signal?.aborted) return failed("cancelled", cancelled);

  const timeoutMs = evaluatedTimeoutMs(handler);
  const controller = new AbortController();
  let stop: (why: "timeout" | "cancelled") => void = () => {};
  const stopped = new Promise<"timeout" | "cancelled">((resolve) => {
    stop = (why) => {
      resolve(why);
      controller.abort();
    };
  });
  const timer = setTimeout(() => stop("timeout"), timeoutMs);
  const onAbort = () => stop("cancelled");
  context.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    // An evaluator that ignores its signal may still settle later; that answer is dropped.
    const settled = await Promise.race([
      evaluate(evaluator, {
        kind: handler.type,
        prompt: substituteArguments(handler.prompt, payload),
        payload,
        cwd: context.cwd,
        signal: controller.signal,
        timeoutMs,
      }),
      stopped,
    ]);
    if (settled === "timeout") {
      return failed(
        "timeout",
        `The "${handler.type}" hook did not answer within ${timeoutMs / 1000} s`,
      );
    }
    if (settled === "cancelled") return failed("cancelled", cancelled);
    if ("error" in settled) {
      return failed("evaluator", `The "${handler.type}" hook's model failed: ${settled.error}`);
    }
    const { ok, reason } = settled.evaluation;
    return {
      kind: "evaluated",
      ok,
      ...(reason === undefined ? {} : { reason }),
      durationMs: elapsedSince(started),
    };
  } finally {
    clearTimeout(timer);
    context.signal?.removeEventListener("abort", onAbort);
  }
}

type EvaluationFailure = Extract<
  HandlerFailure,
  "no_evaluator" | "evaluator" | "timeout" | "cancelled"
>;

/** Never rejects: a throwing evaluator (even synchronously) becomes `{error}`. */
async function evaluate(
  evaluator: Evaluator,
  request: EvaluationRequest,
): Promise<{ evaluation: Evaluation } | { error: string }> {
  try {
    return { evaluation: await evaluator.evaluate(request) };
  } catch (error) {
    return { error: errorMessage(error) };
  }
}

function elapsedSince(started: number): number {
  return Math.round(performance.now() - started);
}
