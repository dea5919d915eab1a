/**
 * What an OpenAI-compatible server's failures mean for the user, and what to do about each. The
 * servers word the same failure differently; the patterns below are the wordings of
 * llama-server, vLLM, Ollama and LM Studio.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { AgentError, errorMessage } from "../error.ts";

export interface EndpointPlace {
  /** The base URL, as the user gave it. */
  readonly baseUrl: string;
  /** The variable the key came from, when one did. */
  readonly apiKeyEnv?: string;
  readonly model?: string;
}

/** A request failed because tools were sent to a server that was not started to take them. */
const TOOLS_UNSUPPORTED = [
  /tools param requires --jinja/i, // llama-server
  /enable-auto-tool-choice/i, // vLLM
  /does not support tools/i, // Ollama
  /tool(s| calling| choice)? (is |are )?not supported/i,
];

/** The conversation is longer than the server's context. */
const CONTEXT_EXCEEDED = [
  /exceeds? the available context size/i, // llama-server
  /maximum context length/i, // vLLM, OpenAI
  /context (length|window|size).*(exceed|too small|overflow)/i,
  /(prompt|input) is too long/i,
  /context the overflows|context overflow/i, // LM Studio
];

/** A structured answer was asked for in a form the server does not take. */
const RESPONSE_FORMAT_UNSUPPORTED = [/response_format|json_schema|json schema|grammar/i];

export function isAbort(error: unknown): boolean {
  return error instanceof APIUserAbortError ||
    (error instanceof Error && error.name === "AbortError");
}

/** The server refused the `response_format` (so another form is worth a try). */
export function refusedResponseFormat(error: unknown): boolean {
  return error instanceof APIError && (error.status === 400 || error.status === 422 ||
    error.status === 500) &&
    RESPONSE_FORMAT_UNSUPPORTED.some((p) => p.test(serverText(error)));
}

/** The server's own words: its error message, else the HTTP status line. */
function serverText(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  const message = typeof body?.message === "string" ? body.message : error.message;
  return message.replace(/\s+/g, " ").trim();
}

/** Turns a failed request into an `AgentError` that says what happened and what to do. */
export function endpointError(error: unknown, place: EndpointPlace): AgentError {
  if (error instanceof AgentError) return error;
  const server = `the model server at ${place.baseUrl}`;
  if (error instanceof APIConnectionTimeoutError) {
    return new AgentError(
      "MODEL_SERVER",
      `${capitalized(server)} did not answer in time: it may be busy or loading a model; try ` +
        "again, or check its log",
      { cause: error },
    );
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause === undefined ? error.message : errorMessage(error.cause);
    return new AgentError(
      "MODEL_UNAVAILABLE",
      `Cannot reach ${server} (${cause}). Is it running, and is --endpoint its base URL ` +
        "(e.g. http://localhost:11434/v1 for Ollama, http://localhost:8080/v1 for llama-server)?",
      { cause: error },
    );
  }
  if (!(error instanceof APIError)) {
    return new AgentError("MODEL_SERVER", `${capitalized(server)} failed: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const said = serverText(error);
  const saying = said === "" ? "" : `: "${said}"`;
  if (error.status === 401 || error.status === 403) {
    const key = place.apiKeyEnv === undefined
      ? "No API key was sent: pass --api-key-env VAR, naming the variable that holds the key"
      : `The key in $${place.apiKeyEnv} was refused: check its value`;
    return new AgentError(
      "MODEL_UNAVAILABLE",
      `${capitalized(server)} refused the request (${error.status})${saying}. ${key}.`,
      { cause: error },
    );
  }
  if (TOOLS_UNSUPPORTED.some((pattern) => pattern.test(said))) {
    return new AgentError(
      "MODEL_SERVER",
      `${capitalized(server)} does not take tool calls${saying}. Start llama-server with ` +
        "--jinja; vLLM with --enable-auto-tool-choice --tool-call-parser <parser for the " +
        "model>; on Ollama, pick a model whose card lists tools.",
      { cause: error },
    );
  }
  if (CONTEXT_EXCEEDED.some((pattern) => pattern.test(said))) {
    return new AgentError(
      "CONTEXT_FULL",
      `The conversation does not fit in the context of ${server}${saying}: start a new ` +
        "session, or give the server a larger context (llama-server -c, vLLM --max-model-len, " +
        "Ollama num_ctx).",
      { cause: error },
    );
  }
  if (error.status === 404 && place.model !== undefined) {
    return new AgentError(
      "MODEL_UNAVAILABLE",
      `${capitalized(server)} has no model "${place.model}"${saying}. Pass --model with one ` +
        "of the models it lists (GET /models).",
      { cause: error },
    );
  }
  const status = error.status === undefined ? "" : ` (${error.status})`;
  return new AgentError(
    "MODEL_SERVER",
    `${capitalized(server)} failed${status}${saying}`,
    { cause: error },
  );
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
