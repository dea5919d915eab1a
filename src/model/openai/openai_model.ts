/**
 * The OpenAI-compatible backend: `Model` on a model server (llama-server, Ollama, LM Studio,
 * vLLM, ...) through the official `openai` client. The client owns HTTP, retries before a
 * response, SSE parsing and aborts; this file owns what the agent means by a generation.
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
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { AgentError } from "../../error.ts";
import { contextOverflowOf } from "../context_full_error.ts";
import type {
  ContextSource,
  GenerateRequest,
  GenerateResult,
  Model,
  ModelSession,
} from "../model.ts";
import {
  endpointError,
  type EndpointPlace,
  isAbort,
  refusedResponseFormat,
  refusedWith,
} from "./openai_errors.ts";
import { toChatMessages, toChatTools } from "./openai_messages.ts";
import { StreamAssembler } from "./openai_stream.ts";
import {
  apiKeyEnvProblem,
  customHeaders,
  customHeadersProblem,
  endpointSecrets,
} from "./endpoint_key.ts";
import { endpointFetch } from "./endpoint_fetch.ts";
import { answerTokenCap, replyCharCap } from "../answer_cap.ts";
import { SecretRedactor } from "../../secret_redactor.ts";
import {
  CONTEXT_PROBE_BODY_BYTES,
  type EndpointContext,
  endpointContextOf,
  probeEndpointContext,
} from "./endpoint_context.ts";
import { PromptCalibration } from "./prompt_calibration.ts";

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

/** How long one generation may take before the client gives up: the user cancels sooner. */
const GENERATION_TIMEOUT_MS = 60 * 60 * 1000;

type ResponseFormat = "json_schema" | "json_object" | "none";
const RESPONSE_FORMATS: readonly ResponseFormat[] = ["json_schema", "json_object", "none"];

/** The least answer a request asks for where the context's room after the prompt is less. */
const MIN_ROOM_TOKENS = 128;

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

class EndpointModel implements Model {
  /** The first response format this server took; tried in order until one is. */
  #format = 0;
  /**
   * Tool requests in a row whose stream came back empty. A server that cannot stream tool calls
   * (llama-cpp-python's function-calling format) ends the stream before its first chunk; after
   * two such in a row its tool requests are sent whole, and their reply arrives at once.
   */
  #emptyToolStreams = 0;

  constructor(
    private readonly client: OpenAI,
    readonly place: Required<Pick<EndpointPlace, "model">> & EndpointPlace,
    private context: EndpointContext,
  ) {}

  /** The server's model id: what a transcript's `model` says (the URL may carry secrets). */
  get displayName(): string {
    return this.place.model;
  }

  get contextSize(): number {
    return this.context.size;
  }

  get contextSource(): ContextSource {
    return this.context.source;
  }

  get contextNotice(): string | undefined {
    return this.context.notice;
  }

  /** A session: the model's settings, and the calibration its own conversation teaches. */
  openSession(): Promise<ModelSession> {
    const calibration = new PromptCalibration();
    const context = () => this.context;
    return Promise.resolve({
      // Read at each use: a refusal may have told the context since.
      get contextSize() {
        return context().size;
      },
      get contextSource() {
        return context().source;
      },
      countPromptTokens: (conversation, tools) =>
        Promise.resolve(calibration.count(conversation, tools)),
      countTextTokens: (text) => calibration.countText(text),
      generate: (request) => this.generate(request, calibration),
      dispose: () => Promise.resolve(),
    });
  }

  dispose(): Promise<void> {
    return Promise.resolve();
  }

  async generate(
    request: GenerateRequest,
    calibration = new PromptCalibration(),
  ): Promise<GenerateResult> {
    if (request.responseSchema !== undefined && request.tools.length > 0) {
      throw new AgentError("INTERNAL", "A response schema cannot be combined with tools");
    }
    for (;;) {
      const format = RESPONSE_FORMATS[this.#format] ?? "none";
      try {
        const streamed = request.tools.length === 0 || this.#emptyToolStreams < 2;
        const result = await this.#request(request, format, streamed, calibration);
        if (result !== "empty") {
          if (streamed && request.tools.length > 0) this.#emptyToolStreams = 0;
          return result;
        }
        if (!streamed || request.tools.length === 0) throw this.#emptyReply();
        // This request goes again whole; one empty stream may be a hiccup, two in a row are
        // a server that cannot stream tool calls.
        this.#emptyToolStreams++;
        const whole = await this.#request(request, format, false, calibration);
        if (whole === "empty") throw this.#emptyReply();
        return whole;
      } catch (error) {
        if (
          request.responseSchema !== undefined && format !== "none" && refusedResponseFormat(error)
        ) {
          // Hooks ask side by side: each refusal moves past the form it was refused, once.
          this.#format = Math.max(this.#format, RESPONSE_FORMATS.indexOf(format) + 1);
          continue;
        }
        throw this.#heedOverflow(endpointError(error, this.place));
      }
    }
  }

  /**
   * A refusal for size that names a context smaller than the one given or assumed (a wrong
   * `--ctx-size`, a server that says nothing of its own): the server's word stands from then on.
   */
  #heedOverflow(error: AgentError): AgentError {
    const told = contextOverflowOf(error)?.contextSize;
    if (told !== undefined && told < this.context.size) {
      this.context = { size: told, source: "server" };
    }
    return error;
  }

