/**
 * Whether a model server uses the `tools` a request sends, as far as it says so without a
 * generation, and what makes it use them. Servers differ, and two of them drop tools silently:
 * - llama-server refuses tools without `--jinja` (an error the agent explains, openai_errors.ts);
 *   with it, a model whose chat template has no tool calls gets none, silently. Recent builds say
 *   so in `GET /props`: `chat_template_caps.supports_tools` and `supports_tool_calls`;
 * - llama-cpp-python drops them under its default chat format and honours them under
 *   `--chat_format chatml-function-calling` (or a model's own function-calling format). Nothing
 *   it serves says which runs; it is known by its listing (`owned_by: "me"`);
 * - vLLM refuses them without `--enable-auto-tool-choice --tool-call-parser NAME`; its listing
 *   says `owned_by: "vllm"`;
 * - Ollama refuses them for a model without the `tools` capability (`POST /api/show` lists
 *   them);
 * - LM Studio is known by `GET /api/v0/models`.
 *
 * What the server does not say is left to a generation (`doctor` asks the model). The probes
 * here go out together, bounded as the context's are (endpoint_context.ts): through the
 * endpoint's fetch and headers, no retries, all given up after the timeout; whatever fails means
 * "does not say".
 */
import {
  askJson,
  CONTEXT_PROBE_TIMEOUT_MS,
  type ContextProbeOptions,
  serverRoot,
} from "./endpoint_context.ts";

export const SERVER_KINDS = [
  "llama-server",
  "llama-cpp-python",
  "vllm",
  "ollama",
  "lm-studio",
] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

/** How the user knows each server. */
export const SERVER_NAMES: Readonly<Record<ServerKind, string>> = {
  "llama-server": "llama-server",
  "llama-cpp-python": "llama-cpp-python",
  vllm: "vLLM",
  ollama: "Ollama",
  "lm-studio": "LM Studio",
};

export interface ServerToolSupport {
  /** Which server it is, where its own paths or its listing tell. */
  readonly server?: ServerKind;
  /** What the server says of the model and tools; absent where it says nothing. */
  readonly tools?: "yes" | "no";
  /** Where and how it says so, for the user. */
  readonly said?: string;
}

/** Asks the server what it is, and what it says of `model` and tools. */
export async function probeServerToolSupport(
  options: ContextProbeOptions,
): Promise<ServerToolSupport> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? CONTEXT_PROBE_TIMEOUT_MS);
  const abandon = () => controller.abort();
  options.signal?.addEventListener("abort", abandon, { once: true });
  const root = serverRoot(options.baseUrl);
  const ask = (method: "GET" | "POST", url: string, body?: object) =>
    askJson(options, controller.signal, method, url, body);
  try {
    const model = encodeURIComponent(options.model);
    const [props, show, lmStudio, listing] = await Promise.all([
      ask("GET", `${root}/props?model=${model}&autoload=false`),
      ask("POST", `${root}/api/show`, { model: options.model }),
      ask("GET", `${root}/api/v0/models`),
      ask("GET", `${options.baseUrl.replace(/\/+$/, "")}/models`),
    ]);
    return llamaServerSupport(props) ?? ollamaSupport(options.model, show) ??
      (isLmStudioListing(lmStudio)
        ? { server: "lm-studio" }
        : listedServer(options.model, listing));
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", abandon);
  }
}

/** What makes `server` use a request's tools; every server's way where it is not known. */
export function toolsFix(server: ServerKind | undefined, model: string): string {
  switch (server) {
    case "llama-server":
      return "start llama-server with --jinja, and a model whose chat template has tool calls " +
        "(or give it one with --chat-template-file)";
    case "llama-cpp-python":
      return "start llama-cpp-python's server with --chat_format chatml-function-calling (its " +
        "default chat format drops tools)";
    case "vllm":
      return "start vLLM with --enable-auto-tool-choice --tool-call-parser <the parser for the " +
        "model, e.g. hermes for Qwen>";
    case "ollama":
      return `pick an Ollama model whose capabilities list tools ("ollama show ${model}" lists ` +
        "them)";
    case "lm-studio":
      return "load a model that LM Studio marks for tool use";
    case undefined:
      return "start llama-server with --jinja, llama-cpp-python with --chat_format " +
        "chatml-function-calling, vLLM with --enable-auto-tool-choice --tool-call-parser NAME; " +
        "on Ollama, pick a model whose capabilities list tools";
    default:
      return server satisfies never;
  }
}

/**
 * What the user is told when the agent starts on an endpoint (undefined: nothing to tell): that
 * the server says it will not use the tools, or that it is llama-cpp-python, whose default drops
 * them without a word.
 */
export function toolSupportNotice(
  baseUrl: string,
  model: string,
  support: ServerToolSupport,
): string | undefined {
  if (support.tools === "no") {
    return `The model server at ${baseUrl} will not use the agent's tools with model "${model}": ` +
      `${support.said}. The model can only answer in text: ${toolsFix(support.server, model)}`;
  }
  if (support.server === "llama-cpp-python" && support.tools === undefined) {
    return `The model server at ${baseUrl} is llama-cpp-python, whose default chat format drops ` +
      "tools without a word: unless it runs with --chat_format chatml-function-calling (or the " +
      `model's function-calling format), the model never sees the agent's tools. ` +
      `"llama-agent doctor --endpoint ${baseUrl}" checks`;
  }
  return undefined;
}

function llamaServerSupport(props: unknown): ServerToolSupport | undefined {
  if (!isObject(props) || !isObject(props.default_generation_settings)) return undefined;
  const caps = props.chat_template_caps;
  if (!isObject(caps)) return { server: "llama-server" };
  for (const key of ["supports_tools", "supports_tool_calls"]) {
    if (caps[key] === false) {
      return {
        server: "llama-server",
        tools: "no",
        said: `its chat template takes no tools (GET /props: chat_template_caps.${key} is false)`,
      };
    }
  }
  return caps.supports_tools === true && caps.supports_tool_calls === true
    ? { server: "llama-server", tools: "yes", said: "GET /props: chat_template_caps" }
    : { server: "llama-server" };
}

function ollamaSupport(model: string, show: unknown): ServerToolSupport | undefined {
  if (!isObject(show) || !(isObject(show.model_info) || typeof show.parameters === "string")) {
    return undefined;
  }
  const capabilities = show.capabilities;
  if (!Array.isArray(capabilities)) return { server: "ollama" };
  const listed = capabilities.filter((item): item is string => typeof item === "string");
  return listed.includes("tools")
    ? { server: "ollama", tools: "yes", said: `POST /api/show lists "tools" for "${model}"` }
    : {
      server: "ollama",
      tools: "no",
      said: `Ollama lists its capabilities as ${
        listed.map((item) => `"${item}"`).join(", ") || "none"
      }, without "tools"`,
    };
}

function isLmStudioListing(listing: unknown): boolean {
  return isObject(listing) && Array.isArray(listing.data) &&
    listing.data.some((entry: unknown) =>
      isObject(entry) && typeof entry.compatibility_type === "string"
    );
}

/** The server a `/models` listing names as the model's owner, where it is one we know. */
function listedServer(model: string, listing: unknown): ServerToolSupport {
  if (!isObject(listing) || !Array.isArray(listing.data)) return {};
  const entries = listing.data.filter(isObject);
  const entry = entries.find((item) => item.id === model) ?? entries[0];
  switch (entry?.owned_by) {
    case "vllm":
      return { server: "vllm" };
    case "me":
      return { server: "llama-cpp-python" };
    case "llamacpp":
      return { server: "llama-server" };
    default:
      return {};
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
