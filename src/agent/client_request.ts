/**
 * The narrow way the client-side tools reach the ACP client: one function that sends a request
 * and resolves with the client's answer. The ACP layer passes
 * `(method, params, options) => cx.request(method, params, options)`; tests pass a fake that
 * records calls. Answers are `unknown` and parsed by each caller, so a fake needs no casts and a
 * client that answers oddly gets a clear tool error instead of a crash.
 */
import { RequestError } from "@agentclientprotocol/sdk";
import type { ClientRequestParamsByMethod } from "@agentclientprotocol/sdk";

export type ClientToolMethod =
  | "fs/read_text_file"
  | "fs/write_text_file"
  | "terminal/create"
  | "terminal/wait_for_exit"
  | "terminal/output"
  | "terminal/kill"
  | "terminal/release";

export type ClientRequest = <M extends ClientToolMethod>(
  method: M,
  params: ClientRequestParamsByMethod[M],
  options?: { readonly signal?: AbortSignal },
) => Promise<unknown>;

/** ACP's "resource not found" (`RequestError.resourceNotFound`). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * Whether a client's error says the file does not exist. Clients differ: some answer -32002,
 * others an internal error carrying the OS message, so both are recognised.
 */
export function isNotFoundError(error: unknown): boolean {
  if (error instanceof RequestError && error.code === RESOURCE_NOT_FOUND) return true;
  const message = error instanceof Error ? error.message : String(error);
  return /not found|no such file|does not exist|ENOENT|os error 2\b/i.test(message);
}

/** A client error as the model should read it: its message, and its code when it has one. */
export function clientErrorMessage(error: unknown): string {
  if (error instanceof RequestError) return `${error.message} (error ${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
