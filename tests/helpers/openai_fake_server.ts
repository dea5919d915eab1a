/**
 * A loopback stand-in for an OpenAI-compatible server: `GET /v1/models` lists what it is given,
 * and each `POST /v1/chat/completions` takes the next reply from a queue. A reply is a stream of
 * chunks (sent as server-sent events, each chunk its own event, with `[DONE]` at the end), an
 * HTTP error, a stream that stops after some chunks and holds the connection open until the
 * client goes away (for cancels), one that never ends, a redirect, or an error that repeats the
 * request's headers. Every request body and header is kept for the test to read.
 *
 * It can also play a server with a context (see `FakeServerOptions`): refuse a prompt over
 * `contextSize` exactly as llama-server does (HTTP 400, `exceed_context_size_error`, with
 * `n_prompt_tokens` and `n_ctx`), report usage, and answer a server's own paths (`routes`:
 * llama-server's `GET /props`, Ollama's `POST /api/show`, LM Studio's `GET /api/v0/models`), or
 * never answer them. Its prompt count is `promptTokensOf`: deterministic, and never above the
 * agent's own estimate of the same conversation. Past the queue, a `respond` function may answer
 * each request from its body.
 */
import { estimateTextTokens, MESSAGE_OVERHEAD_TOKENS } from "../../src/model/token_estimate.ts";

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
  /**
   * The context in tokens: a chat request whose prompt (`promptTokensOf`) is over it is refused
   * as llama-server refuses it (`llamaServerOverflow`), and takes no queued reply, so the reply
   * goes to the next request that fits. No limit when absent.
   */
  readonly contextSize?: number;
  /**
   * Report usage: a streamed reply that brings none ends with a usage chunk, and a whole
   * completion gets one, whose `prompt_tokens` is `promptTokensOf` the request times
   * `promptScale` (1 when absent: a server whose tokenizer the estimate matches), rounded.
   */
  readonly usage?: { readonly promptScale?: number };
  /**
   * More paths, by `"METHOD /path"` (the path without its query): the JSON answered with 200, or
   * `"hang"` to answer nothing (not even a status) until the server closes. See `llamaServerProps`,
   * `ollamaShow`, `ollamaPs` and `lmStudioModels`. Any other path is a 404.
   */
  readonly routes?: Readonly<Record<string, object | "hang">>;
  /** Paths (`"METHOD /path"`) answered with a 307 to the URL given. */
  readonly routeRedirects?: Readonly<Record<string, string>>;
  /**
   * Answers a chat request the queue has no reply for, from its body: a server that decides by
   * what it is asked (a summary request has no `tools`), for sessions too long to script reply
   * by reply. Called only for a request that fits `contextSize`.
   */
  readonly respond?: (body: Record<string, unknown>) => FakeReply;
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
  /**
   * Method, path (with its query) and headers of every request that reached the server, in
   * order; the body of a request to one of `routes`.
   */
  readonly received: { method: string; path: string; headers: Headers; body?: string }[];
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
  const hanging = new Set<() => void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      authorizations.push(request.headers.get("authorization"));
      const url = new URL(request.url);
      const path = url.pathname;
      const redirect = options.routeRedirects?.[`${request.method} ${path}`];
      if (redirect !== undefined) {
        received.push({
          method: request.method,
          path: `${path}${url.search}`,
          headers: request.headers,
        });
        return new Response(null, { status: 307, headers: { location: redirect } });
      }
      const route = options.routes?.[`${request.method} ${path}`];
      if (route !== undefined) {
        const body = request.method === "GET" ? undefined : await request.text();
        received.push({
          method: request.method,
          path: `${path}${url.search}`,
          headers: request.headers,
          body,
        });
        if (route !== "hang") return Response.json(route);
        // Answers nothing until the server closes.
        await new Promise<void>((resolve) => hanging.add(resolve));
        return new Response(null, { status: 503 });
      }
      received.push({
        method: request.method,
        path: `${path}${url.search}`,
        headers: request.headers,
      });
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
      const body = await request.json();
      requests.push(body);
      const prompt = promptTokensOf(body);
      if (options.contextSize !== undefined && prompt > options.contextSize) {
        return Response.json(llamaServerOverflow(prompt, options.contextSize), { status: 400 });
      }
      const usage = options.usage && {
        prompt_tokens: Math.round(prompt * (options.usage.promptScale ?? 1)),
        completion_tokens: 1,
        total_tokens: Math.round(prompt * (options.usage.promptScale ?? 1)) + 1,
      };
      const reply = queue.shift() ?? options.respond?.(body);
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
      if (reply.kind === "completion") {
        return Response.json(
          usage && !("usage" in reply.body) ? { ...reply.body, usage } : reply.body,
        );
      }
      const reported = usage && !reply.chunks.some((chunk) => hasUsage(chunk))
        ? { ...reply, chunks: [...reply.chunks, usageChunk(usage)] }
        : reply;
      return new Response(sseBody(reported, markDisconnected), {
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
      for (const release of hanging) release();
      await server.shutdown();
    },
  };
}

