/**
 * A request that does not fit the model's context: the prompt alone, or the prompt with room
 * for an answer. It is `AgentError` code `CONTEXT_FULL`, and carries the numbers where the model
 * or the server gave them, so that the caller can make the conversation smaller and try again.
 */
import { AgentError } from "../error.ts";

/** What is known of an overflow; a server that only says "too long" leaves both absent. */
export interface ContextOverflow {
  /** Tokens of the prompt that was refused. */
  readonly promptTokens?: number;
  /** Tokens the context holds. */
  readonly contextSize?: number;
}

export class ContextFullError extends AgentError {
  constructor(message: string, readonly overflow: ContextOverflow = {}) {
    super("CONTEXT_FULL", message);
  }
}

/** The overflow's numbers, for any error that is `CONTEXT_FULL`; undefined for any other. */
export function contextOverflowOf(error: unknown): ContextOverflow | undefined {
  if (error instanceof ContextFullError) return error.overflow;
  return error instanceof AgentError && error.code === "CONTEXT_FULL" ? {} : undefined;
}
