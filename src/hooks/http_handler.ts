/**
 * `http` hooks: POST the payload, return the status and (capped) body as they are. Whether a
 * 2xx JSON body is an output is output parsing's job, not this file's. Redirects are followed
 * only within the configured URL's origin, so expanded headers never reach another one.
 */
import { errorMessage } from "../error.ts";
import { handlerTimeoutMs } from "./command_handler.ts";
import { DEFAULT_CAPTURE_CAP_BYTES } from "./command_runner.ts";
import type { HttpHandlerConfig } from "./handler_config.ts";
import type { HandlerResult } from "./handler_result.ts";
import type { HandlerContext, HookPayload } from "./handler_runner.ts";
import { fetchSameOrigin, RedirectRefused } from "./same_origin_fetch.ts";

export interface HttpHandlerOptions {
  readonly fetch?: typeof fetch;
  /** Where `$VAR` in header values is looked up; `Deno.env.toObject()` when absent. */
  readonly baseEnv?: Readonly<Record<string, string>>;
  /** Response bytes kept (default 1 MiB); the rest is not read. */
  readonly bodyCapBytes?: number;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * Expands `$VAR` and `${VAR}` for the names in `allowed`; any other name becomes "", as in
 * Claude Code, so a header can never leak a variable the user did not list.
 */
export function expandHeaderValue(
  value: string,
  allowed: readonly string[],
  env: Readonly<Record<string, string>>,
): string {
  return value.replace(VARIABLE, (_match, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? "";
    return allowed.includes(name) ? env[name] ?? "" : "";
  });
}

/**
 * Runs one http hook; a timeout, cancel, network error or refused redirect is a `failed`
 * result.
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
  const failed = (
    failure: "network" | "timeout" | "cancelled",
    message: string,
  ): HandlerResult => ({
    kind: "failed",
    failure,
    message,
    durationMs: elapsed(),
  });
  if (context.signal?.aborted) {
    return failed("cancelled", `HTTP hook "${handler.url}" was cancelled`);
  }

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
    const env = options.baseEnv ?? Deno.env.toObject();
    const headers = new Headers();
    for (const [name, value] of Object.entries(handler.headers ?? {})) {
      headers.set(name, expandHeaderValue(value, handler.allowedEnvVars ?? [], env));
    }
    headers.set("Content-Type", "application/json");
    const response = await fetchSameOrigin(options.fetch ?? fetch, handler.url, {
      method: "POST",
      headers,
      body: JSON.stringify(payload),
      signal: controller.signal,
    });
    const body = await readCapped(response.body, options.bodyCapBytes ?? DEFAULT_CAPTURE_CAP_BYTES);
    if (ended === undefined) {
      return { kind: "http", status: response.status, body, durationMs: elapsed() };
    }
  } catch (error) {
    if (ended === undefined) {
      return failed(
        "network",
        error instanceof RedirectRefused
          ? error.message
          : `HTTP hook request to "${handler.url}" failed: ${errorMessage(error)}`,
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

/** Reads at most `capBytes` of a body, then cancels the rest so the connection is released. */
async function readCapped(body: ReadableStream<Uint8Array> | null, capBytes: number) {
  if (body === null) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  try {
    while (kept < capBytes) {
      const { done, value } = await reader.read();
      if (done) return decode(chunks, kept);
      const take = Math.min(value.byteLength, capBytes - kept);
      chunks.push(take === value.byteLength ? value : value.slice(0, take));
      kept += take;
    }
    await reader.cancel();
    return decode(chunks, kept);
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
