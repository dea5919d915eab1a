/**
 * A loopback stand-in for an OpenAI-compatible server: `GET /v1/models` lists what it is given,
 * and each `POST /v1/chat/completions` takes the next reply from a queue. A reply is a stream of
 * chunks (sent as server-sent events, each chunk its own event, with `[DONE]` at the end), an
 * HTTP error, or a stream that stops after some chunks and holds the connection open until the
 * client goes away (for cancels). Every request body is kept for the test to read.
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
  }
  | { readonly kind: "error"; readonly status: number; readonly body: unknown }
  /** A whole chat completion, as a non-streamed request gets it. */
  | { readonly kind: "completion"; readonly body: object };

export interface FakeServerOptions {
  /** The entries of `GET /v1/models` (`{id}` and whatever a server adds). */
  readonly models?: readonly object[];
  /** Status of `GET /v1/models`, 200 when absent. */
  readonly modelsStatus?: number;
}

export interface FakeServer {
  /** The base URL, `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  /** Bodies of the chat requests, in order. */
  readonly requests: Record<string, unknown>[];
  /** The Authorization header of each request (models and chat), in order. */
  readonly authorizations: (string | null)[];
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
  let markDisconnected = () => {};
  const disconnected = new Promise<void>((resolve) => (markDisconnected = resolve));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      authorizations.push(request.headers.get("authorization"));
      const path = new URL(request.url).pathname;
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
      if (reply.kind === "completion") return Response.json(reply.body);
      return new Response(sseBody(reply, markDisconnected), {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      });
    },
  );
  const address = server.addr as Deno.NetAddr;
  return {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    requests,
    authorizations,
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
  return new ReadableStream({
    async start(controller) {
      for (const chunk of reply.chunks) {
        const data = typeof chunk === "string" ? chunk : JSON.stringify(chunk);
        controller.enqueue(encoder.encode(`data: ${data}\n\n`));
      }
      if (reply.hang) {
        await clientGone;
        return;
      }
      if (!reply.noDone) controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      controller.close();
    },
    cancel() {
      cancelled();
      markDisconnected();
    },
  });
}
