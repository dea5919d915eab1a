/**
 * What the start of a JSON-RPC line tells when the rest of it is gone (a line too long to keep):
 * the top-level members that come before the first object or array, read without parsing the
 * whole. Clients write `{"jsonrpc", "id", "method", "params"}` in that order, so a request's id
 * and method are usually there; an id written after `params` is not.
 */
import type { JsonRpcId } from "@agentclientprotocol/sdk";
import { readableId } from "./json_rpc_message.ts";

export interface MessageStart {
  readonly id: Exclude<JsonRpcId, null> | undefined;
  readonly method: string | undefined;
  /** A response (`result` or `error`, no `method`): the answer to one of our requests. */
  readonly isResponse: boolean;
}

const OPEN = /\s*\{/y;
const KEY = /\s*("(?:[^"\\]|\\.)*")\s*:\s*/y;
// A scalar counts only with what follows it: a start cut inside `123` must not read as `12`.
const SCALAR =
  /("(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)\s*([,}])/y;

export function readMessageStart(start: string): MessageStart {
  const members = new Map<string, unknown>();
  let next: string | undefined;
  let at = 0;
  const match = (pattern: RegExp) => {
    pattern.lastIndex = at;
    const found = pattern.exec(start);
    if (found) at = pattern.lastIndex;
    return found;
  };
  if (match(OPEN)) {
    while (true) {
      const key = match(KEY);
      if (!key?.[1]) break;
      const name = parseJson(key[1]);
      if (typeof name !== "string") break;
      const scalar = match(SCALAR);
      if (!scalar?.[1]) {
        next = name;
        break;
      }
      if (!members.has(name)) members.set(name, parseJson(scalar[1]));
      if (scalar[2] === "}") break;
    }
  }
  const method = members.get("method");
  const answers = next === "result" || next === "error" || members.has("result") ||
    members.has("error");
  return {
    id: readableId(members.get("id")),
    method: typeof method === "string" ? method : undefined,
    isResponse: answers && !members.has("method"),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
