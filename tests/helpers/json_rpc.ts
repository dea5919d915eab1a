/**
 * JSON-RPC 2.0 as the ACP test helpers see it: ids, error objects, a request's answer, and the
 * `RpcError` an `onRequest` handler throws to answer with an error.
 */
import { isObject, type JsonObject } from "./json_object.ts";

export type RequestId = string | number | null;

export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** The agent's answer to a request: `result`, or `error`. */
export type AcpResponse =
  | { readonly id: RequestId; readonly result: unknown; readonly error?: undefined }
  | { readonly id: RequestId; readonly result?: undefined; readonly error: RpcErrorObject };

/** Thrown by an `onRequest` handler to answer with a JSON-RPC error. */
export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

export function isRequestId(value: unknown): value is RequestId {
  return value === null || typeof value === "string" || typeof value === "number";
}

/**
 * The reply to a request: the handler's return value as `result` (`{}` for undefined); a thrown
 * `RpcError` becomes that error, anything else thrown `-32603`, no handler `-32601`.
 */
export async function replyTo(
  request: JsonObject,
  method: string,
  handler: ((params: unknown, request: JsonObject) => unknown) | undefined,
): Promise<JsonObject> {
  const id = isRequestId(request.id) ? request.id : null;
  try {
    if (handler === undefined) throw new RpcError(-32601, "Method not found", { method });
    return { jsonrpc: "2.0", id, result: await handler(request.params, request) ?? {} };
  } catch (error) {
    const rpc = error instanceof RpcError
      ? error
      : new RpcError(-32603, error instanceof Error ? error.message : String(error));
    return {
      jsonrpc: "2.0",
      id,
      error: {
        code: rpc.code,
        message: rpc.message,
        ...(rpc.data === undefined ? {} : { data: rpc.data }),
      },
    };
  }
}

/** The answer a response message carries: its `error` (fields coerced) or its `result`. */
export function responseOf(id: RequestId, message: JsonObject): AcpResponse {
  const error = message.error;
  if (!isObject(error)) return { id, result: message.result };
  return {
    id,
    error: {
      code: typeof error.code === "number" ? error.code : NaN,
      message: typeof error.message === "string" ? error.message : "",
      ...("data" in error ? { data: error.data } : {}),
    },
  };
}

/** Shortens a line for a failure message. */
export function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
