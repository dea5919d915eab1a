/**
 * How long one answer of a model on a server may be. A server that is not told (`max_tokens`)
 * may generate until its context is full, and one that does not stop (a loop, a broken
 * template, a hostile proxy) would grow the agent's memory and the transcript without end. So
 * each request carries `max_tokens`, and what one reply may bring is capped in characters too,
 * for a server that does not keep to it.
 *
 * The one place the answer cap is decided: it is to become a setting.
 */

/** The fewest tokens an answer may take, however small the context. */
export const MIN_ANSWER_TOKENS = 512;

/**
 * The most characters a token is taken to hold when a reply is measured: well above what text
 * or code averages (3 to 5), so that a reply within its `max_tokens` is never cut by this.
 */
export const MAX_CHARS_PER_TOKEN = 12;

/** The `max_tokens` of a request, for a model whose context holds `contextSize` tokens. */
export function answerTokenCap(contextSize: number): number {
  return Math.max(MIN_ANSWER_TOKENS, Math.floor(contextSize / 4));
}

/**
 * The most characters a reply of at most `maxTokens` tokens may bring (its text, thoughts and
 * tool calls together) before it is cut.
 */
export function replyCharCap(maxTokens: number): number {
  return maxTokens * MAX_CHARS_PER_TOKEN;
}
