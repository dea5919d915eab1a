/**
 * The context an endpoint's model runs with, from what the server says of it. The OpenAI API has
 * no word for it; each server says it its own way, at its own path beside the API:
 * - vLLM: `max_model_len` in its `/models` listing (read with the listing, no probe);
 * - llama-server: `GET /props`, `default_generation_settings.n_ctx` (the context of one slot,
 *   which is what one request gets);
 * - Ollama: `GET /api/ps` gives `context_length` of a loaded model, the context it runs with;
 *   `POST /api/show` gives the Modelfile's `num_ctx` where it sets one, and the model's maximum
 *   (`model_info["<arch>.context_length"]`), which is NOT what it runs with: a model without
 *   `num_ctx` runs with the server's `OLLAMA_CONTEXT_LENGTH` or its default (2048 before 0.6.7,
 *   4096 since, chosen by VRAM since 0.15.5, at least 4096), none of which the API says. So an
 *   Ollama model that is not loaded and sets no `num_ctx` is assumed to have the smallest default
 *   its version may use, and the user is told so: Ollama cuts a longer prompt silently;
 * - LM Studio: `GET /api/v0/models`, `loaded_context_length` of a loaded model; a model not
 *   loaded yet is loaded with the app's default context (4096 unless changed), so that is assumed.
 *
 * These paths are at the server's root, not under `/v1`: the base URL's path without a last
 * `/v1` (so a server behind a path prefix is still found). The probes are bounded: they go out
 * together, no retries, and all give up after `timeoutMs`; they go through the endpoint's fetch
 * (same-origin redirects only, bounded bodies), with the endpoint's own headers (its key), never
 * anywhere else. Whatever fails is taken as "the server does not say", never as an error.
 */
import type { ContextSource } from "../model.ts";

/** How long all the probes together may take at start. */
export const CONTEXT_PROBE_TIMEOUT_MS = 2000;

/** The largest body a probe reads (llama-server's /props carries its chat template). */
export const CONTEXT_PROBE_BODY_BYTES = 1024 * 1024;

/** Context size assumed where nothing says one: `--ctx-size` overrides it. */
export const ASSUMED_SERVER_CONTEXT = 8192;

/** Ollama's default context before 0.6.7, and since (the smallest of its VRAM-based defaults). */
const OLLAMA_OLD_DEFAULT_CONTEXT = 2048;
const OLLAMA_DEFAULT_CONTEXT = 4096;
/** LM Studio's default context for a model it loads on demand. */
const LM_STUDIO_DEFAULT_CONTEXT = 4096;

export interface EndpointContext {
  readonly size: number;
  readonly source: ContextSource;
  /** What the user is told at start; set where the size is assumed. */
  readonly notice?: string;
}

/** What the probes found: the server's own word, or an assumption with its reason. */
export type ProbedContext =
  | { readonly kind: "server"; readonly size: number }
  | { readonly kind: "assumed"; readonly size: number; readonly why: string };

export interface ContextProbeOptions {
  /** The base URL, as the user gave it (`http://localhost:11434/v1`). */
  readonly baseUrl: string;
  /** The server's model id. */
  readonly model: string;
  /** The endpoint's fetch: same-origin redirects, bounded bodies (endpoint_fetch.ts). */
  readonly fetch: typeof fetch;
  /** The endpoint's headers: its key and custom headers. */
  readonly headers: Headers;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * The context of `model` where the user gave none: the listing's, else what the probes find,
 * else `ASSUMED_SERVER_CONTEXT` with a notice.
 */
export function endpointContextOf(
  baseUrl: string,
  model: string,
  found: { readonly flag?: number; readonly listed?: number; readonly probed?: ProbedContext },
): EndpointContext {
  if (found.flag !== undefined) return { size: found.flag, source: "flag" };
  if (found.listed !== undefined) return { size: found.listed, source: "server" };
  const probed = found.probed;
  if (probed?.kind === "server") return { size: probed.size, source: "server" };
  const size = probed?.size ?? ASSUMED_SERVER_CONTEXT;
  const why = probed?.why ??
    "it says no context size (no max_model_len in /models, no /props, /api/show or /api/v0/models)";
  return {
    size,
    source: "assumed",
    notice:
      `The model server at ${baseUrl} does not say the context of model "${model}": ${why}. ` +
      `Assuming ${size} tokens; if it runs with another, pass --ctx-size with it (a smaller ` +
      "server context refuses or cuts long conversations)",
  };
}

/** Asks the server for `model`'s context; undefined when nothing answered in time. */
export async function probeEndpointContext(
  options: ContextProbeOptions,
): Promise<ProbedContext | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? CONTEXT_PROBE_TIMEOUT_MS);
  const abandon = () => controller.abort();
  options.signal?.addEventListener("abort", abandon, { once: true });
  const root = serverRoot(options.baseUrl);
  const ask = (method: "GET" | "POST", path: string, body?: object) =>
    askJson(options, controller.signal, method, `${root}${path}`, body);
  try {
    const model = encodeURIComponent(options.model);
    const [props, show, lmStudio] = await Promise.all([
      ask("GET", `/props?model=${model}&autoload=false`),
      ask("POST", "/api/show", { model: options.model }),
      ask("GET", "/api/v0/models"),
    ]);
    const llamaServer = propsContext(props);
    if (llamaServer !== undefined) return { kind: "server", size: llamaServer };
    if (isObject(show) && (isObject(show.model_info) || typeof show.parameters === "string")) {
      const [running, version] = await Promise.all([
        ask("GET", "/api/ps"),
        ask("GET", "/api/version"),
      ]);
      return ollamaContext(options.model, show, running, version);
    }
    return lmStudioContext(options.model, lmStudio);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", abandon);
  }
}

