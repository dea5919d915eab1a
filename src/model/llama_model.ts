/**
 * The llama backend: `Model` on node-llama-cpp. The only file that imports node-llama-cpp, and
 * only lazily (`await import`), so that commands without a model never load it (~350 ms).
 *
 * One model per process. Each session gets its own context (one sequence): sessions are few and
 * long-lived, a context per session makes KV memory follow the open sessions, and disposing a
 * session frees its memory at once (one shared context would need its sequence count up front).
 * A session keeps one `LlamaChat` on its sequence, so each turn evaluates only what is new since
 * the last one: node-llama-cpp keeps the longest common prefix of the sequence's tokens.
 *
 * A request with a `responseSchema` is generated under a JSON-schema grammar (no functions: the
 * two cannot be combined in one call). The schema goes through the same subset as tool params
 * (llama_functions.ts); its grammar is built once per model and schema.
 *
 * A conversation is never cut to fit. node-llama-cpp's own answer to a history longer than the
 * context is a context shift: `LlamaChat` drops the first responses and the sequence erases its
 * first tokens, silently, and the model goes on from a conversation nobody wrote. The agent
 * compacts instead, so here both shifts are refused: the shift size that node-llama-cpp asks for
 * before any shift throws `ContextShiftRefused` (a custom strategy would not do: one that throws
 * is replaced by the default one). A request whose prompt does not fit fails with
 * `ContextFullError` before anything is evaluated, and an answer is capped at the room the
 * context has left, so it ends `context_full` with all its text instead of reaching the shift.
 * Tokens are counted with the model's own tokenizer, on the same text the chat wrapper renders.
 */
import { basename } from "node:path";
import type {
  ChatHistoryItem,
  GbnfJsonSchema,
  Llama,
  LlamaChat,
  LlamaChatResponse,
  LlamaContext,
  LlamaGrammar,
  LlamaModel,
} from "node-llama-cpp";
import { AgentError, errorMessage } from "../error.ts";
import { ContextFullError } from "./context_full_error.ts";
import { checkGgufFile, hubUnreachable } from "./model_file_checks.ts";
import { toLlamaFunctions, toParamsSchema } from "./llama_functions.ts";
import { type LlamaHistoryItem, toLlamaHistory } from "./llama_history.ts";
import type { ChatFormat } from "./chat_format.ts";
import type {
  ConversationItem,
  GenerateRequest,
  GenerateResult,
  GenerateStop,
  Model,
  ModelSession,
  RequestedToolCall,
  ToolDefinition,
} from "./model.ts";

/** Context size when none is given: node-llama-cpp fits it to memory, up to this. */
const DEFAULT_MAX_CONTEXT_SIZE = 8192;

export interface LlamaRuntimeOptions {
  readonly gpu: "auto" | "off";
  /** llama.cpp's warnings and errors (it must never write to stdout, the protocol channel). */
  log?(line: string): void;
}

export interface LlamaModelLoadOptions {
  readonly modelPath: string;
  readonly contextSize?: number;
  /** CPU threads per context; default: the machine's core count. */
  readonly threads?: number;
  onProgress?(fraction: number): void;
}

export type LlamaModelOptions = LlamaModelLoadOptions & LlamaRuntimeOptions;

/** llama.cpp loaded once, for loading several models (tests); `loadLlamaModel` owns its own. */
export interface LlamaRuntime {
  loadModel(options: LlamaModelLoadOptions): Promise<Model>;
  dispose(): Promise<void>;
}

/**
 * Imports node-llama-cpp now. Importing it registers handlers for ~18 process signals that live
 * as long as the process (its lockfile dependency uses signal-exit), so a test file calls this at
 * load time: then no single test is charged with them by the ops sanitizer.
 */
export async function preloadLlama(): Promise<void> {
  await import("node-llama-cpp");
}

/**
 * How the model of a session in this process writes tool calls (chat_format.ts), for `doctor`;
 * undefined for a session of another backend.
 */
export function chatFormatOf(session: ModelSession): Promise<ChatFormat> | undefined {
  return session instanceof LlamaSession ? session.chatFormat() : undefined;
}

/** Loads llama.cpp and the model at `modelPath`; the model's `dispose` frees both. */
export async function loadLlamaModel(options: LlamaModelOptions): Promise<Model> {
  // A wrong path fails here, before llama.cpp takes a second to load.
  await checkGgufFile(options.modelPath);
  const runtime = await openLlamaRuntime(options);
  try {
    const model = await runtime.loadModel(options);
    return {
      displayName: model.displayName,
      openSession: () => model.openSession(),
      async dispose() {
        await model.dispose();
        await runtime.dispose();
      },
    };
  } catch (error) {
    await runtime.dispose();
    throw error;
  }
}