  #emptyReply(): AgentError {
    return new AgentError(
      "MODEL_SERVER",
      `The model server at ${this.place.baseUrl} ended its reply before sending anything: its ` +
        "log says why",
    );
  }

  /** One request; "empty" when the server sent no chunk at all (a stream it could not make). */
  async #request(
    request: GenerateRequest,
    format: ResponseFormat,
    streamed: boolean,
    calibration: PromptCalibration,
  ): Promise<GenerateResult | "empty"> {
    const wanted = request.maxTokens ?? answerTokenCap(this.context.size);
    // The room after the prompt, where the context is known: an assumed one may be larger.
    const room = this.context.source === "assumed" ? Infinity : Math.max(
      MIN_ROOM_TOKENS,
      this.context.size - calibration.count(request.conversation, request.tools),
    );
    const maxTokens = Math.min(wanted, room);
    const maxChars = replyCharCap(maxTokens);
    const assembler = new StreamAssembler(request, { maxChars, redactor: this.place.redactor });
    const finish = (cancelled: boolean): GenerateResult => {
      const got = assembler.result();
      const usage = got.usage;
      calibration.record(request.conversation, request.tools, usage?.promptTokens);
      // Cut here (the server went on past its max_tokens): the calls came only in part.
      const cut = !cancelled && assembler.full;
      // Stopped at the room the context had left, not at the answer cap: the context is full.
      const full = got.finish === "max_tokens" && maxTokens < wanted;
      return {
        text: got.text,
        thought: got.thought,
        toolCalls: cancelled || cut || got.finish !== "tool_calls" ? [] : got.toolCalls,
        stop: cancelled
          ? "cancelled"
          : cut
          ? "max_tokens"
          : full
          ? "context_full"
          : got.finish ?? "end",
        tokens: {
          prompt: usage?.promptTokens ?? 0,
          evaluated: usage ? usage.promptTokens - usage.cachedTokens : 0,
          generated: usage?.completionTokens ?? 0,
        },
        ...(cut
          ? {
            notice: `The model server at ${this.place.baseUrl} sent more than ${maxChars} ` +
              `characters in one reply, though it was asked for at most ${maxTokens} tokens: ` +
              "the reply was cut there",
          }
          : {}),
      };
    };
    if (request.signal.aborted) return finish(true);
    const tools: ChatCompletionTool[] = toChatTools(request.tools);
    const body: ChatCompletionCreateParamsStreaming = {
      model: this.place.model,
      messages: toChatMessages(request.conversation),
      stream: true,
      stream_options: { include_usage: true },
      // "auto" is the API's default with tools, but llama-cpp-python offers none without it.
      ...(tools.length > 0 ? { tools, tool_choice: "auto" } : {}),
      max_tokens: maxTokens,
      ...responseFormatOf(request.responseSchema, format),
    };
    try {
      // No retries: a server's refusal here is its setup (tools, context), which the user must
      // hear of at once, not after the client's backoff; the listing at start does retry.
      // A whole reply may take long on a slow server: the cancel ends it, not a timer.
      const options = { signal: request.signal, maxRetries: 0, timeout: GENERATION_TIMEOUT_MS };
      if (streamed) {
        const stream = await this.client.chat.completions.create(body, options);
        for await (const chunk of stream) {
          assembler.push(chunk);
          // Leaving the loop drops the request: the server stops sending.
          if (assembler.full) break;
        }
      } else {
        const { stream: _, stream_options: __, ...whole } = body;
        assembler.pushCompletion(await this.client.chat.completions.create(whole, options));
      }
    } catch (error) {
      if (request.signal.aborted || isAbort(error)) return finish(true);
      throw error;
    }
    if (assembler.chunks === 0 && !request.signal.aborted) return "empty";
    return finish(request.signal.aborted);
  }
}

function responseFormatOf(
  schema: Readonly<Record<string, unknown>> | undefined,
  format: ResponseFormat,
): Pick<ChatCompletionCreateParamsStreaming, "response_format"> {
  if (schema === undefined || format === "none") return {};
  if (format === "json_object") {
    // `schema` beside json_object is llama-server's and llama-cpp-python's way to constrain it.
    return { response_format: { type: "json_object", schema: { ...schema } } as never };
  }
  return {
    response_format: {
      type: "json_schema",
      json_schema: { name: "answer", schema: { ...schema }, strict: false },
    },
  };
}