/** The base URL's path without its last `/v1`: where a server's own paths are. */
export function serverRoot(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, "").replace(/\/v1$/, "");
  return `${url.origin}${path}`;
}

/** The JSON a request answers with 200; undefined for anything else. */
export async function askJson(
  options: ContextProbeOptions,
  signal: AbortSignal,
  method: "GET" | "POST",
  url: string,
  body?: object,
): Promise<unknown> {
  try {
    const headers = new Headers(options.headers);
    headers.set("accept", "application/json");
    if (body !== undefined) headers.set("content-type", "application/json");
    const response = await options.fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel();
      return undefined;
    }
    return await response.json();
  } catch {
    return undefined;
  }
}

function propsContext(props: unknown): number | undefined {
  if (!isObject(props)) return undefined;
  const settings = props.default_generation_settings;
  return positive(isObject(settings) ? settings.n_ctx : undefined) ?? positive(props.n_ctx);
}

function ollamaContext(
  model: string,
  show: Record<string, unknown>,
  running: unknown,
  version: unknown,
): ProbedContext {
  const name = withTag(model);
  const loaded = isObject(running) && Array.isArray(running.models)
    ? running.models.find((entry: unknown) =>
      isObject(entry) &&
      (withTag(String(entry.name)) === name || withTag(String(entry.model)) === name)
    )
    : undefined;
  const loadedSize = isObject(loaded) ? positive(loaded.context_length) : undefined;
  if (loadedSize !== undefined) return { kind: "server", size: loadedSize };
  const parameters = typeof show.parameters === "string" ? show.parameters : "";
  const numCtx = positive(Number(/^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters)?.[1]));
  if (numCtx !== undefined) return { kind: "server", size: numCtx };
  const maximum = ollamaModelMaximum(show.model_info);
  const versionText = isObject(version) && typeof version.version === "string"
    ? version.version
    : undefined;
  const fallback = versionText !== undefined && !olderThan(versionText, [0, 6, 7])
    ? OLLAMA_DEFAULT_CONTEXT
    : OLLAMA_OLD_DEFAULT_CONTEXT;
  return {
    kind: "assumed",
    size: Math.min(fallback, maximum ?? fallback),
    why: `Ollama${versionText === undefined ? "" : ` ${versionText}`} runs a model that is not ` +
      "loaded and sets no num_ctx with its OLLAMA_CONTEXT_LENGTH or its default, which its API " +
      "does not say",
  };
}

/** `model_info["<arch>.context_length"]`: the most the model takes, not what it runs with. */
function ollamaModelMaximum(info: unknown): number | undefined {
  if (!isObject(info)) return undefined;
  const arch = info["general.architecture"];
  return typeof arch === "string" ? positive(info[`${arch}.context_length`]) : undefined;
}

function lmStudioContext(model: string, listing: unknown): ProbedContext | undefined {
  if (!isObject(listing) || !Array.isArray(listing.data)) return undefined;
  const entry = listing.data.find((item: unknown) => isObject(item) && item.id === model);
  if (!isObject(entry)) return undefined;
  const loaded = positive(entry.loaded_context_length);
  if (loaded !== undefined) return { kind: "server", size: loaded };
  const maximum = positive(entry.max_context_length);
  return {
    kind: "assumed",
    size: Math.min(LM_STUDIO_DEFAULT_CONTEXT, maximum ?? LM_STUDIO_DEFAULT_CONTEXT),
    why: "LM Studio has not loaded it yet, and loads it with the context its settings give " +
      "(4096 unless changed)",
  };
}

/** An Ollama name with its tag: `llama3` is `llama3:latest`. */
function withTag(name: string): string {
  return name.includes(":") ? name : `${name}:latest`;
}

/** Whether dotted version `text` is below `than`; a version that does not parse is not. */
function olderThan(text: string, than: readonly number[]): boolean {
  const parts = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text)?.slice(1).map(Number);
  if (parts === undefined) return false;
  for (let index = 0; index < than.length; index++) {
    const [part, bound] = [parts[index] ?? 0, than[index] ?? 0];
    if (part !== bound) return part < bound;
  }
  return false;
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
