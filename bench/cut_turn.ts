/**
 * One generation cut a fixed time after its first streamed text, as both sides of the throughput
 * comparison run it. A cut is needed because the agent asks for up to a context's worth of tokens
 * and the random-weights model never ends its turn: left alone, a turn would run through context
 * shifts (with the agent's ~1000-token tool prompt, the shift fails unless the context is large,
 * and then a turn takes minutes on one thread).
 */

export interface CutTurn {
  /** From the request (or context creation) to the answer. */
  readonly wallMs: number;
  /** From the first streamed text to the answer: the decode phase. */
  readonly decodeMs: number;
  /** `{prompt, evaluated, generated}` as the llama backend counts them (its token meter). */
  readonly tokens: {
    readonly prompt: number;
    readonly evaluated: number;
    readonly generated: number;
  };
}

/** Milliseconds per generated token over the whole turn or its decode phase. */
export function msPerToken(turn: CutTurn, phase: "wall" | "decode"): number {
  return (phase === "wall" ? turn.wallMs : turn.decodeMs) / turn.tokens.generated;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
