/**
 * A JSON-RPC 2.0 message as it comes off the wire: a request, a notification or a response, the
 * shapes the ACP SDK dispatches. Objects are loose (the SDK validates params per method), and
 * ACP has no batches.
 */
import { z } from "zod";
import type { AnyMessage, JsonRpcId } from "@agentclientprotocol/sdk";

const Id = z.union([z.string(), z.number().refine(Number.isFinite), z.null()]);

const Request = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: Id,
  method: z.string(),
  params: z.unknown().optional(),
});

const Notification = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: z.never().optional(),
  method: z.string(),
  params: z.unknown().optional(),
});

const ResultResponse = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: Id,
  method: z.never().optional(),
  result: z.unknown(),
  error: z.never().optional(),
});

const ErrorResponse = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: Id,
  method: z.never().optional(),
  error: z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() }),
  result: z.never().optional(),
});

export const JsonRpcMessage = z.union([Request, Notification, ResultResponse, ErrorResponse]);

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
