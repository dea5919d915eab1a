/**
 * How a session spends its context: when the conversation is compacted, how much of what is left
 * one tool result may take (both shares, so that one setting suits a 2k context and a 128k one
 * alike), and how long one answer may be (answer_cap.ts).
 */

export interface ContextBudgetSettings {
  /**
   * Compact before a request whose prompt would pass this share of the context (0 < x ≤ 1;
   * `--compact-threshold`).
   */
  readonly compactThreshold: number;
  /**
   * One tool result may take at most this share of the tokens still free in the context once
   * the answer's room is set aside (0 < x ≤ 1; `--tool-output-share`).
   */
  readonly toolOutputShare: number;
  /**
   * The most tokens one answer may take (`--max-answer-tokens`), kept free after every prompt;
   * a quarter of the context, at least 512, when absent (answer_cap.ts `answerTokenCap`).
   */
  readonly maxAnswerTokens?: number;
}

/** goose's default, and about where Claude Code compacts on its own. */
export const DEFAULT_COMPACT_THRESHOLD = 0.8;

/** Half of what is free: the next result still finds room, and the model room to answer. */
export const DEFAULT_TOOL_OUTPUT_SHARE = 0.5;

export const DEFAULT_CONTEXT_BUDGET: ContextBudgetSettings = {
  compactThreshold: DEFAULT_COMPACT_THRESHOLD,
  toolOutputShare: DEFAULT_TOOL_OUTPUT_SHARE,
};
