/**
 * The contract between `hooks test`'s parts: what a run is asked to do, what it hands to the
 * reporters, and the problems that make a scenario file unusable (exit 2).
 */
import type { ProfileSetting } from "../../profile/compat_profile.ts";
import type { CaseResult, RunSummary } from "./case_result.ts";
import type { Shard } from "./case_shard.ts";

/** A scenario file that cannot be used: unreadable, not JSONC, or not matching the schema. */
export interface ScenarioProblem {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** JSON pointer of the offending value ("" for the whole file). */
  readonly pointer: string;
  readonly message: string;
}

export interface RunOptions {
  /** The repository whose `.claude` settings the cases run against. */
  readonly projectDir: string;
  /** Scenario files, absolute. */
  readonly files: readonly string[];
  /** Only cases whose name (or `file > name`) contains this text, or matches it as a regex. */
  readonly filter?: string;
  /** Stop starting cases after the first failure. */
  readonly bail?: boolean;
  /** `--shard I/N`: run only this slice of the cases the filter keeps. */
  readonly shard?: Shard;
  /** Record, per case, every registration matched or not and why, and each hook's raw result. */
  readonly explain?: boolean;
  /** Cases run at once (default: the core count). */
  readonly concurrency?: number;
  /**
   * The profile of cases whose file and case name none (`--compat`); absent or `"auto"`: each
   * such case decides from the hooks of its place, as a session would.
   */
  readonly profile?: ProfileSetting;
  /**
   * `--plugin-dir`: plugin directories (absolute) every case whose profile reads plugins (or is
   * decided, where they vote for the claude profile) loads, after the ones its scenario names.
   */
  readonly pluginDirs?: readonly string[];
  /** The outer environment: only the allowlist passes into the hermetic one. */
  readonly env: (name: string) => string | undefined;
  /**
   * Interrupts the run (Ctrl-C): no case starts after it aborts, and the running ones end at
   * once, their processes killed and their places removed, as errors that say so.
   */
  readonly signal?: AbortSignal;
  readonly onCaseStart?: (name: string, file: string) => void;
  readonly onCaseEnd?: (result: CaseResult) => void;
}

export interface RunResult {
  readonly results: readonly CaseResult[];
  readonly problems: readonly ScenarioProblem[];
  readonly summary: RunSummary;
  /** Cases the filter kept, in every shard together (a shard may run none of them). */
  readonly selected?: number;
}

/** What every reporter implements: small objects writing to a narrow sink. */
export interface Reporter {
  onRunStart?(info: { readonly files: number; readonly cases: number }): void;
  onCaseEnd?(result: CaseResult): void;
  onRunEnd(run: RunResult): void;
}

export interface ReporterOptions {
  readonly write: (text: string) => void;
  /** Colors only on a terminal. */
  readonly color: boolean;
  /** Print the explanation of every case (`--explain`). */
  readonly explain: boolean;
  /** Paths in output are shown relative to this directory. */
  readonly cwd: string;
  /** `--shard I/N`: the report says which slice it holds. */
  readonly shard?: Shard;
}
