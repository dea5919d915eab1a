/**
 * A loopback stand-in for an OpenAI-compatible server: `GET /v1/models` lists what it is given,
 * and each `POST /v1/chat/completions` takes the next reply from a queue. A reply is a stream of
 * chunks (sent as server-sent events, each chunk its own event, with `[DONE]` at the end), an
 * HTTP error, a stream that stops after some chunks and holds the connection open until the
 * client goes away (for cancels), one that never ends, a redirect, or an error that repeats the
 * request's headers. Every request body and header is kept for the test to read.
 */

export type FakeReply =
  | {
    readonly kind: "stream";
    /** Objects are sent as JSON; a string is sent as the event's data as it is. */
    readonly chunks: readonly (object | string)[];
    /** Holds the stream open after the chunks until the client disconnects. */
    readonly hang?: boolean;
    /** Leaves out the final `data: [DONE]`. */
    readonly noDone?: boolean;
    /** Sent again and again after `chunks`, until the client disconnects. */
    readonly forever?: object | string;
  }
  | { readonly kind: "error"; readonly status: number; readonly body: unknown }
  /** An error whose message quotes every header of the request, as a careless proxy does. */
  | { readonly kind: "echo_headers"; readonly status: number }
  /** A redirect (`Location: location`), whatever the request. */
  | { readonly kind: "redirect"; readonly status: number; readonly location: string }
  /** A whole chat completion, as a non-streamed request gets it. */
  | { readonly kind: "completion"; readonly body: object };

export interface FakeServerOptions {
  /** The entries of `GET /v1/models` (`{id}` and whatever a server adds). */
  readonly models?: readonly object[];
  /** Status of `GET /v1/models`, 200 when absent. */
  readonly modelsStatus?: number;
  /** `GET /v1/models` redirects here (a URL) with `status`. */
  readonly modelsRedirect?: { readonly status: number; readonly location: string };
}

export interface FakeServer {
  /** The base URL, `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** Bodies of the chat requests, in order. */
  readonly requests: Record<string, unknown>[];
  /** The Authorization header of each request (models and chat), in order. */
  readonly authorizations: (string | null)[];
  /** Method, path and headers of every request that reached the server, in order. */
  readonly received: { method: string; path: string; headers: Headers }[];
  /** Resolves when a held stream's client has gone away. */
  readonly disconnected: Promise<void>;
  /** Queues replies for the next chat requests. */
  reply(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

export function startFakeServer(options: FakeServerOptions = {}): FakeServer {
  const queue: FakeReply[] = [];
  const requests: Record<string, unknown>[] = [];
  const authorizations: (string | null)[] = [];
  const received: FakeServer["received"] = [];
  let markDisconnected = () => {};
  const disconnected = new Promise<void>((resolve) => (markDisconnected = resolve));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      authorizations.push(request.headers.get("authorization"));
      const path = new URL(request.url).pathname;
      received.push({ method: request.method, path, headers: request.headers });
      if (request.method === "GET" && path === "/v1/models" && options.modelsRedirect) {
        const { status, location } = options.modelsRedirect;
        return new Response(null, { status, headers: { location } });
      }
      if (request.method === "GET" && path === "/v1/models") {
        const status = options.modelsStatus ?? 200;
        return Response.json(
          status === 200
            ? { object: "list", data: options.models ?? [{ id: "fake-model", object: "model" }] }
            : { error: { message: "no models here", type: "not_found" } },
          { status },
        );
      }
      if (request.method !== "POST" || path !== "/v1/chat/completions") {
        return Response.json({ error: { message: `no route ${path}` } }, { status: 404 });
      }
      requests.push(await request.json());
      const reply = queue.shift();
      if (reply === undefined) {
        return Response.json({ error: { message: "the fake has no reply queued" } }, {
          status: 500,
        });
      }
      if (reply.kind === "error") return Response.json(reply.body, { status: reply.status });
      if (reply.kind === "redirect") {
        return new Response(null, { status: reply.status, headers: { location: reply.location } });
      }
      if (reply.kind === "echo_headers") {
        const seen = [...request.headers].map(([name, value]) => `${name}: ${value}`).join(", ");
        return Response.json({ error: { message: `Bad request with headers ${seen}` } }, {
          status: reply.status,
        });
      }
      if (reply.kind === "completion") return Response.json(reply.body);
      return new Response(sseBody(reply, markDisconnected), {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      });
    },
  );
  const address = server.addr as Deno.NetAddr;
  return {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    origin: `http://127.0.0.1:${address.port}`,
    requests,
    authorizations,
    received,
    disconnected,
    reply: (...replies) => void queue.push(...replies),
    async close() {
      await server.shutdown();
    },
  };
}

function sseBody(
  reply: Extract<FakeReply, { kind: "stream" }>,
  markDisconnected: () => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  // A client that goes away cancels the body: that is how a held stream ends.
  let cancelled = () => {};
  const clientGone = new Promise<void>((resolve) => (cancelled = resolve));
  const event = (chunk: object | string) =>
    encoder.encode(`data: ${typeof chunk === "string" ? chunk : JSON.stringify(chunk)}\n\n`);
  const { forever } = reply;
  return new ReadableStream({
    async start(controller) {
      for (const chunk of reply.chunks) controller.enqueue(event(chunk));
      if (forever !== undefined) return;
      if (reply.hang) {
        await clientGone;
        return;
      }
      if (!reply.noDone) controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      controller.close();
    },
    // One more event each time the client reads: as fast as it reads, for as long as it does.
    pull(controller) {
      if (forever !== undefined) controller.enqueue(event(forever));
    },
    cancel() {
      cancelled();
      markDisconnected();
    },
  });
}
