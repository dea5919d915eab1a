/**
 * The narrow way the client-side tools reach the ACP client: one function that sends a request
 * and resolves with the client's answer. The ACP layer passes
 * `(method, params, options) => cx.request(method, params, options)`; tests pass a fake that
 * records calls. Answers are `unknown` and parsed by each caller, so a fake needs no casts and a
 * client that answers oddly gets a clear tool error instead of a crash.
 */
import { RequestError } from "@agentclientprotocol/sdk";
import type { ClientRequestParamsByMethod } from "@agentclientprotocol/sdk";
import { errorMessage } from "../error.ts";

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
 * Codes that mean something else, whatever their text says: JSON-RPC's parse error, invalid
 * request, "Method not found" and invalid params, and ACP's cancelled request.
 */
const NEVER_A_MISSING_FILE = new Set([-32700, -32600, -32601, -32602, -32800]);

/** How operating systems and runtimes say that a file is not there. */
const MISSING_FILE_TEXT =
  /not found|no such file|does not exist|ENOENT|os error 2\b|cannot find the (file|path)/i;

/**
 * Whether a client's error says the file does not exist. Clients differ: acpx answers -32002;
 * a client built on the ACP SDK whose handler throws (Node's `ENOENT: no such file or
 * directory, open '…'`, Deno's `No such file or directory (os error 2): …`) answers -32603,
 * "Internal error", with the thrown message in `data.details`; Zed puts the OS message in `data`
 * itself. So -32002 is a missing file; an internal error (or a client's own code) is one when
 * its message or data says so, and not otherwise; a JSON-RPC code with another meaning never is.
 */
export function isNotFoundError(error: unknown): boolean {
  if (!(error instanceof RequestError)) return MISSING_FILE_TEXT.test(errorMessage(error));
  if (error.code === RESOURCE_NOT_FOUND) return true;
  if (NEVER_A_MISSING_FILE.has(error.code)) return false;
  return [error.message, ...detailTexts(error.data)].some((text) => MISSING_FILE_TEXT.test(text));
}

/** A client error as the model should read it: its message, what its data says, its code. */
export function clientErrorMessage(error: unknown): string {
  if (!(error instanceof RequestError)) return errorMessage(error);
  const details = detailTexts(error.data).filter((text) => !error.message.includes(text));
  const said = details.length === 0 ? error.message : `${error.message}: ${details.join("; ")}`;
  return `${said} (error ${error.code})`;
}

/**
 * The words in an error's `data`: the string itself, or an object's `details` (the ACP SDK's
 * wrapping of a thrown error), `message` and `code` (`"ENOENT"`) strings.
 */
function detailTexts(data: unknown): string[] {
  if (typeof data === "string") return [data];
  if (typeof data !== "object" || data === null || Array.isArray(data)) return [];
  const texts: string[] = [];
  for (const key of ["details", "message", "code"]) {
    const value: unknown = Object.getOwnPropertyDescriptor(data, key)?.value;
    if (typeof value === "string") texts.push(value);
  }
  return texts;
}
