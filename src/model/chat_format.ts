/**
 * How a model in this process is prompted and how it writes tool calls: what `doctor` reports of
 * a GGUF model (llama_model.ts `chatFormatOf` reads it from node-llama-cpp).
 *
 * node-llama-cpp picks a chat wrapper from the model's chat template. A wrapper made for a model
 * family (Llama 3.1, Qwen, Mistral, Functionary, a Jinja template with tool calls...) writes
 * calls in the syntax the model was trained on: `native`. Any other (ChatML, Gemma, a template
 * without tool calls) falls back to node-llama-cpp's own syntax, `||call: name(params)`, which
 * it explains in the system prompt: `generic`. A model never trained on it seldom uses it.
 */

export interface ChatFormat {
  /** node-llama-cpp's name for the chat wrapper it resolved: `ChatML`, `JinjaTemplate`, ... */
  readonly wrapper: string;
  /** Whether the GGUF file carries a chat template (`tokenizer.chat_template`). */
  readonly chatTemplate: boolean;
  readonly toolCalls: "native" | "generic";
}

/** node-llama-cpp's generic call syntax, as the user reads it. */
export const GENERIC_CALL_SYNTAX = "||call: name(params)";
