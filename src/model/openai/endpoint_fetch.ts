/**
 * The `fetch` the `openai` client sends with, so that a model server's requests go only where the
 * user pointed them, and what comes back cannot grow without bound:
 * - redirects are followed within the endpoint's origin only, method and body kept (the key,
 *   `OPENAI_CUSTOM_HEADERS` and the conversation never go to an origin a server names); one to
 *   another origin fails with a message that names it (same_origin_fetch.ts);
 * - an error's body is read up to `ERROR_BODY_BYTES` (the client reads it whole to quote it),
 *   and an error object a server sends at the top level (`{"object": "error", "message": ...}`,
 *   vLLM before 0.9) is passed on inside `error`, where the client looks for it (it would
 *   otherwise say "400 status code (no body)");
 * - an event stream's event, and any other body, fails past `MAX_EVENT_BYTES` (the client
 *   buffers each whole).
 */
import { fetchSameOrigin, type RedirectPolicy } from "../../same_origin_fetch.ts";
import type { SecretRedactor } from "../../secret_redactor.ts";

/** How much of an error's body is read: the message quotes a few hundred characters of it. */
export const ERROR_BODY_BYTES = 64 * 1024;

/**
 * The most one event of a stream (or a whole body that is no stream) may hold: a whole reply sent
 * at once is one such (a completion, Ollama's whole tool call), and a reply is capped in
 * characters well below this (answer_cap.ts).
 */
export const MAX_EVENT_BYTES = 32 * 1024 * 1024;

/** A response that would take more memory than any reply needs: not read further. */
export class ResponseTooLarge extends Error {
  override readonly name = "ResponseTooLarge";
}

export interface EndpointFetchOptions {
  /** The base URL, for messages. */
  readonly baseUrl: string;
  /** What the client's requests go through; the global `fetch` when absent. */
  readonly fetch?: typeof fetch;
  readonly maxEventBytes?: number;
  /** Takes the key and header values out of where a refused redirect pointed. */
  readonly redactor?: SecretRedactor;
}

/** A `fetch` for the `openai` client of the endpoint at `options.baseUrl`. */
export function endpointFetch(options: EndpointFetchOptions): typeof fetch {
  const fetchImpl = options.fetch ?? fetch;
  const maxEventBytes = options.maxEventBytes ?? MAX_EVENT_BYTES;
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = (init.method ?? "GET").toUpperCase();
    const policy: RedirectPolicy = {
      subject: `The model server at ${options.baseUrl} (${method} ${new URL(url).pathname})`,
      kept: "the request, its key and its headers",
      advice: "pass --endpoint the address that answers",
      keepMethod: true,
      redactor: options.redactor,
    };
    const response = await fetchSameOrigin(fetchImpl, url, {
      method,
      headers: new Headers(init.headers),
      body: await resendableBody(init.body),
      signal: init.signal ?? new AbortController().signal,
    }, policy);
    if (response.body === null) return response;
    const eventStream = /^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "");
    const body = !response.ok
      ? errorBody(await new Response(firstBytes(response.body, ERROR_BODY_BYTES)).text())
      : limitedBody(response.body, maxEventBytes, eventStream, options.baseUrl);
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** A body that can be sent again after a redirect. */
async function resendableBody(
  body: BodyInit | null | undefined,
): Promise<string | Uint8Array<ArrayBuffer> | undefined> {
  if (body === null || body === undefined || typeof body === "string") return body ?? undefined;
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** An error body with its error object where the client reads it: in `error`. */
function errorBody(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const topLevel = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) &&
    !("error" in parsed) && "message" in parsed && typeof parsed.message === "string";
  return topLevel ? JSON.stringify({ error: parsed }) : text;
}

/** The first `limit` bytes of `body`; the rest is cancelled unread. */
function firstBytes(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let left = limit;
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      controller.enqueue(value.subarray(0, left));
      left -= Math.min(left, value.length);
      if (left === 0) {
        controller.close();
        await reader.cancel();
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * `body` as it comes, failing with `ResponseTooLarge` once more than `limit` bytes come without
 * an event's end (an empty line) in an event stream, or at all otherwise.
 */
function limitedBody(
  body: ReadableStream<Uint8Array>,
  limit: number,
  eventStream: boolean,
  baseUrl: string,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let count = 0;
  let lineLength = 0;
  let previous = 0;
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      if (!eventStream) count += value.length;
      else {
        for (const byte of value) {
          const lineEnd = byte === 0x0a || byte === 0x0d;
          // "\r\n" is one line end, not an empty line after a line.
          if (lineEnd && !(byte === 0x0a && previous === 0x0d)) {
            if (lineLength === 0) count = 0;
            lineLength = 0;
          } else if (!lineEnd) {
            lineLength++;
            count++;
          }
          previous = byte;
        }
      }
      if (count > limit) {
        const error = new ResponseTooLarge(
          `The model server at ${baseUrl} sent ${
            eventStream ? "a stream event" : "a response"
          } of more than ${limit} bytes: not read further (no reply needs that much)`,
        );
        controller.error(error);
        await reader.cancel(error);
        return;
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
