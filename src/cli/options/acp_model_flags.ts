/**
 * The model the `acp` flags name, checked before the protocol starts, and how to open it: a
 * model in this process (`--model PATH|hf:...|scripted:...`, node-llama-cpp) or one on an
 * OpenAI-compatible server (`--endpoint URL [--model NAME] [--api-key-env VAR]`).
 *
 * What can be checked without loading is checked here, so that a wrong flag exits at once with
 * a message instead of failing every prompt: a model file's readability and format, the URL's
 * form, that the key's variable is set, and that the key and `OPENAI_CUSTOM_HEADERS` can go in
 * a header (a line break cannot). Whether the server answers is learnt on loading,
 * in the background, as a model file's load is.
 */
import type { CliIo } from "../command_spec.ts";
import { modelFileProblem, type ReadableRoots } from "./startup_files.ts";
import type { LoadProgressReport, ModelLoader } from "../../acp/model_provider.ts";
import { errorMessage } from "../../error.ts";
import { DEFAULT_MODEL_URI } from "../../model/default_model.ts";
import {
  modelCacheDir,
  type ModelSource,
  openModel,
  parseModelSource,
  prefixStateCacheDir,
} from "../../model/model_source.ts";
import { apiKeyEnvProblem, customHeadersProblem } from "../../model/openai/endpoint_key.ts";
import { endpointUrlProblem } from "../../model/openai/endpoint_url.ts";
import type * as OpenAiBackend from "../../model/openai/openai_model.ts";
import type { EndpointOptions } from "../../model/openai/openai_model.ts";

export interface ModelFlags {
  readonly model?: string;
  readonly endpoint?: string;
  readonly apiKeyEnv?: string;
  readonly contextSize?: number;
  readonly threads?: number;
  readonly gpu?: string;
  /**
   * Where `endpoint` and `api-key-env` came from, for messages (`--endpoint` when absent; a
   * variable's name or the config file's path, line and key otherwise).
   */
  readonly places?: { readonly endpoint?: string; readonly apiKeyEnv?: string };
}

/**
 * The model flags among a command's parsed ones: `text` reads a string flag, `numbers` holds
 * `ctx-size` and `threads` once checked as counts.
 */
export function modelFlagsOf(
  text: (name: string) => string | undefined,
  numbers: Readonly<Record<string, number | undefined>>,
  places?: ModelFlags["places"],
): ModelFlags {
  return {
    model: text("model"),
    endpoint: text("endpoint"),
    apiKeyEnv: text("api-key-env"),
    contextSize: numbers["ctx-size"],
    threads: numbers["threads"],
    gpu: text("gpu"),
    ...(places === undefined ? {} : { places }),
  };
}

export type ModelSetup =
  | { readonly kind: "local"; readonly source: ModelSource }
  | { readonly kind: "endpoint"; readonly endpoint: EndpointOptions };

/** The setup the flags describe, or the message that says what is wrong with them. */
export async function modelSetupOf(
  flags: ModelFlags,
  io: Pick<CliIo, "cwd" | "env">,
  readable: ReadableRoots,
): Promise<{ ok: true; setup: ModelSetup } | { ok: false; message: string }> {
  const endpointAt = flags.places?.endpoint ?? "--endpoint";
  const keyAt = flags.places?.apiKeyEnv ?? "--api-key-env";
  if (flags.endpoint === undefined) {
    if (flags.apiKeyEnv !== undefined) {
      return { ok: false, message: `${keyAt} is for --endpoint: pass the server's URL too` };
    }
    let source: ModelSource;
    try {
      source = parseModelSource(flags.model ?? DEFAULT_MODEL_URI, io.cwd);
    } catch (error) {
      return { ok: false, message: errorMessage(error) };
    }
    const problem = await modelFileProblem(source, readable);
    return problem === undefined
      ? { ok: true, setup: { kind: "local", source } }
      : { ok: false, message: problem };
  }
  const urlProblem = endpointUrlProblem(flags.endpoint);
  if (urlProblem !== undefined) return { ok: false, message: `${endpointAt} ${urlProblem}` };
  const keyProblem = flags.apiKeyEnv === undefined
    ? undefined
    : apiKeyEnvProblem(flags.apiKeyEnv, io.env);
  if (keyProblem !== undefined) return { ok: false, message: `${keyAt} ${keyProblem}` };
  const headersProblem = customHeadersProblem(io.env);
  if (headersProblem !== undefined) return { ok: false, message: headersProblem };
  return {
    ok: true,
    setup: {
      kind: "endpoint",
      endpoint: {
        baseUrl: flags.endpoint.replace(/\/+$/, ""),
        model: flags.model,
        apiKeyEnv: flags.apiKeyEnv,
        env: io.env,
        contextSize: flags.contextSize,
      },
    },
  };
}

/** Flags that mean nothing to a model on a server, so the user learns they were not used. */
export function unusedWithEndpoint(flags: ModelFlags): string[] {
  if (flags.endpoint === undefined) return [];
  return [
    ...(flags.threads !== undefined ? ["--threads"] : []),
    ...(flags.gpu !== undefined ? ["--gpu"] : []),
  ];
}

export interface LoaderDeps {
  readonly env: (name: string) => string | undefined;
  /** Progress on stderr (download and load of a model file). */
  progress(label: string, fraction: number): void;
  log(line: string): void;
}

/** Opens the model of `setup`; a failure is logged once and rejects with its message. */
export function modelLoaderOf(setup: ModelSetup, flags: ModelFlags, deps: LoaderDeps): ModelLoader {
  return (signal: AbortSignal, reportProgress: LoadProgressReport) => {
    const opening = setup.kind === "endpoint"
      // Imported here: the `openai` client costs ~100 ms to load, which a local model never needs.
      ? import("../../model/openai/openai_model.ts").then(async (openai) => {
        const model = await openai.openEndpointModel({ ...setup.endpoint, signal });
        await noticeToolSupport(openai, setup.endpoint, model.displayName, signal, deps.log);
        return model;
      })
      : openModel(setup.source, {
        signal,
        contextSize: flags.contextSize,
        threads: flags.threads,
        gpu: flags.gpu === "off" ? "off" : "auto",
        cacheDir: modelCacheDir(deps.env),
        prefixStateDir: prefixStateCacheDir(deps.env),
        onProgress: (stage, fraction) => {
          deps.progress(stage === "download" ? "Downloading model" : "Loading model", fraction);
          // The editor hides stderr: a prompt waiting for the model shows it too.
          reportProgress(stage, fraction);
        },
        log: deps.log,
      });
    return opening.then((model) => {
      // An assumed context size is said at start, where the user looks when turns fail.
      if (model.contextNotice !== undefined) deps.log(model.contextNotice);
      return model;
    }, (error) => {
      deps.log(errorMessage(error));
      throw error;
    });
  };
}

/**
 * What the server says of `model` and tools, told once it is open: that it will not use them, or
 * that it is llama-cpp-python, whose default chat format drops them without a word. No
 * generation is made for it (`doctor` makes them), and a server that says nothing is not named.
 */
async function noticeToolSupport(
  openai: typeof OpenAiBackend,
  endpoint: EndpointOptions,
  model: string,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<void> {
  const { probeServerToolSupport, toolSupportNotice } = await import(
    "../../model/openai/endpoint_tool_support.ts"
  );
  const support = await probeServerToolSupport({
    baseUrl: endpoint.baseUrl,
    model,
    ...openai.connectEndpoint(endpoint).probe,
    signal,
  });
  const notice = toolSupportNotice(endpoint.baseUrl, model, support);
  if (notice !== undefined) log(notice);
}
