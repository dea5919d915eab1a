/**
 * A tool choice (tool_choice_grammar.ts) run on a session in this process, for a chat wrapper
 * that writes calls in node-llama-cpp's generic syntax; a wrapper with calls of its own is left
 * as it is.
 *
 * `constrained` takes two steps. First the answer's first tokens are generated on the session's
 * sequence under the choice grammar, greedily, as `LlamaChat` would generate them, until they say
 * a call to one of the tools or text (a few tokens; the prompt before them is the one `LlamaChat`
 * evaluates next, so it is not evaluated twice). Then `LlamaChat` generates the answer: for text
 * as it always does; for a call, forced into one (`noPrefixTrigger` of type `functionCall`, the
 * way node-llama-cpp's own wrappers force a call): it puts the call prefix in the context and
 * writes the name and the params under its own grammars, so the call it returns is one it
 * parsed, like any other. The two steps decide alike: the tokens a greedy choice of the name
 * can take are the same in both. `required` skips the first step.
 */
import type {
  ChatWrapper,
  ChatWrapperGeneratedContextState,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaText,
  Token,
} from "node-llama-cpp";
import {
  type CallSyntax,
  firstChoiceOf,
  type ToolChoice,
  toolChoiceGrammar,
} from "./tool_choice_grammar.ts";

/** Tokens the first step may take to decide: `||call: ` and the longest name take fewer. */
const MAX_CHOICE_TOKENS = 24;

/**
 * Whether `wrapper` writes calls in node-llama-cpp's generic syntax
 * (`ChatWrapper.defaultSettings.functions`, shared or copied) rather than a syntax of its own.
 */
export async function usesGenericCallSyntax(wrapper: ChatWrapper): Promise<boolean> {
  const { ChatWrapper } = await import("node-llama-cpp");
  const generic = ChatWrapper.defaultSettings.functions;
  const own = wrapper.settings.functions;
  return own === generic || JSON.stringify(own.call.prefix) === JSON.stringify(generic.call.prefix);
}

/** A session's tool choice for its chat wrapper's generic call syntax. */
export class LlamaToolChoice {
  #forcingCall = false;
  readonly #grammars = new Map<string, Promise<LlamaGrammar>>();

  private constructor(
    private readonly choice: Exclude<ToolChoice, "free">,
    private readonly syntax: CallSyntax,
  ) {}

  /**
   * The tool choice `choice` for the session whose chat wrapper is `wrapper` (which it patches to
   * be able to force a call); undefined when there is nothing to do: `free`, or a wrapper with a
   * call syntax of its own.
   */
  static async forWrapper(
    wrapper: ChatWrapper,
    choice: ToolChoice,
  ): Promise<LlamaToolChoice | undefined> {
    if (choice === "free" || !await usesGenericCallSyntax(wrapper)) return undefined;
    const { LlamaText } = await import("node-llama-cpp");
    const call = wrapper.settings.functions.call;
    const prefix = LlamaText(call.prefix);
    const toolChoice = new LlamaToolChoice(choice, {
      prefix: prefix.toString(),
      paramsPrefix: LlamaText(call.paramsPrefix).toString(),
    });
    const render = wrapper.generateContextState.bind(wrapper);
    wrapper.generateContextState = (options): ChatWrapperGeneratedContextState => {
      const state = render(options);
      return toolChoice.#forcingCall ? withForcedCall(state, prefix) : state;
    };
    return toolChoice;
  }

  /**
   * Whether the answer to `prompt` (the tokens `LlamaChat` is about to evaluate) starts with a
   * call to one of `names`: always for `required`; for `constrained`, what the model's first
   * tokens chose under the grammar. Text where the choice cannot be made (no room left in the
   * context, a cancel).
   */
  async startsWithCall(
    sequence: LlamaContextSequence,
    prompt: readonly Token[],
    names: readonly string[],
    signal: AbortSignal,
  ): Promise<boolean> {
    if (this.choice === "required") return true;
    if (names.length === 0 || prompt.length === 0 || signal.aborted) return false;
    if (prompt.length + MAX_CHOICE_TOKENS >= sequence.contextSize) return false;
    const grammar = await this.#grammar(sequence, names);
    const { LlamaGrammarEvaluationState } = await import("node-llama-cpp");
    const model = sequence.model;
    await sequence.adaptStateToTokens([...prompt], false);
    // The next token's logits come from the prompt's last token: evaluate it again if it is in.
    if (sequence.nextTokenIndex >= prompt.length) {
      await sequence.eraseContextTokenRanges([
        { start: prompt.length - 1, end: sequence.nextTokenIndex },
      ]);
    }
    const generated: Token[] = [];
    const tokens = sequence.evaluate(prompt.slice(sequence.nextTokenIndex), {
      grammarEvaluationState: new LlamaGrammarEvaluationState({ model, grammar }),
    });
    for await (const token of tokens) {
      if (model.isEogToken(token)) return false;
      generated.push(token);
      const chosen = firstChoiceOf(model.detokenize(generated), this.syntax, names);
      if (chosen !== undefined) return chosen.kind === "call";
      if (signal.aborted || generated.length >= MAX_CHOICE_TOKENS) return false;
    }
    return false;
  }

  /** Runs `generate` (one `LlamaChat.generateResponse`) forced to start with a call. */
  async forcingCall<T>(generate: () => Promise<T>): Promise<T> {
    this.#forcingCall = true;
    try {
      return await generate();
    } finally {
      this.#forcingCall = false;
    }
  }

  #grammar(sequence: LlamaContextSequence, names: readonly string[]): Promise<LlamaGrammar> {
    const key = JSON.stringify(names);
    let grammar = this.#grammars.get(key);
    if (grammar === undefined) {
      grammar = sequence.model.llama.createGrammar({
        grammar: toolChoiceGrammar(this.syntax, names),
      });
      this.#grammars.set(key, grammar);
      grammar.catch(() => this.#grammars.delete(key));
    }
    return grammar;
  }
}

/**
 * `state` with node-llama-cpp told to start the answer with a call: where no prefix trigger of
 * the wrapper matches (the generic wrappers have none), it puts `prefix` in the context and
 * enters function calling. A state of the other kind (a call initially engaged) is left as it is.
 */
function withForcedCall(
  state: ChatWrapperGeneratedContextState,
  prefix: LlamaText,
): ChatWrapperGeneratedContextState {
  if (state.functionCall !== undefined || state.ignoreStartText !== undefined) return state;
  return {
    contextText: state.contextText,
    stopGenerationTriggers: state.stopGenerationTriggers,
    prefixTriggers: state.prefixTriggers,
    rerender: state.rerender,
    detectFunctionCalls: state.detectFunctionCalls,
    noPrefixTrigger: { type: "functionCall", inject: prefix },
  };
}
