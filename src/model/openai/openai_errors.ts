/**
 * What an OpenAI-compatible server's failures mean for the user, and what to do about each. The
 * servers word the same failure differently; the patterns below are the wordings of
 * llama-server, vLLM, Ollama and LM Studio.
 *
 * A server's words are quoted redacted and cut (secret_redactor.ts), and the error made here
 * keeps no cause: the client's error holds the server's text whole, key and all.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { AgentError, errorMessage } from "../../error.ts";
import { ContextFullError, type ContextOverflow } from "../context_full_error.ts";
import { RedirectRefused } from "../../same_origin_fetch.ts";
import { ResponseTooLarge } from "./endpoint_fetch.ts";
import { quotedServerText, type SecretRedactor } from "../../secret_redactor.ts";

export interface EndpointPlace {
  /** The base URL, as the user gave it. */
  readonly baseUrl: string;
  /** The variable the key came from, when one did. */
  readonly apiKeyEnv?: string;
  readonly model?: string;
  /** Takes the key and custom header values out of whatever the server said. */
  readonly redactor: SecretRedactor;
}

/** How much of a server's words the patterns below are tried on. */
const MATCHED_CHARS = 4096;

/** Characters of one of our messages that quotes a location or a runtime error at length. */
const MESSAGE_LIMIT = 1000;

/** A request failed because tools were sent to a server that was not started to take them. */
const TOOLS_UNSUPPORTED = [
  /tools param requires --jinja/i, // llama-server
  /enable-auto-tool-choice/i, // vLLM
  /does not support tools/i, // Ollama
  /tool(s| calling| choice)? (is |are )?not supported/i,
];

/** The conversation (or it and the answer asked for) is longer than the server's context. */
const CONTEXT_EXCEEDED = [
  /exceeds? the available context size/i, // llama-server
  /context size has been exceeded/i, // llama-server (older), LM Studio
  /maximum context length/i, // vLLM, OpenAI
  /context length is only/i, // vLLM 0.10 and later
  /(input|prompt) length exceeds (the )?(maximum )?context length/i, // Ollama
  /context (length|window|size).*(exceed|too small|overflow)/i,
  /(prompt|input) is too long/i,
  /context the overflows|context overflow/i, // LM Studio
];

/** llama-server's error type for a prompt over its context (with the numbers as fields). */
const LLAMA_SERVER_OVERFLOW = "exceed_context_size_error";

/**
 * Where servers write the numbers in their words: the context, then the prompt. Numbers may have
 * thousands separators ("37,184").
 */
