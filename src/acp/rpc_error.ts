/**
 * The one mapping from thrown values to JSON-RPC errors. Handlers throw `RequestError` for what
 * the client did wrong; anything else is our failure and goes out as -32603 with its message.
 */
import { RequestError } from "@agentclientprotocol/sdk";
import { AgentError, errorMessage } from "../error.ts";

export const SESSION_NOT_FOUND = -32002;

export function sessionNotFound(sessionId: string): RequestError {
  return new RequestError(SESSION_NOT_FOUND, `Session not found: "${sessionId}"`, { sessionId });
}

export function invalidParams(message: string): RequestError {
  return new RequestError(-32602, `Invalid params: ${message}`);
}

export function toRequestError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof AgentError) {
    return new RequestError(-32603, error.message, { code: error.code });
  }
  return new RequestError(-32603, `Internal error: ${errorMessage(error)}`);
}

/** Runs a handler body so that every failure leaves as a JSON-RPC error of the right kind. */
export async function answering<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw toRequestError(error);
  }
}
