/**
 * What `--model` names, and opening it: a local GGUF file, a Hugging Face file
 * (`hf:OWNER/REPO[:FILE]`, fetched once into the user's cache), or a scripted model
 * (`scripted:FILE`, JSON turns). Parsing is pure; the llama backend (and with it node-llama-cpp)
 * is imported only when a GGUF model is opened.
 */
import { resolve } from "node:path";
import { AgentError } from "../error.ts";
import type { Model } from "./model.ts";
import { loadScriptedModel } from "./scripted/scripted_model.ts";

export type ModelSource =
  | { readonly kind: "path"; readonly path: string }
  /** `value` as the user gave it; `uri` in node-llama-cpp's form (`hf:OWNER/REPO/FILE`). */
  | { readonly kind: "hf"; readonly value: string; readonly uri: string }
  | { readonly kind: "scripted"; readonly path: string };

/** Parses a `--model` value, resolving paths against `cwd`; a malformed `hf:` is a USAGE error. */
export function parseModelSource(value: string, cwd: string): ModelSource {
  if (value.startsWith("scripted:")) {
    return { kind: "scripted", path: resolve(cwd, value.slice("scripted:".length)) };
  }
  if (!value.startsWith("hf:")) return { kind: "path", path: resolve(cwd, value) };
  const rest = value.slice("hf:".length);
  const colon = rest.indexOf(":");
  const repo = colon < 0 ? rest : rest.slice(0, colon);
  const file = colon < 0 ? "" : rest.slice(colon + 1);
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo) || (colon >= 0 && file === "")) {
    throw new AgentError(
      "USAGE",
      `Invalid model "${value}": expected a GGUF path, hf:OWNER/REPO[:FILE] or scripted:FILE`,
    );
  }
  // A file in the repository versus a quantization tag such as "Q4_K_M" (node-llama-cpp picks
  // the matching file).
  const uri = file === ""
    ? `hf:${repo}`
    : file.endsWith(".gguf")
    ? `hf:${repo}/${file}`
    : `hf:${repo}:${file}`;
  return { kind: "hf", value, uri };
}

/** `$XDG_CACHE_HOME/llama-agent/models`, else `$HOME/.cache/llama-agent/models`. */
export function modelCacheDir(env: (name: string) => string | undefined): string | undefined {
  const xdg = env("XDG_CACHE_HOME");
  if (xdg) return `${xdg}/llama-agent/models`;
  const home = env("HOME");
  return home ? `${home}/.cache/llama-agent/models` : undefined;
}

/**
 * `$XDG_CACHE_HOME/llama-agent/prefix-states`, else `$HOME/.cache/llama-agent/prefix-states`:
 * the evaluated fixed prompts new sessions start from (prefix_state_cache.ts).
 */
export function prefixStateCacheDir(
  env: (name: string) => string | undefined,
): string | undefined {
  const xdg = env("XDG_CACHE_HOME");
  if (xdg) return `${xdg}/llama-agent/prefix-states`;
  const home = env("HOME");
  return home ? `${home}/.cache/llama-agent/prefix-states` : undefined;
}

export interface OpenModelOptions {
  readonly contextSize?: number;
  readonly threads?: number;
  readonly gpu: "auto" | "off";
  /** Where `hf:` models are downloaded to and found again. */
  readonly cacheDir?: string;
  /** Where new sessions' evaluated fixed prompts are kept (`prefixStateCacheDir`); none: not kept. */
  readonly prefixStateDir?: string;
  onProgress?(stage: "download" | "load", fraction: number): void;
  log?(line: string): void;
  /** Abandons a download in progress (the agent is exiting). */
  readonly signal?: AbortSignal;
}

/** Opens the model `source` names: downloads an `hf:` file first when it is not cached. */
export async function openModel(source: ModelSource, options: OpenModelOptions): Promise<Model> {
  if (source.kind === "scripted") return await loadScriptedModel(source.path);
  const llama = await import("./llama/llama_model.ts");
  const modelPath = source.kind === "path" ? source.path : await llama.resolveModelSource(source, {
    cacheDir: options.cacheDir,
    onProgress: (fraction) => options.onProgress?.("download", fraction),
    signal: options.signal,
  });
  const loadProgress = wholeStage((fraction) => options.onProgress?.("load", fraction));
  // Starting llama.cpp takes a second before it reports anything: say that loading has begun.
  loadProgress(0);
  const model = await llama.loadLlamaModel({
    modelPath,
    contextSize: options.contextSize,
    threads: options.threads,
    prefixStateDir: options.prefixStateDir,
    gpu: options.gpu,
    onProgress: loadProgress,
    log: options.log,
  });
  loadProgress(1);
  return model;
}

/**
 * A stage's progress as a watcher wants it: each value once, never going back, and 100 % once
 * at the end (llama.cpp may stop short of it, or report it twice).
 */
function wholeStage(report: (fraction: number) => void): (fraction: number) => void {
  let last = -1;
  return (fraction) => {
    if (fraction <= last) return;
    last = fraction;
    report(fraction);
  };
}
