/**
 * A fake ACP client for the client-side tools: it records every request in order and answers
 * from a table of handlers, so tests need no connection.
 */
import type { ClientRequest, ClientToolMethod } from "../../src/agent/client_request.ts";

export interface RecordedCall {
  readonly method: ClientToolMethod;
  readonly params: unknown;
}

export type FakeHandlers = Partial<
  Record<ClientToolMethod, (params: Record<string, unknown>) => unknown | Promise<unknown>>
>;

export function fakeClient(handlers: FakeHandlers): {
  request: ClientRequest;
  calls: RecordedCall[];
  methods: () => ClientToolMethod[];
} {
  const calls: RecordedCall[] = [];
  const request: ClientRequest = async (method, params) => {
    calls.push({ method, params });
    const handler = handlers[method];
    if (handler === undefined) throw new Error(`The fake client has no handler for "${method}"`);
    return await handler(Object.fromEntries(Object.entries(params)));
  };
  return { request, calls, methods: () => calls.map((call) => call.method) };
}