/**
 * The prompt tokens of a chat request as the fake counts them: the estimate (token_estimate.ts)
 * of each message's text and calls, and of each tool's name, description and parameters, with
 * `MESSAGE_OVERHEAD_TOKENS` for each message and tool. The agent estimates its conversation the
 * same way, and counts thoughts (never sent) too, so its own count is never below this one.
 */
export function promptTokensOf(body: Record<string, unknown>): number {
  let tokens = 0;
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    tokens += MESSAGE_OVERHEAD_TOKENS;
    const content = message?.content;
    if (typeof content === "string") tokens += estimateTextTokens(content);
    else if (Array.isArray(content)) {
      for (const part of content) tokens += estimateTextTokens(String(part?.text ?? ""));
    }
    for (const call of Array.isArray(message?.tool_calls) ? message.tool_calls : []) {
      tokens += estimateTextTokens(String(call?.function?.name ?? "")) +
        estimateTextTokens(String(call?.function?.arguments ?? ""));
    }
  }
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    const fn = tool?.function ?? {};
    tokens += MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(String(fn.name ?? "")) +
      estimateTextTokens(String(fn.description ?? "")) +
      estimateTextTokens(JSON.stringify(fn.parameters ?? {}));
  }
  return tokens;
}

/** llama-server's answer (HTTP 400) to a prompt of `promptTokens` over a context of `nCtx`. */
export function llamaServerOverflow(promptTokens: number, nCtx: number): object {
  return {
    error: {
      code: 400,
      message: "the request exceeds the available context size, try increasing it",
      type: "exceed_context_size_error",
      n_prompt_tokens: promptTokens,
      n_ctx: nCtx,
    },
  };
}

/** llama-server's `GET /props` (the parts the agent reads) for a slot context of `nCtx`. */
export function llamaServerProps(nCtx: number): object {
  return {
    default_generation_settings: { n_ctx: nCtx, params: { n_predict: -1 } },
    total_slots: 1,
    model_path: "/models/smol.gguf",
    chat_template: "{% for message in messages %}...{% endfor %}",
    build_info: "b6000-0000000",
  };
}

/**
 * Ollama's `POST /api/show` for a model of architecture `arch` that takes `maximum` tokens,
 * with `num_ctx` in its Modelfile parameters where given.
 */
export function ollamaShow(arch: string, maximum: number, numCtx?: number): object {
  const parameters = [
    ...(numCtx === undefined ? [] : [`num_ctx                        ${numCtx}`]),
    'stop                           "<|im_end|>"',
  ].join("\n");
  return {
    modelfile: '# Modelfile generated by "ollama show"',
    parameters,
    template: "{{ .Prompt }}",
    details: { format: "gguf", family: arch, parameter_size: "8.2B" },
    model_info: { "general.architecture": arch, [`${arch}.context_length`]: maximum },
    capabilities: ["completion", "tools"],
  };
}

/** Ollama's `GET /api/ps` with `name` loaded at a context of `contextLength`. */
export function ollamaPs(name: string, contextLength: number): object {
  return {
    models: [{
      name,
      model: name,
      size: 6654289920,
      digest: "0".repeat(64),
      details: { format: "gguf" },
      expires_at: "2025-11-04T12:38:07Z",
      size_vram: 6654289920,
      context_length: contextLength,
    }],
  };
}

/** LM Studio's `GET /api/v0/models` with `id`, loaded at `loaded` tokens where given. */
export function lmStudioModels(id: string, maximum: number, loaded?: number): object {
  return {
    object: "list",
    data: [{
      id,
      object: "model",
      type: "llm",
      publisher: "qwen",
      arch: "qwen3",
      compatibility_type: "gguf",
      quantization: "Q4_K_M",
      state: loaded === undefined ? "not-loaded" : "loaded",
      max_context_length: maximum,
      ...(loaded === undefined ? {} : { loaded_context_length: loaded }),
    }],
  };
}

function hasUsage(chunk: object | string): boolean {
  return typeof chunk === "object" && "usage" in chunk && chunk.usage !== null;
}

function usageChunk(usage: object): object {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1764547200,
    model: "fake-model",
    choices: [],
    usage,
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
