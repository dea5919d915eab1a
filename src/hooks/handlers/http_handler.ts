/**
 * `http` hooks: POST the payload, return the status and (capped) body as they are. Whether a
 * 2xx JSON body is an output is output parsing's job, not this file's. Redirects are followed
 * only within the configured URL's origin, so expanded headers never reach another one.
 *
 * The headers carry secrets (hook_headers.ts): a header that cannot be sent is refused before
 * the request, naming the header and the variable, and every message this file makes, like the
 * body of an answer that is not a 2xx (only ever quoted as an error), has their values redacted.
 */
import { errorMessage } from "../../error.ts";
import { quotedServerText, SecretRedactor } from "../../secret_redactor.ts";
import { handlerTimeoutMs } from "./command_handler.ts";
import { DEFAULT_CAPTURE_CAP_BYTES } from "../../os/process/command_runner.ts";
import type { HttpHandlerConfig } from "../handler_config.ts";
import type { HandlerFailure, HandlerResult } from "../handler_result.ts";
import type { HandlerContext, HookPayload } from "../handler_runner.ts";
import { hookHeaders } from "./hook_headers.ts";
import { fetchSameOrigin, hookRedirectPolicy, RedirectRefused } from "../../same_origin_fetch.ts";

export interface HttpHandlerOptions {
  readonly fetch?: typeof fetch;
  /** Where `$VAR` in header values is looked up; `Deno.env.toObject()` when absent. */
  readonly baseEnv?: Readonly<Record<string, string>>;
  /** Response bytes kept (default 1 MiB); the rest is not read. */
  readonly bodyCapBytes?: number;
}

/**
 * Runs one http hook; a header that cannot be sent, a timeout, cancel, network error or refused
 * redirect is a `failed` result.
 */
export async function runHttpHandler(
  handler: HttpHandlerConfig,
  payload: HookPayload,
  context: HandlerContext,
  options: HttpHandlerOptions = {},
): Promise<HandlerResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutMs = handlerTimeoutMs(handler.timeout, context.event);
  const env = options.baseEnv ?? Deno.env.toObject();
  const built = hookHeaders(handler, env);
  const redactor = new SecretRedactor(built.secrets);
  const failed = (failure: HandlerFailure, message: string): HandlerResult => ({
    kind: "failed",
    failure,
    message: redactor.redact(message),
    durationMs: elapsed(),
  });
  if (context.signal?.aborted) {
    return failed("cancelled", `HTTP hook "${handler.url}" was cancelled`);
  }
  if (!built.ok) return failed("invalid_header", built.message);

  const controller = new AbortController();
  let ended: "timeout" | "cancelled" | undefined;
  const stop = (why: "timeout" | "cancelled") => {
    ended ??= why;
    controller.abort();
  };
  const timer = setTimeout(() => stop("timeout"), timeoutMs);
  const onAbort = () => stop("cancelled");
  context.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    const { headers } = built;
    headers.set("Content-Type", "application/json");
    const response = await fetchSameOrigin(
      options.fetch ?? fetch,
      handler.url,
      { method: "POST", headers, body: JSON.stringify(payload), signal: controller.signal },
      hookRedirectPolicy(handler.url, redactor),
    );
    const capBytes = options.bodyCapBytes ?? DEFAULT_CAPTURE_CAP_BYTES;
    const body = await readCapped(response.body, capBytes);
    if (ended === undefined) {
      const ok = response.status >= 200 && response.status <= 299;
      return {
        kind: "http",
        status: response.status,
        body: ok ? body.text : redactedBody(body, redactor),
        durationMs: elapsed(),
      };
    }
  } catch (error) {
    if (ended === undefined) {
      return failed(
        "network",
        error instanceof RedirectRefused
          ? error.message
          : `HTTP hook request to "${handler.url}" failed: ${
            quotedServerText(errorMessage(error), redactor)
          }`,
      );
    }
  } finally {
    clearTimeout(timer);
    context.signal?.removeEventListener("abort", onAbort);
  }
  return ended === "timeout"
    ? failed("timeout", `HTTP hook "${handler.url}" did not answer within ${timeoutMs / 1000} s`)
    : failed("cancelled", `HTTP hook "${handler.url}" was cancelled`);
}

/**
 * An error's body with the secrets redacted; a body cut at the cap also loses an end that may
 * begin one, as a secret cut in two is no longer found whole.
 */
function redactedBody(body: CappedBody, redactor: SecretRedactor): string {
  const text = redactor.redact(body.text);
  return body.cut ? text.slice(0, text.length - redactor.partialSecretAtEnd(text)) : text;
}

interface CappedBody {
  readonly text: string;
  /** Whether bytes past the cap were left unread. */
  readonly cut: boolean;
}

/** Reads at most `capBytes` of a body, then cancels the rest so the connection is released. */
async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  capBytes: number,
): Promise<CappedBody> {
  if (body === null) return { text: "", cut: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  try {
    while (kept < capBytes) {
      const { done, value } = await reader.read();
      if (done) return { text: decode(chunks, kept), cut: false };
      const take = Math.min(value.byteLength, capBytes - kept);
      chunks.push(take === value.byteLength ? value : value.slice(0, take));
      kept += take;
    }
    await reader.cancel();
    return { text: decode(chunks, kept), cut: true };
  } finally {
    reader.releaseLock();
  }
}

function decode(chunks: readonly Uint8Array[], length: number): string {
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
