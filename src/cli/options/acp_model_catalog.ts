/**
 * The models a session of `acp` may switch to (its "Model" config option): the one the flags
 * name first, then the GGUF files in the model cache, then, with `--endpoint`, the server's
 * models. Each is opened the way the flags would open it.
 */
import {
  cachedGgufLister,
  createModelCatalog,
  ggufChoice,
  ggufPathOf,
  type ModelCatalog,
  type ModelChoice,
  type ModelLister,
} from "../../acp/model_catalog.ts";
import type { ModelProvider } from "../../acp/model_provider.ts";
import { modelCacheDir } from "../../model/model_source.ts";
import type * as OpenAiBackend from "../../model/openai/openai_model.ts";
import {
  type LoaderDeps,
  type ModelFlags,
  modelLoaderOf,
  type ModelSetup,
} from "./acp_model_flags.ts";

const ENDPOINT_PREFIX = "endpoint:";
/** How long session/new waits for a listing: a menu must not wait long on a server. */
const LIST_TIMEOUT_MS = 3_000;

export function acpModelCatalog(
  setup: ModelSetup,
  flags: ModelFlags,
  defaultProvider: ModelProvider,
  deps: LoaderDeps,
): ModelCatalog {
  const open = (chosen: ModelSetup) => modelLoaderOf(chosen, flags, deps);
  const cached = cachedGgufLister(modelCacheDir(deps.env));
  // A default fetched from the hub lies in the cache too, under node-llama-cpp's file name: once
  // it is loaded its name is known, and it is not offered a second time.
  let defaultFile: string | undefined;
  if (setup.kind === "local" && setup.source.kind === "hf") {
    defaultProvider.get().then((model) => (defaultFile = model.displayName), () => {});
  }
  const listers: ModelLister[] = [
    async (signal) =>
      (await cached(signal)).filter((choice) => choice.name + ".gguf" !== defaultFile),
  ];
  if (setup.kind === "endpoint") listers.push(endpointLister(setup));
  return createModelCatalog({
    defaultChoice: defaultChoiceOf(setup, flags),
    defaultProvider,
    listers,
    listTimeoutMs: LIST_TIMEOUT_MS,
    log: deps.log,
    loaderFor: (id) => {
      const path = ggufPathOf(id);
      if (path !== undefined) return open({ kind: "local", source: { kind: "path", path } });
      if (setup.kind === "endpoint" && id.startsWith(ENDPOINT_PREFIX)) {
        const model = id.slice(ENDPOINT_PREFIX.length);
        return open({ kind: "endpoint", endpoint: { ...setup.endpoint, model } });
      }
      return undefined;
    },
  });
}

function defaultChoiceOf(setup: ModelSetup, flags: ModelFlags): ModelChoice {
  if (setup.kind === "endpoint") {
    const { model, baseUrl } = setup.endpoint;
    return model === undefined
      ? { id: ENDPOINT_PREFIX, name: "The server's first model", description: `On ${baseUrl}` }
      : { id: `${ENDPOINT_PREFIX}${model}`, name: model, description: `On ${baseUrl}` };
  }
  const { source } = setup;
  switch (source.kind) {
    case "path":
      return { ...ggufChoice(source.path), description: "The model the agent was started with" };
    case "hf":
      return { id: source.value, name: source.value, description: "Fetched once into the cache" };
    case "scripted":
      return { id: `scripted:${source.path}`, name: flags.model ?? source.path };
    default:
      return source satisfies never;
  }
}

function endpointLister(setup: Extract<ModelSetup, { kind: "endpoint" }>): ModelLister {
  const { endpoint } = setup;
  // Loaded with the first listing (the `openai` client), and one client for every listing.
  let connected:
    | Promise<{ openai: typeof OpenAiBackend; connection: OpenAiBackend.EndpointConnection }>
    | undefined;
  const connect = () =>
    connected ??= import("../../model/openai/openai_model.ts").then((openai) => ({
      openai,
      connection: openai.connectEndpoint(endpoint),
    }));
  return async (signal) => {
    const { openai, connection } = await connect();
    // A menu must not wait on a server that is down: no retries, and a request that is dropped
    // when the catalog stops waiting for it (the signal's abort, not a timer of its own that
    // would outlive a request that failed at once).
    const listed = await openai.listEndpointModels(connection, { retries: 0, signal });
    // Without --model the default is the first listed: it is not offered twice.
    const offered = endpoint.model === undefined ? listed.slice(1) : listed;
    return offered.map((entry) => ({
      id: `${ENDPOINT_PREFIX}${entry.id}`,
      name: entry.id,
      description: `On ${endpoint.baseUrl}`,
    }));
  };
}
