/**
 * A session of a model in this process: one context with one sequence, and one `LlamaChat` on
 * it, so each turn evaluates only what is new since the last one (node-llama-cpp keeps the
 * longest common prefix of the sequence's tokens), and a new session's first turn starts from
 * the kept state of its fixed prompt (llama_prefix_state.ts).
 *
 * A request with a `responseSchema` is generated under a JSON-schema grammar (no functions: the
 * two cannot be combined in one call; llama_grammars.ts). A request with tools may have its first
 * tokens chosen under a grammar first, where the chat wrapper's call syntax is node-llama-cpp's
 * generic one (llama_tool_choice.ts).
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
import type {
  ChatHistoryItem,
  LlamaChat,
  LlamaChatResponse,
  LlamaContext,
  LlamaModel,
  Token,
} from "node-llama-cpp";
import { AgentError, errorMessage } from "../../error.ts";
import type { ChatFormat } from "../chat_format.ts";
import { ContextFullError } from "../context_full_error.ts";
import type { GrammarCache } from "./llama_grammars.ts";
import { type LlamaFunctions, toLlamaFunctions } from "./llama_functions.ts";
import { fixedPartHistory, type LlamaHistoryItem, toLlamaHistory } from "./llama_history.ts";
import { type LlamaToolChoice, usesGenericCallSyntax } from "./llama_tool_choice.ts";
import {
  commonPrefix,
  MIN_PREFIX_TOKENS,
  placeToolsAfterSharedPrompt,
  type PrefixStates,
  startFromPrefixes,
} from "./llama_prefix_state.ts";
import type {
  ConversationItem,
  GenerateRequest,
  GenerateResult,
  GenerateStop,
  ModelSession,
  RequestedToolCall,
  ToolDefinition,
} from "../model.ts";

/** A context shift was asked for and refused: the conversation was to lose its beginning. */
class ContextShiftRefused extends Error {
  override readonly name = "ContextShiftRefused";
}

/**
 * The size of a context shift, as node-llama-cpp asks for it right before it shifts (in
 * `LlamaChat` and in the sequence): never given, so no shift happens.
 */
export function refuseContextShift(): never {
  throw new ContextShiftRefused("The conversation does not fit in the context");
}

/** How node-llama-cpp 3.21 says that the history cannot be made to fit the context. */
const CONTEXT_OVERFLOW_MESSAGES = [
  "context size is too small",
  "fits the context size",
  "Failed to compress chat history",
];

/** One conversation's context in a model of this process (one sequence, one `LlamaChat`). */
export class LlamaSession implements ModelSession {
  constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly chat: LlamaChat,
    private readonly grammars: GrammarCache,
    /** Where a new session's fixed prompt is kept and found; none, it is always evaluated. */
    private readonly prefixStates?: PrefixStates,
    /** How an answer's first tokens are chosen; none, as node-llama-cpp does it. */
    private readonly toolChoice?: LlamaToolChoice,
  ) {
    placeToolsAfterSharedPrompt(chat.chatWrapper);
  }

  readonly contextSource = "model";
  readonly exactCounts = true;

  get contextSize(): number {
    return this.context.contextSize;
  }

  countPromptTokens(
    conversation: readonly ConversationItem[],
    tools: readonly ToolDefinition[],
  ): Promise<number> {
    return Promise.resolve(
      this.#promptTokens(toLlamaHistory(conversation), toLlamaFunctions(tools)).length,
    );
  }

  countTextTokens(text: string): number {
    return this.model.tokenize(text).length;
  }

  /** The chat wrapper node-llama-cpp resolved for the model, and whether its calls are its own. */
  async chatFormat(): Promise<ChatFormat> {
    const wrapper = this.chat.chatWrapper;
    return {
      wrapper: wrapper.wrapperName,
      chatTemplate: typeof this.model.fileInfo.metadata.tokenizer?.chat_template === "string",
      toolCalls: await usesGenericCallSyntax(wrapper) ? "generic" : "native",
    };
  }

  /** The prompt `generate` evaluates: the wrapper's rendering of history and tools. */
  #promptTokens(history: LlamaHistoryItem[], functions: LlamaFunctions | undefined): Token[] {
    return this.chat.chatWrapper
      .generateContextState({
        chatHistory: history satisfies ChatHistoryItem[],
        availableFunctions: functions,
      })
      .contextText.tokenize(this.model.tokenizer);
  }

  /**
   * The starts of `prompt` that other sessions share (llama_prefix_state.ts), shortest first:
   * what every session with this system prompt's shared part and these tools has, then what
   * every session of this project has too. Empty where the system prompt marks no shared part.
   */
  #fixedPrefixes(
    conversation: readonly ConversationItem[],
    functions: LlamaFunctions | undefined,
    prompt: readonly Token[],
  ): Token[][] {
    const first = conversation[0];
    if (first?.role !== "system" || first.sharedLength === undefined) return [];
    const lengths = [first.sharedLength, first.projectLength ?? first.sharedLength];
    const prefixes: Token[][] = [];
    for (const length of lengths) {
      const alone = fixedPartHistory({ ...first, text: first.text.slice(0, length) });
      const prefix = commonPrefix(prompt, this.#promptTokens(alone, functions));
      // Only a prefix long enough to be worth a state, and longer than the one before it.
      if (prefix.length >= Math.max(MIN_PREFIX_TOKENS, (prefixes.at(-1)?.length ?? 0) + 1)) {
        prefixes.push(prefix);
      }
    }
    return prefixes;
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
    const promptTokens = this.#promptTokens(history, functions);
    const prompt = promptTokens.length;
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
    if (this.prefixStates !== undefined && sequence.nextTokenIndex === 0) {
      // A new session: its fixed prompt from the cache, or evaluated and kept for the next one.
      const prefixes = this.#fixedPrefixes(request.conversation, functions, promptTokens);
      const started = await startFromPrefixes(
        sequence,
        prefixes,
        this.prefixStates,
        request.signal,
      );
      if (!started) return finish("cancelled");
    }

    const choice = functions === undefined ? undefined : this.toolChoice;
    let response: LlamaChatResponse<NonNullable<typeof functions>> | LlamaChatResponse;
    try {
      const callFirst = choice !== undefined &&
        await choice.startsWithCall(
          sequence,
          promptTokens,
          Object.keys(functions ?? {}),
          request.signal,
        );
      const respond = () =>
        this.chat.generateResponse(history, {
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
      response = callFirst ? await choice.forcingCall(respond) : await respond();
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
        `model's context of ${contextSize} tokens: run /compact or /clear, or pass a larger ` +
        "--ctx-size",
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
