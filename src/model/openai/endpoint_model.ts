/**
 * A model of an OpenAI-compatible server as the agent's `Model`: each generation one chat
 * completion request (streamed, or sent whole to a server that cannot stream tool calls), asking
 * for at most the answer cap's tokens and the room the context has after the prompt, its reply
 * cut at the cap's characters; a `responseSchema` as `json_schema`, `json_object` or nothing,
 * the first form the server takes kept. openai_model.ts connects and picks the model.
 */
import type OpenAI from "openai";
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
} from "./openai_errors.ts";
import { toChatMessages, toChatTools } from "./openai_messages.ts";
import { StreamAssembler } from "./openai_stream.ts";
import { answerTokenCap, replyCharCap } from "../answer_cap.ts";
import type { EndpointContext } from "./endpoint_context.ts";
import { PromptCalibration } from "./prompt_calibration.ts";

/** How long one generation may take before the client gives up: the user cancels sooner. */
const GENERATION_TIMEOUT_MS = 60 * 60 * 1000;

type ResponseFormat = "json_schema" | "json_object" | "none";
const RESPONSE_FORMATS: readonly ResponseFormat[] = ["json_schema", "json_object", "none"];

/** The least answer a request asks for where the context's room after the prompt is less. */
const MIN_ROOM_TOKENS = 128;

/** `Model` on one model of an endpoint: each `generate` is one chat completion request. */
export class EndpointModel implements Model {
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