const CONTEXT_SIZE_WORDS = [
  /maximum context length is ([\d,]+)/i, // vLLM, OpenAI
  /context length is only ([\d,]+)/i, // vLLM 0.10+
  /context length of only ([\d,]+)/i, // LM Studio
  /maximum context length \(([\d,]+)\)/i,
];
const PROMPT_WORDS = [
  /\(([\d,]+) in the messages/i, // vLLM before 0.6: "you requested N tokens (P in the messages, ..."
  /your request has ([\d,]+) input tokens/i, // vLLM
  /you passed ([\d,]+) input tokens/i, // vLLM 0.10+
  /your messages resulted in ([\d,]+) tokens/i, // OpenAI
  /keep the first ([\d,]+) tokens/i, // LM Studio
  /input length \(([\d,]+)\)/i,
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

/** The server refused the request with `status` (404 and 405 for a listing it does not have). */
export function refusedWith(error: unknown, ...statuses: number[]): boolean {
  return error instanceof APIError && !(error instanceof APIConnectionError) &&
    statuses.includes(error.status ?? 0);
}

/** The server's own words: its error message, else the HTTP status line. */
function serverWords(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (typeof body?.message === "string") return body.message;
  // No JSON: the client's message is the status and the body's text (a body cut at
  // ERROR_BODY_BYTES is no JSON any more; its message is still read from its start).
  const status = `${error.status} `;
  const text = error.message.startsWith(status)
    ? error.message.slice(status.length)
    : error.message;
  return messageAtStart(text) ?? text;
}

/** The `message` string of a JSON object's text that may be cut short: `{"error":{"message":"..`. */
function messageAtStart(text: string): string | undefined {
  const found = /^\s*\{[^"]*(?:"error"\s*:\s*\{\s*)?"message"\s*:\s*"((?:[^"\\]|\\.)*)/.exec(text);
  if (found === null) return undefined;
  try {
    return JSON.parse(`"${found[1]}"`);
  } catch {
    return undefined;
  }
}

/** The start of the server's words, for the patterns. */
function serverText(error: APIError): string {
  return serverWords(error).slice(0, MATCHED_CHARS).replace(/\s+/g, " ").trim();
}

/** Turns a failed request into an `AgentError` that says what happened and what to do. */
export function endpointError(error: unknown, place: EndpointPlace): AgentError {
  if (error instanceof AgentError) return error;
  const server = `the model server at ${place.baseUrl}`;
  const refused = causeOf(error, RedirectRefused) ?? causeOf(error, ResponseTooLarge);
  if (refused !== undefined) {
    return new AgentError(
      "MODEL_SERVER",
      quotedServerText(refused.message, place.redactor, MESSAGE_LIMIT),
    );
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new AgentError(
      "MODEL_SERVER",
      `${capitalized(server)} did not answer in time: it may be busy or loading a model; try ` +
        "again, or check its log",
    );
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause === undefined ? error.message : errorMessage(error.cause);
    return new AgentError(
      "MODEL_UNAVAILABLE",
      `Cannot reach ${server} (${quotedServerText(cause, place.redactor)}). Is it running, and ` +
        "is --endpoint its base URL (e.g. http://localhost:11434/v1 for Ollama, " +
        "http://localhost:8080/v1 for llama-server)?",
    );
  }
  if (!(error instanceof APIError)) {
    return new AgentError(
      "MODEL_SERVER",
      `${capitalized(server)} failed: ${quotedServerText(errorMessage(error), place.redactor)}`,
    );
  }
  const said = serverText(error);
  const quoted = quotedServerText(serverWords(error), place.redactor);
  const saying = quoted === "" ? "" : `: "${quoted}"`;
  if (error.status === 401 || error.status === 403) {
    const key = place.apiKeyEnv === undefined
      ? "No API key was sent: pass --api-key-env VAR, naming the variable that holds the key"
      : `The key in $${place.apiKeyEnv} was refused: check its value`;
    return new AgentError(
      "MODEL_UNAVAILABLE",
      `${capitalized(server)} refused the request (${error.status})${saying}. ${key}.`,
    );
  }
  if (TOOLS_UNSUPPORTED.some((pattern) => pattern.test(said))) {
    return new AgentError(
      "MODEL_SERVER",
      `${capitalized(server)} does not take tool calls${saying}. Start llama-server with ` +
        "--jinja; vLLM with --enable-auto-tool-choice --tool-call-parser <parser for the " +
        "model>; on Ollama, pick a model whose card lists tools.",
    );
  }
  if (isOverflow(error) || CONTEXT_EXCEEDED.some((pattern) => pattern.test(said))) {
    return new ContextFullError(
      `The conversation does not fit in the context of ${server}${saying}: run /compact or ` +
        "/clear, or give the server a larger context (llama-server -c, vLLM --max-model-len, " +
        "Ollama num_ctx).",
      overflowOf(error, said),
    );
  }
  if (error.status === 404 && place.model !== undefined) {
    return new AgentError(
      "MODEL_UNAVAILABLE",
      `${capitalized(server)} has no model "${place.model}"${saying}. Pass --model with one ` +
        "of the models it lists (GET /models).",
    );
  }
  const status = error.status === undefined ? "" : ` (${error.status})`;
  return new AgentError("MODEL_SERVER", `${capitalized(server)} failed${status}${saying}`);
}

function isOverflow(error: APIError): boolean {
  const body = error.error as { type?: unknown } | undefined;
  return body?.type === LLAMA_SERVER_OVERFLOW;
}

/** The numbers of an overflow: llama-server's fields, else the server's words. */
function overflowOf(error: APIError, said: string): ContextOverflow {
  const body = (error.error ?? {}) as { n_prompt_tokens?: unknown; n_ctx?: unknown };
  const promptTokens = counted(body.n_prompt_tokens) ?? numberIn(said, PROMPT_WORDS);
  const contextSize = counted(body.n_ctx) ?? numberIn(said, CONTEXT_SIZE_WORDS);
  return {
    ...(promptTokens === undefined ? {} : { promptTokens }),
    ...(contextSize === undefined ? {} : { contextSize }),
  };
}

function numberIn(text: string, patterns: readonly RegExp[]): number | undefined {
  for (const pattern of patterns) {
    const found = pattern.exec(text)?.[1];
    if (found !== undefined) return counted(Number(found.replaceAll(",", "")));
  }
  return undefined;
}

function counted(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** `error`, or the first error of its causes, that is a `type`. */
function causeOf<T extends Error>(
  error: unknown,
  type: abstract new (...args: never[]) => T,
): T | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    if (at instanceof type) return at;
  }
  return undefined;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
