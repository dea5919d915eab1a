/**
 * What the http hook tests share: a Stop payload and context, and a real server on a loopback
 * address that records each request it receives.
 */
import type { HandlerContext } from "../../src/hooks/handler_runner.ts";

export const STOP_PAYLOAD = {
  session_id: "sess-1",
  transcript_path: "/tmp/raw.jsonl",
  cwd: "/project",
  hook_event_name: "Stop",
  stop_hook_active: false,
  last_assistant_message: "done",
};

export const STOP_CONTEXT: HandlerContext = { event: "Stop", cwd: "/project", sessionId: "sess-1" };

export interface Received {
  readonly method: string;
  /** The path and query. */
  readonly path: string;
  readonly headers: Headers;
  readonly body: string;
}

export interface HookServer {
  /** `http://host:port` */
  readonly origin: string;
  readonly received: Received[];
}

export interface Responding {
  readonly origin: string;
  /** Resolves when the test is over: a response that waits on it never holds the server up. */
  readonly released: Promise<void>;
}

/** A server on `hostname` (a loopback address) answering with `respond`; stopped after `fn`. */
export async function withHookServer<T>(
  hostname: string,
  respond: (request: Request, server: Responding) => Response | Promise<Response>,
  fn: (server: HookServer) => Promise<T>,
): Promise<T> {
  const received: Received[] = [];
  const released = Promise.withResolvers<void>();
  let origin = "";
  const server = Deno.serve({ hostname, port: 0, onListen: () => {} }, async (request) => {
    const url = new URL(request.url);
    received.push({
      method: request.method,
      path: url.pathname + url.search,
      headers: request.headers,
      body: await request.text(),
    });
    return respond(request, { origin, released: released.promise });
  });
  origin = `http://${hostname}:${server.addr.port}`;
  try {
    return await fn({ origin, received });
  } finally {
    released.resolve();
    await server.shutdown();
  }
}
