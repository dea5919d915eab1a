/**
 * How long one answer of a model may be. A server that is not told (`max_tokens`) may generate
 * until its context is full, and one that does not stop (a loop, a broken template, a hostile
 * proxy) would grow the agent's memory and the transcript without end. So each request carries
 * `max_tokens`, and what one reply may bring is capped in characters too, for a server that does
 * not keep to it.
 *
 * The one place the answer cap is decided: the request's `max_tokens`, the room a request keeps
 * free for its answer, when to compact and what a tool result may take all read it from here,
 * with the user's `--max-answer-tokens` where there is one.
 */

/** The fewest tokens an answer may take by default, however small the context. */
export const MIN_ANSWER_TOKENS = 512;

/**
 * The largest share of the context a set cap may take: the conversation keeps the rest, so a
 * cap set for a large context never leaves a small one without room for the prompt.
 */
export const MAX_ANSWER_SHARE = 0.5;

/**
 * The most characters a token is taken to hold when a reply is measured: well above what text
 * or code averages (3 to 5), so that a reply within its `max_tokens` is never cut by this.
 */
export const MAX_CHARS_PER_TOKEN = 12;

/**
 * The `max_tokens` of a request, for a model whose context holds `contextSize` tokens: the
 * user's `setting` (`--max-answer-tokens`) up to half the context, else a quarter of the context
 * and at least `MIN_ANSWER_TOKENS`.
 */
export function answerTokenCap(contextSize: number, setting?: number): number {
  const byDefault = Math.max(MIN_ANSWER_TOKENS, Math.floor(contextSize / 4));
  if (setting === undefined) return byDefault;
  return Math.min(setting, Math.max(byDefault, Math.floor(contextSize * MAX_ANSWER_SHARE)));
}

/**
 * The `max_tokens` of a request where the context size may be unknown (a scripted model
 * without one): the user's setting as it is then, else no cap.
 */
export function requestAnswerCap(
  contextSize: number | undefined,
  setting?: number,
): number | undefined {
  return contextSize === undefined ? setting : answerTokenCap(contextSize, setting);
}

/**
 * The smallest context that holds a prompt of `promptTokens` and an answer's cap after it. The
 * cap grows with the context, so the prompt plus the cap of a context too small is not enough.
 */
export function contextForPrompt(promptTokens: number, setting?: number): number {
  // Each step is at most the smallest size that holds both, since the cap only grows with the
  // size: the first step that fits is that size.
  let size = promptTokens;
  for (;;) {
    const needed = promptTokens + answerTokenCap(size, setting);
    if (needed <= size) return size;
    size = needed;
  }
}

/**
 * The most characters a reply of at most `maxTokens` tokens may bring (its text, thoughts and
 * tool calls together) before it is cut.
 */
export function replyCharCap(maxTokens: number): number {
  return maxTokens * MAX_CHARS_PER_TOKEN;
}
