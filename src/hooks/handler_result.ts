/**
 * What running one handler produced, before any interpretation: the raw facts that output
 * parsing turns into an outcome, and that `hooks run` and `hooks test --explain` print.
 */
import type { CapturedStream } from "../os/process/child_io.ts";
import type { CommandExit } from "../os/process/command_runner.ts";

export type HandlerResult =
  /** A command ran to its exit (or was killed by a signal it did not get from us). */
  | CommandExit
  /** An http hook got an answer. */
  | {
    readonly kind: "http";
    readonly status: number;
    readonly body: string;
    readonly durationMs: number;
  }
  /** A prompt or agent hook was answered by the evaluator. */
  | {
    readonly kind: "evaluated";
    readonly ok: boolean;
    readonly reason?: string;
    readonly durationMs: number;
  }
  /** The handler gave no answer: it timed out, could not start, lost its connection, ... */
  | {
    readonly kind: "failed";
    readonly failure: HandlerFailure;
    readonly message: string;
    readonly durationMs: number;
    /** Whatever a command wrote before it was killed. */
    readonly stdout?: CapturedStream;
    readonly stderr?: CapturedStream;
  };

export type HandlerFailure =
  | "timeout"
  | "spawn"
  | "network"
  /** An http hook's header cannot be sent (a line break in an expanded variable, ...). */
  | "invalid_header"
  | "no_evaluator"
  | "evaluator"
  | "cancelled";
