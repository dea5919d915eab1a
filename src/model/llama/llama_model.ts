/**
 * The llama backend: `Model` on node-llama-cpp. Only the `llama_*` files of this folder import
 * node-llama-cpp, and only lazily (`await import`) or for types, so that commands without a
 * model never load it (~350 ms).
 *
 * One model per process. Each session gets its own context (one sequence): sessions are few and
 * long-lived, a context per session makes KV memory follow the open sessions, and disposing a
 * session frees its memory at once (one shared context would need its sequence count up front).
 * What a session does with its context is llama_session.ts; where its fixed prompt's evaluated
 * state is kept, llama_prefix_state.ts.
 *
 * Threads: by default as many as llama.cpp counts cores useful for math (`common_cpu_get_num_math`:
 * physical cores, without a core's second hardware thread or an Intel hybrid CPU's efficiency
 * cores), which is what llama.cpp's own tools and llama-bench default to. More threads than that
 * share a core's arithmetic units and make llama.cpp's threads wait on each other (llama.cpp
 * issue #19110: 9 tok/s on 8 physical cores, 2.5 tok/s on their 16 hardware threads);
 * bench/first_token.ts measures both on the machine at hand.
 */
import { basename } from "node:path";
import type { Llama, LlamaContext, LlamaModel } from "node-llama-cpp";
import { AgentError, errorMessage } from "../../error.ts";
import { checkGgufFile, hubUnreachable } from "../model_file_checks.ts";
import type { ChatFormat } from "../chat_format.ts";
import { GrammarCache } from "./llama_grammars.ts";
import type { PrefixStates } from "./llama_prefix_state.ts";
import { LlamaSession, refuseContextShift } from "./llama_session.ts";
import { LlamaToolChoice } from "./llama_tool_choice.ts";
import type { ToolChoice } from "./tool_choice_grammar.ts";
import type { Model, ModelSession } from "../model.ts";
import { PrefixStateCache } from "./prefix_state_cache.ts";

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
  /** CPU threads per context; default: `defaultThreads`, llama.cpp's count of physical cores. */
  readonly threads?: number;
  /**
   * Where the evaluated state of a new session's fixed prompt is kept and found
   * (prefix_state_cache.ts); without it, each new session evaluates its whole prompt.
   */
  readonly prefixStateDir?: string;
  /**
   * How an answer's first tokens are chosen where the model's calls use node-llama-cpp's generic
   * syntax (tool_choice_grammar.ts); default `free`, as node-llama-cpp does it.
   */
  readonly toolChoice?: ToolChoice;
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
    loadModel: (loadOptions) => loadModel(llama, loadOptions, log),
    dispose: () => llama.dispose(),
  };
}

/** The threads a context gets by default: llama.cpp's count of cores useful for math. */
export function defaultThreads(llama: Llama): number {
  return Math.max(1, llama.cpuMathCores);
}

async function loadModel(
  llama: Llama,
  options: LlamaModelLoadOptions,
  log: (line: string) => void,
): Promise<Model> {
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
  const threads = options.threads ?? defaultThreads(llama);
  const contextSize = options.contextSize ?? { max: DEFAULT_MAX_CONTEXT_SIZE };
  const grammars = new GrammarCache(llama);
  const prefixStates = options.prefixStateDir === undefined
    ? undefined
    : await prefixStatesOf(llama, model, path, options.prefixStateDir, log);
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
      const toolChoice = await LlamaToolChoice.forWrapper(
        chat.chatWrapper,
        options.toolChoice ?? "free",
      );
      return new LlamaSession(model, context, chat, grammars, prefixStates, toolChoice);
    },
    dispose: () => model.dispose(),
  };
}

/**
 * The prefix states of `model`, keyed by what makes a state loadable into it: the file (real
 * path, size, modification time: a model replaced in place is another model), node-llama-cpp
 * and llama.cpp, and where the model runs.
 */
async function prefixStatesOf(
  llama: Llama,
  model: LlamaModel,
  path: string,
  dir: string,
  log: (line: string) => void,
): Promise<PrefixStates> {
  const { getModuleVersion } = await import("node-llama-cpp");
  const file = await Deno.stat(path);
  const release = llama.llamaCppRelease;
  return {
    cache: new PrefixStateCache({ dir, log }),
    key: {
      model: await Deno.realPath(path),
      modelBytes: file.size,
      modelModified: file.mtime?.getTime() ?? 0,
      nodeLlamaCpp: await getModuleVersion(),
      llamaCpp: `${release.repo}@${release.release}`,
      gpu: String(llama.gpu),
      gpuLayers: model.gpuLayers,
    },
  };
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
