/**
 * A streamed chat completion, assembled as it arrives. Servers agree on the shape of the text
 * but not on the rest, and each difference here is one a server was seen to make:
 * - reasoning comes as `reasoning_content` (llama-server, vLLM before 0.10, LM Studio) or as
 *   `reasoning` (Ollama's /v1, later vLLM);
 * - a tool call's name and arguments come in pieces across chunks, joined by the call's
 *   `index`; some servers send a whole call per chunk, some leave `index` out (a call is then
 *   the next one unless it only continues the last one's arguments);
 * - `finish_reason` says "stop" for a reply that made tool calls (Ollama), or is missing when a
 *   server ends the stream without it;
 * - `usage` comes in a last chunk of its own with no choices, or beside the last choice.
 *
 * What a server sends is taken in bounds: a reply stops being read once it has brought
 * `maxChars` characters (each chunk and each tool-call piece counting for one more, so a flood
 * of empty chunks ends too), and the secrets it may repeat are redacted before anything is
 * passed on, in pieces as they arrive (a secret split between chunks included).
 *
 * Pure: the chunks go in, callbacks and a result come out.
 */
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import type { GenerateStop, RequestedToolCall } from "../model.ts";
import type { PieceRedactor, SecretRedactor } from "../../secret_redactor.ts";

export interface StreamUsage {
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly completionTokens: number;
}

export interface AssembledStream {
  readonly text: string;
  readonly thought: string;
  readonly toolCalls: readonly RequestedToolCall[];
  /** How the server said the reply ended; undefined when it never said. */
  readonly finish: GenerateStop | undefined;
  readonly usage: StreamUsage | undefined;
}

export interface StreamCallbacks {
  onTextChunk(text: string): void;
  onThoughtChunk(text: string): void;
}

export interface StreamBounds {
  /** Characters one reply may bring (answer_cap.ts `replyCharCap`). */
  readonly maxChars: number;
  readonly redactor: SecretRedactor;
}

interface CallInProgress {
  name: string;
  arguments: string;
}

/** The delta fields beyond OpenAI's own that local servers send. */
interface ServerDelta {
  readonly reasoning_content?: unknown;
  readonly reasoning?: unknown;
}

export class StreamAssembler {
  #text = "";
  #thought = "";
  readonly #calls = new Map<number, CallInProgress>();
  #lastIndex = -1;
  #finish: string | undefined;
  #usage: StreamUsage | undefined;
  /** Characters counted against `maxChars` so far. */
  #spent = 0;
  readonly #textPieces: PieceRedactor;
  readonly #thoughtPieces: PieceRedactor;

  /** Chunks seen: a stream that ends with none was cut by the server before it began. */
  chunks = 0;
  /** The reply reached `maxChars`: it was cut there, and later chunks are dropped. */
  full = false;

  constructor(
    private readonly callbacks: StreamCallbacks,
    private readonly bounds: StreamBounds,
  ) {
    this.#textPieces = bounds.redactor.pieces();
    this.#thoughtPieces = bounds.redactor.pieces();
  }

  /** A whole (not streamed) completion, read as the one chunk it would have been. */
  pushCompletion(completion: ChatCompletion): void {
    const choices = completion.choices.map((choice) => {
      const message = choice.message as ChatCompletion.Choice["message"] & ServerDelta;
      return {
        index: choice.index,
        finish_reason: choice.finish_reason,
        delta: {
          content: message.content,
          reasoning_content: message.reasoning_content ?? message.reasoning,
          tool_calls: message.tool_calls?.flatMap((call, index) =>
            call.type === "function" ? [{ index, id: call.id, function: call.function }] : []
          ),
        },
      };
    });
    this.push({ ...completion, object: "chat.completion.chunk", choices } as ChatCompletionChunk);
  }

  push(chunk: ChatCompletionChunk): void {
    if (this.full) return;
    this.chunks++;
    this.#take("", 1);
    if (chunk.usage) {
      this.#usage = {
        promptTokens: chunk.usage.prompt_tokens ?? 0,
        cachedTokens: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0,
        completionTokens: chunk.usage.completion_tokens ?? 0,
      };
    }
    // One choice is asked for (n = 1); a server that sends more is read for the first.
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (!choice) return;
    const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & ServerDelta;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning !== "") {
      this.#addThought(this.#thoughtPieces.push(this.#take(reasoning)));
    }
    if (typeof delta.content === "string" && delta.content !== "") {
      this.#addText(this.#textPieces.push(this.#take(delta.content)));
    }
    for (const call of delta.tool_calls ?? []) {
      if (!this.full) this.#addCallPiece(call);
    }
    if (choice.finish_reason) this.#finish = choice.finish_reason;
  }

  /**
   * What of `text` fits in what the reply may still bring, `extra` more counted beside it; once
   * nothing more fits, the reply is full.
   */
  #take(text: string, extra = 0): string {
    const room = Math.max(0, this.bounds.maxChars - this.#spent - extra);
    this.#spent += extra + Math.min(room, text.length);
    if (text.length >= room && this.#spent >= this.bounds.maxChars) this.full = true;
    return text.length <= room ? text : text.slice(0, room);
  }

  #addText(text: string): void {
    if (text === "") return;
    this.#text += text;
    this.callbacks.onTextChunk(text);
  }

  #addThought(text: string): void {
    if (text === "") return;
    this.#thought += text;
    this.callbacks.onThoughtChunk(text);
  }

  #addCallPiece(piece: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const name = this.#take(piece.function?.name ?? "", 1);
    const args = this.#take(piece.function?.arguments ?? "");
    const index = typeof piece.index === "number"
      ? piece.index
      : name === "" && this.#lastIndex >= 0
      ? this.#lastIndex
      : this.#lastIndex + 1;
    this.#lastIndex = Math.max(this.#lastIndex, index);
    const call = this.#calls.get(index) ?? { name: "", arguments: "" };
    // A name comes in pieces, or whole in every piece (which must not double it).
    if (name !== "" && name !== call.name) call.name += name;
    call.arguments += args;
    this.#calls.set(index, call);
  }

  /** The reply as it stands; text held back as a possible secret's start is passed on first. */
  result(): AssembledStream {
    this.#addThought(this.#thoughtPieces.end());
    this.#addText(this.#textPieces.end());
    const { redactor } = this.bounds;
    const toolCalls = [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .filter(([, call]) => call.name !== "")
      .map(([, call]) => ({
        name: redactor.redact(call.name),
        input: parseArguments(redactor.redact(call.arguments)),
      }));
    return {
      text: this.#text,
      thought: this.#thought,
      toolCalls,
      finish: finishOf(this.#finish, toolCalls.length > 0),
      usage: this.#usage,
    };
  }
}

/** Arguments that are not JSON are passed on as their text: the tool says what is wrong. */
function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function finishOf(reason: string | undefined, madeCalls: boolean): GenerateStop | undefined {
  if (madeCalls && (reason === undefined || reason === "stop" || reason === "tool_calls")) {
    return "tool_calls";
  }
  switch (reason) {
    case undefined:
      return undefined;
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      // Said, but no call came whole: nothing to run, so the reply simply ends.
      return "end";
    default:
      return "end";
  }
}
