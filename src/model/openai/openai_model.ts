/**
 * The OpenAI-compatible backend: `Model` on a model server (llama-server, Ollama, LM Studio,
 * vLLM, ...) through the official `openai` client. The client owns HTTP, retries before a
 * response, SSE parsing and aborts; this file connects and picks the model, and endpoint_model.ts
 * owns what the agent means by a generation.
 *
 * A server holds no conversation: each `generate` sends the whole conversation (servers cache
 * the common prefix themselves, as llama-server and vLLM do). A session is therefore only the
 * settings it shares with the model, and costs nothing to open.
 *
 * A `responseSchema` is asked for as `response_format: json_schema`; a server that refuses that
 * form gets `json_object`, then nothing, and the first form it takes is kept for the model. The
 * answer is validated by whoever asked, whatever form was used.
 *
 * What the server may do to the agent is bounded: requests go only to the endpoint's origin
 * (endpoint_fetch.ts), each asks for at most the answer cap's tokens and a reply is cut at its
 * characters (answer_cap.ts), and whatever the server says is shown with the key and custom
 * header values redacted (secret_redactor.ts).
 *
 * The context is the user's `--ctx-size`, else what the server says (endpoint_context.ts), else
 * assumed, with a notice; a refusal for size that names a smaller context (llama-server's
 * `n_ctx`, vLLM's maximum context length) makes that the context from then on, so that the
 * session compacts for the context the server really has. A session counts prompts with the
 * estimate, calibrated by the usage the server reports (prompt_calibration.ts); where the context
 * is known, a request asks for no more answer than the context has room for after its prompt
 * (vLLM refuses a request whose prompt and `max_tokens` together pass its context), and a reply
 * cut there ends `context_full`.
 */
import OpenAI from "openai";
import { AgentError } from "../../error.ts";
import type { Model } from "../model.ts";
import { endpointError, type EndpointPlace, refusedWith } from "./openai_errors.ts";
import { EndpointModel } from "./endpoint_model.ts";
import {
  apiKeyEnvProblem,
  customHeaders,
  customHeadersProblem,
  endpointSecrets,
} from "./endpoint_key.ts";
import { endpointFetch } from "./endpoint_fetch.ts";
import { SecretRedactor } from "../../secret_redactor.ts";
import {
  CONTEXT_PROBE_BODY_BYTES,
  endpointContextOf,
  probeEndpointContext,
} from "./endpoint_context.ts";

export interface EndpointOptions {
  /** The server's base URL, e.g. `http://localhost:11434/v1`. */
  readonly baseUrl: string;
  /** The server's model id; the first it lists when absent. */
  readonly model?: string;
  /** The variable holding the API key; no key is sent when absent. */
  readonly apiKeyEnv?: string;
  readonly env: (name: string) => string | undefined;
  /** The context size (`--ctx-size`): it wins over what the server says, and nothing is asked. */
  readonly contextSize?: number;
  readonly signal?: AbortSignal;
  /** How long asking the server for its context may take at start (tests shorten it). */
  readonly contextProbeTimeoutMs?: number;
}

/** One model the server lists. */
export interface EndpointModelInfo {
  readonly id: string;
  /** Its context size, where the listing says it (vLLM's `max_model_len`, LM Studio's). */
  readonly contextSize?: number;
}

/** A client for an endpoint, and where it points (for messages, with the secrets to redact). */
export interface EndpointConnection {
  readonly client: OpenAI;
  readonly place: EndpointPlace;
  /** For the server's own paths (its context): the endpoint's fetch and headers, key included. */
  readonly probe: { readonly fetch: typeof fetch; readonly headers: Headers };
}

/** Longest model id taken from a listing: an id is shown in menus and sent back as it is. */
const MAX_MODEL_ID_CHARS = 256;

/** Model ids a message names before "and N more". */
const NAMED_MODELS = 20;

/**
 * The client for an endpoint: the URL and key the options name, never `OPENAI_BASE_URL`,
 * `OPENAI_API_KEY` and the like, and no client logging (`OPENAI_LOG=debug` would print the
 * conversation). `OPENAI_CUSTOM_HEADERS`, a user's own setting, is still honoured. Its requests
 * go through `endpointFetch` (same-origin redirects, bounded responses), and its place holds
 * the key and custom header values that messages redact.
 */