/** Loads the llama.cpp binary (prebuilt only, never built or downloaded). */
export async function openLlamaRuntime(options: LlamaRuntimeOptions): Promise<LlamaRuntime> {
  const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
  const log = options.log ?? ((line: string) => console.error(line));
  let llama: Llama;
  try {
    llama = await getLlama({
      gpu: options.gpu === "off" ? false : "auto",
      build: "never",
      skipDownload: true,
      progressLogs: false,
      // No cap here: each context gets exactly the threads it asks for.
      maxThreads: 0,
      logLevel: LlamaLogLevel.warn,
      logger: (level, message) => log(`llama.cpp ${level}: ${message.trimEnd()}`),
    });
  } catch (error) {
    throw new AgentError("MODEL_LOAD", `Cannot start llama.cpp: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return {
    loadModel: (loadOptions) => loadModel(llama, loadOptions),
    dispose: () => llama.dispose(),
  };
}

async function loadModel(llama: Llama, options: LlamaModelLoadOptions): Promise<Model> {
  const path = options.modelPath;
  await checkGgufFile(path);
  let model: LlamaModel;
  try {
    model = await llama.loadModel({
      modelPath: path,
      onLoadProgress: options.onProgress,
    });
  } catch (error) {
    throw new AgentError("MODEL_LOAD", `Cannot load model "${path}": ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const threads = options.threads ?? navigator.hardwareConcurrency;
  const contextSize = options.contextSize ?? { max: DEFAULT_MAX_CONTEXT_SIZE };
  const grammars = new GrammarCache(llama);
  return {
    displayName: basename(path),
    async openSession() {
      let context: LlamaContext;
      try {
        context = await model.createContext({ contextSize, sequences: 1, threads });
      } catch (error) {
        throw new AgentError(
          "MODEL_LOAD",
          `Cannot create a context for model "${path}": ${errorMessage(error)}`,
          { cause: error },
        );
      }
      const { LlamaChat } = await import("node-llama-cpp");
      const sequence = context.getSequence({ contextShift: { size: refuseContextShift } });
      const chat = new LlamaChat({ contextSequence: sequence });
      return new LlamaSession(model, context, chat, grammars);
    },
    dispose: () => model.dispose(),
  };
}

/** A context shift was asked for and refused: the conversation was to lose its beginning. */
class ContextShiftRefused extends Error {
  override readonly name = "ContextShiftRefused";
}

/**
 * The size of a context shift, as node-llama-cpp asks for it right before it shifts (in
 * `LlamaChat` and in the sequence): never given, so no shift happens.
 */
function refuseContextShift(): never {
  throw new ContextShiftRefused("The conversation does not fit in the context");
}

/** How node-llama-cpp 3.21 says that the history cannot be made to fit the context. */
const CONTEXT_OVERFLOW_MESSAGES = [
  "context size is too small",
  "fits the context size",
  "Failed to compress chat history",
];

/** JSON-schema grammars by schema text: building one parses and compiles a GBNF grammar. */
class GrammarCache {
  readonly #grammars = new Map<string, Promise<LlamaGrammar>>();

  constructor(private readonly llama: Llama) {}

  get(schema: Readonly<Record<string, unknown>>): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.#grammars.get(key);
    if (grammar === undefined) {
      grammar = this.#create(schema);
      this.#grammars.set(key, grammar);
      // A schema that failed stays uncached: the next request gets the error again, not a stale one.
      grammar.catch(() => this.#grammars.delete(key));
    }
    return grammar;
  }

  async #create(schema: Readonly<Record<string, unknown>>): Promise<LlamaGrammar> {
    try {
      // The subset is node-llama-cpp's schema type, written out; the compiler checks the fit.
      const subset: GbnfJsonSchema = toParamsSchema(schema);
      return await this.llama.createGrammarForJsonSchema<GbnfJsonSchema>(subset);
    } catch (error) {
      throw new AgentError(
        "INTERNAL",
        `Cannot build a grammar for the response schema: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }
}

class LlamaSession implements ModelSession {
  constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly chat: LlamaChat,
    private readonly grammars: GrammarCache,
  ) {}

  readonly contextSource = "model";

  get contextSize(): number {
    return this.context.contextSize;
  }

  countPromptTokens(
    conversation: readonly ConversationItem[],
    tools: readonly ToolDefinition[],
  ): Promise<number> {
    return Promise.resolve(
      this.#promptTokens(toLlamaHistory(conversation), toLlamaFunctions(tools)),
    );
  }

  countTextTokens(text: string): number {
    return this.model.tokenize(text).length;
  }

  /**
   * The chat wrapper node-llama-cpp resolved for the model, and whether its calls are its own:
   * the generic syntax is `ChatWrapper.defaultSettings.functions`, shared or copied.
   */
  async chatFormat(): Promise<ChatFormat> {
    const { ChatWrapper } = await import("node-llama-cpp");
    const wrapper = this.chat.chatWrapper;
    const generic = ChatWrapper.defaultSettings.functions;
    const own = wrapper.settings.functions;
    const sameText = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    return {
      wrapper: wrapper.wrapperName,
      chatTemplate: typeof this.model.fileInfo.metadata.tokenizer?.chat_template === "string",
      toolCalls: own === generic || sameText(own.call.prefix, generic.call.prefix)
        ? "generic"
        : "native",
    };
  }

  /** Tokens of the prompt `generate` evaluates: the wrapper's rendering of history and tools. */
  #promptTokens(
    history: LlamaHistoryItem[],
    functions: ReturnType<typeof toLlamaFunctions>,
  ): number {
    return this.chat.chatWrapper
      .generateContextState({
        chatHistory: history satisfies ChatHistoryItem[],
        availableFunctions: functions,
      })
      .contextText.tokenize(this.model.tokenizer).length;
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    if (request.responseSchema !== undefined && request.tools.length > 0) {
      throw new AgentError("INTERNAL", "A response schema cannot be combined with tools");
    }
    const history = toLlamaHistory(request.conversation) satisfies ChatHistoryItem[];
    const functions = toLlamaFunctions(request.tools);
    const grammar = request.responseSchema === undefined
      ? undefined
      : await this.grammars.get(request.responseSchema);
    const sequence = this.chat.sequence;
    const meterBefore = sequence.tokenMeter.getState();
    const prompt = this.#promptTokens(history, functions);
    const contextSize = this.context.contextSize;
    // The sequence must keep one free slot to go on generating (node-llama-cpp shifts at
    // contextSize - 1): what is left after the prompt is the answer's room.
    const room = contextSize - 1 - prompt;
    if (room < 1) throw this.#doesNotFit(prompt);
    const maxTokens = Math.min(request.maxTokens ?? contextSize, room);
    let text = "";
    let thought = "";
    const finish = (stop: GenerateStop, toolCalls: RequestedToolCall[] = []): GenerateResult => {
      const used = sequence.tokenMeter.diff(meterBefore);
      // The meter counts decodes that produced a token as output: the prompt's last token and
      // each generated token fed back. So the prompt cost is the input count plus that one.
      const generated = used.usedOutputTokens;
      const evaluated = used.usedInputTokens + (generated > 0 ? 1 : 0);
      return { text, thought, toolCalls, stop, tokens: { prompt, evaluated, generated } };
    };
    if (request.signal.aborted) return finish("cancelled");

    let response: LlamaChatResponse<NonNullable<typeof functions>> | LlamaChatResponse;
    try {
      response = await this.chat.generateResponse(history, {
        ...(grammar === undefined ? { functions } : { grammar }),
        signal: request.signal,
        stopOnAbortSignal: true,
        maxTokens,
        // Never shift (see the file's comment); the sequence's own shift is refused likewise.
        contextShift: { size: refuseContextShift },
        onResponseChunk: (chunk) => {
          if (chunk.text === "") return;
          if (chunk.type === undefined) {
            text += chunk.text;
            request.onTextChunk(chunk.text);
          } else if (chunk.segmentType === "thought") {
            thought += chunk.text;
            request.onThoughtChunk(chunk.text);
          }
        },
      });
    } catch (error) {
      // Aborted before any text: node-llama-cpp throws the signal's reason instead of returning.
      if (request.signal.aborted) return finish("cancelled");
      const message = errorMessage(error);
      if (
        error instanceof ContextShiftRefused ||
        CONTEXT_OVERFLOW_MESSAGES.some((known) => message.includes(known))
      ) {
        // Nothing generated in this call: what the model was given does not fit.
        if (sequence.tokenMeter.diff(meterBefore).usedOutputTokens === 0) {
          throw this.#doesNotFit(prompt);
        }
        return finish("context_full");
      }
      throw error;
    }
    text = response.response;
    thought = response.fullResponse
      .flatMap((item) =>
        typeof item !== "string" && item.segmentType === "thought" ? [item.text] : []
      )
      .join("");
    const reason = response.metadata.stopReason;
    // Stopped by the cap that the context's room set, not the caller's: the context is full.
    const full = reason === "maxTokens" && maxTokens === room && maxTokens !== request.maxTokens;
    const stop = full ? "context_full" : stopOf(reason);
    const toolCalls = stop === "tool_calls"
      ? (response.functionCalls ?? []).map((call) => ({
        name: call.functionName,
        input: call.params ?? {},
      }))
      : [];
    return finish(stop, toolCalls);
  }

  #doesNotFit(prompt: number): ContextFullError {
    const contextSize = this.context.contextSize;
    return new ContextFullError(
      `The conversation (${prompt} tokens with the tool descriptions) does not fit in the ` +
        `model's context of ${contextSize} tokens: start a new session or pass a larger --ctx-size`,
      { promptTokens: prompt, contextSize },
    );
  }

  async dispose(): Promise<void> {
    this.chat.dispose();
    await this.context.dispose();
  }
}

function stopOf(reason: LlamaChatResponse["metadata"]["stopReason"]): GenerateStop {
  switch (reason) {
    case "eogToken":
    case "stopGenerationTrigger":
    case "customStopTrigger":
      return "end";
    case "functionCalls":
      return "tool_calls";
    case "maxTokens":
      return "max_tokens";
    case "abort":
      return "cancelled";
    default:
      return reason satisfies never;
  }
}

export interface ResolveModelOptions {
  /** Where models are downloaded to and found again; node-llama-cpp's default when absent. */
  readonly cacheDir?: string;
  onProgress?(fraction: number): void;
  readonly signal?: AbortSignal;
  /**
   * Give up when no data arrives for this long (default 30 s): where the hub is blocked rather
   * than unreachable, requests hang instead of failing.
   */
  readonly stallTimeoutMs?: number;
}

/**
 * The local path of an `hf:` model: the cached file, or the file downloaded into `cacheDir`.
 * Offline or on any download failure, the error says to pass a local file instead.
 */
export async function resolveModelSource(
  source: { readonly value: string; readonly uri: string },
  options: ResolveModelOptions = {},
): Promise<string> {
  const { resolveModelFile } = await import("node-llama-cpp");
  if (options.cacheDir !== undefined) await Deno.mkdir(options.cacheDir, { recursive: true });
  const cached = await resolveModelFile(source.uri, {
    directory: options.cacheDir,
    cli: false,
    download: false,
  })
    .catch(() => undefined);
  if (cached !== undefined) return cached;
  const offline = await hubUnreachable();
  if (offline !== undefined) {
    throw new AgentError(
      "MODEL_UNAVAILABLE",
      `Cannot get model "${source.value}": ${offline} (offline? pass --model PATH to use a local GGUF file)`,
    );
  }
  const stallMs = options.stallTimeoutMs ?? 30_000;
  // node-llama-cpp passes the signal to the download only, not to the requests before it (which
  // retry for minutes when the hub cannot be reached): so give up by racing, not only aborting.
  const controller = new AbortController();
  let giveUp = (_reason: unknown) => {};
  const gaveUp = new Promise<never>((_, reject) => (giveUp = reject));
  gaveUp.catch(() => {}); // seen through the race below
  let stalled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      controller.abort();
      giveUp(new Error("stalled"));
    }, stallMs);
  };
  const abort = () => {
    controller.abort(options.signal?.reason);
    giveUp(options.signal?.reason);
  };
  options.signal?.addEventListener("abort", abort, { once: true });
  try {
    if (options.signal?.aborted) throw options.signal.reason;
    watch();
    const resolving = resolveModelFile(source.uri, {
      directory: options.cacheDir,
      // Its own progress bar would go to stdout, the protocol channel.
      cli: false,
      signal: controller.signal,
      onProgress: ({ totalSize, downloadedSize }) => {
        watch();
        options.onProgress?.(totalSize > 0 ? downloadedSize / totalSize : 0);
      },
    });
    // After giving up, its late failure is expected and ignored.
    resolving.catch(() => {});
    return await Promise.race([resolving, gaveUp]);
  } catch (error) {
    const detail = stalled
      ? `no answer from the server in ${Math.round(stallMs / 1000)} s`
      : errorMessage(error);
    throw new AgentError(
      "MODEL_UNAVAILABLE",
      `Cannot get model "${source.value}": ${detail} ` +
        "(offline? pass --model PATH to use a local GGUF file)",
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", abort);
  }
}
