/**
 * A JSON-RPC 2.0 message as it comes off the wire: a request, a notification or a response, the
 * shapes the ACP SDK dispatches. Objects are loose (the SDK validates params per method), and
 * ACP has no batches.
 */
import { z } from "zod";
import type { AnyMessage, JsonRpcId } from "@agentclientprotocol/sdk";

const Id = z.union([z.string(), z.number().refine(Number.isFinite), z.null()]);
const JSONRPC = z.literal("2.0");
const ABSENT = z.never().optional();

/** What a request and a notification carry. */
const CALL = { jsonrpc: JSONRPC, method: z.string(), params: z.unknown().optional() };
/** What every response carries: no method, and exactly one of `result` and `error`. */
const ANSWER = { jsonrpc: JSONRPC, id: Id, method: ABSENT };

const Request = z.looseObject({ ...CALL, id: Id });
const Notification = z.looseObject({ ...CALL, id: ABSENT });
const ResultResponse = z.looseObject({ ...ANSWER, result: z.unknown(), error: ABSENT });
const ErrorResponse = z.looseObject({
  ...ANSWER,
  error: z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() }),
  result: ABSENT,
});

const JsonRpcMessage = z.union([Request, Notification, ResultResponse, ErrorResponse]);

/** A message the SDK can dispatch, or undefined when the value is none. */
export function parseJsonRpcMessage(value: unknown): AnyMessage | undefined {
  const parsed = JsonRpcMessage.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** A string or finite number: an id a request can be answered with. */
export function readableId(value: unknown): Exclude<JsonRpcId, null> | undefined {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value))
    ? value
    : undefined;
}

/** The key under which an id is tracked: `1` and `"1"` are different ids. */
export function idKey(id: JsonRpcId): string {
  return JSON.stringify(id);
}