export function connectEndpoint(options: EndpointOptions): EndpointConnection {
  const problem = options.apiKeyEnv === undefined
    ? undefined
    : apiKeyEnvProblem(options.apiKeyEnv, options.env);
  if (problem !== undefined) throw new AgentError("USAGE", `--api-key-env ${problem}`);
  const headersProblem = customHeadersProblem(options.env);
  if (headersProblem !== undefined) throw new AgentError("USAGE", headersProblem);
  const key = options.apiKeyEnv === undefined ? undefined : options.env(options.apiKeyEnv);
  const redactor = new SecretRedactor(endpointSecrets(options.apiKeyEnv, options.env));
  const headers = new Headers();
  if (key) headers.set("authorization", `Bearer ${key}`);
  for (const { name, value } of customHeaders(options.env)) headers.set(name, value);
  const client = new OpenAI({
    baseURL: options.baseUrl,
    // The client refuses to start without a key; a local server ignores the header.
    apiKey: key || "none",
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    logLevel: "off",
    fetch: endpointFetch({ baseUrl: options.baseUrl, redactor }),
  });
  const probeFetch = endpointFetch({
    baseUrl: options.baseUrl,
    redactor,
    maxEventBytes: CONTEXT_PROBE_BODY_BYTES,
  });
  return {
    client,
    place: { baseUrl: options.baseUrl, apiKeyEnv: options.apiKeyEnv, redactor },
    probe: { fetch: probeFetch, headers },
  };
}

/**
 * The models the server lists (`GET /models`), in its order. At start the client's retries
 * wait for a server that is still starting; a session's menu passes `retries: 0` and a signal.
 */
export async function listEndpointModels(
  connection: EndpointConnection,
  options: { readonly signal?: AbortSignal; readonly retries?: number } = {},
): Promise<EndpointModelInfo[]> {
  try {
    return await listedModels(connection, options);
  } catch (error) {
    throw endpointError(error, connection.place);
  }
}

/** `listEndpointModels`, failing with the client's own error. */
async function listedModels(
  { client, place }: EndpointConnection,
  options: { readonly signal?: AbortSignal; readonly retries?: number },
): Promise<EndpointModelInfo[]> {
  const page = await client.models.list({
    signal: options.signal,
    ...(options.retries === undefined ? {} : { maxRetries: options.retries }),
  });
  // An id that would not show as it is (too long, or repeating a secret) is left out.
  return page.data
    .filter(({ id }) =>
      typeof id === "string" && id !== "" && id.length <= MAX_MODEL_ID_CHARS &&
      place.redactor.redact(id) === id
    )
    .map((entry) => ({ id: entry.id, contextSize: listedContextSize(entry) }));
}

function listedContextSize(entry: object): number | undefined {
  const fields = entry as Record<string, unknown>;
  for (const key of ["max_model_len", "max_context_length", "context_length"]) {
    const value = fields[key];
    if (typeof value === "number" && Number.isInteger(value) && value > 0) return value;
  }
  return undefined;
}

/** Connects to the endpoint and picks the model: the one named, else the first listed. */
export async function openEndpointModel(options: EndpointOptions): Promise<Model> {
  const connection = connectEndpoint(options);
  const { place } = connection;
  let listed: EndpointModelInfo[];
  try {
    listed = await listedModels(connection, { signal: options.signal });
  } catch (error) {
    // A proxy may serve the chat API without a listing: a named model is then taken on trust.
    if (options.model === undefined || !refusedWith(error, 404, 405)) {
      throw endpointError(error, place);
    }
    listed = [{ id: options.model }];
  }
  const chosen = options.model === undefined
    ? listed[0]
    : listed.find((entry) => entry.id === options.model);
  if (chosen === undefined) {
    const named = listed.slice(0, NAMED_MODELS).map((entry) => `"${entry.id}"`).join(", ");
    const more = listed.length > NAMED_MODELS ? ` and ${listed.length - NAMED_MODELS} more` : "";
    throw new AgentError(
      "MODEL_UNAVAILABLE",
      options.model === undefined
        ? `The model server at ${options.baseUrl} lists no models: load one there, or pass --model NAME`
        : `The model server at ${options.baseUrl} has no model "${options.model}"; it serves ${
          named || "none"
        }${more}. Pass --model with one of them.`,
    );
  }
  const given = options.contextSize ?? chosen.contextSize;
  const probed = given === undefined
    ? await probeEndpointContext({
      baseUrl: options.baseUrl,
      model: chosen.id,
      ...connection.probe,
      timeoutMs: options.contextProbeTimeoutMs,
      signal: options.signal,
    })
    : undefined;
  const context = endpointContextOf(options.baseUrl, chosen.id, {
    flag: options.contextSize,
    listed: chosen.contextSize,
    probed,
  });
  return new EndpointModel(connection.client, { ...place, model: chosen.id }, context);
}
