/**
 * What running one case produced: passed, failed (each failed expectation with what was expected
 * and what happened), or not runnable (bad input). Reporters read only these types.
 */

/** Where a case is written: the scenario file, and the case's line and JSON pointer in it. */
export interface CaseLocation {
  readonly file: string;
  readonly line: number;
  readonly pointer: string;
}

export interface ExpectationFailure {
  /** The expectation, as a path into the case's `expect` (e.g. `expect.reason`). */
  readonly path: string;
  readonly message: string;
  readonly expected: unknown;
  readonly actual: unknown;
  /** The line of that expectation in the scenario file, when known. */
  readonly line?: number;
}

/** What `--explain` prints for one firing: every registration, matched or not and why. */
export interface ExplainedFiring {
  readonly event: string;
  readonly matcherValue: string | null;
  readonly registrations: readonly {
    readonly id: string;
    readonly summary: string;
    readonly source: string;
    readonly matched: boolean;
    readonly why: string;
    /** The raw result of a hook that ran: exit code, output excerpts, duration. */
    readonly result?: Readonly<Record<string, unknown>>;
  }[];
  /** Which hook decided each part of the decision. */
  readonly decidedBy: Readonly<Record<string, string | readonly string[]>>;
}

/**
 * A shell command of a session case that got past hooks and permissions: answered by the
 * scripted terminal (nothing ran), or executed in the case's copy of the project (`execute`).
 */
export interface ShellCall {
  readonly command: string;
  readonly executed: boolean;
  /** The answer's code, or the real one; null when it did not end by itself (a timeout). */
  readonly exitCode: number | null;
}

export type CaseStatus = "passed" | "failed" | "error";

export interface CaseResult {
  readonly name: string;
  readonly kind: "event" | "session";
  readonly location: CaseLocation;
  readonly status: CaseStatus;
  readonly durationMs: number;
  readonly failures: readonly ExpectationFailure[];
  /** For `error`: why the case could not run (a bad payload, a missing fixture...). */
  readonly error?: string;
  readonly explain?: readonly ExplainedFiring[];
  /** Session cases: every shell command, in order, and whether it really ran. */
  readonly shellCalls?: readonly ShellCall[];
}

export interface RunSummary {
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
  readonly durationMs: number;
}
