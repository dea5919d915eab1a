/**
 * The one door to a language model. The turn loop (src/acp/) talks only to these types; the
 * llama backend (node-llama-cpp) and the scripted backend (a JSON file of turns) implement them.
 *
 * The host runs the tools: `generate` stops when the model has made its tool calls, the host
 * appends each call with its result to the conversation, and calls `generate` again.
 */

/** A tool the model may call, with the JSON schema of its input. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** A JSON schema of type "object". */
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** One piece of an assistant message, in the order the model produced it. */
export type AssistantSegment =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thought"; readonly text: string }
  | {
    readonly type: "tool_call";
    /**
     * The name the call ran under: as the model emitted it (a profile's alias stays an alias),
     * except another agent's name, which is the profile's tool it ran as (tool_call_repair.ts).
     */
    readonly name: string;
    readonly input: unknown;
    /** What the model is shown as the call's result. */
    readonly result: string;
  };

export type ConversationItem =
  | {
    readonly role: "system";
    readonly text: string;
    /**
     * How much of `text` (from its start) every session of this profile and tool set shares,
     * what follows being the session's own (its place, its instructions, its summary) after a
     * blank line: a backend may keep the evaluated state of the shared part for new sessions,
     * and puts the tool definitions right after it. Absent: nothing is known to be shared.
     */
    readonly sharedLength?: number;
    /**
     * How much of `text` every session of this project shares (`sharedLength`'s part, where it
     * works and the project's instructions), what follows being this session's own: a backend
     * may keep the evaluated state of that part too.
     */
    readonly projectLength?: number;
  }
  | { readonly role: "user"; readonly text: string }
  | { readonly role: "assistant"; readonly segments: readonly AssistantSegment[] };

export interface GenerateRequest {
  /**
   * The whole conversation so far. When the last item is an assistant message (tool calls with
   * their results), the model continues that message.
   */
  readonly conversation: readonly ConversationItem[];
  readonly tools: readonly ToolDefinition[];
  readonly signal: AbortSignal;
  /** Cap on generated tokens for this call; the backend's default when absent. */
  readonly maxTokens?: number;
  /**
   * A JSON schema the answer must satisfy (a grammar for llama): the reply text is then one JSON
   * value. Never given together with tools.
   */
  readonly responseSchema?: Readonly<Record<string, unknown>>;
  onTextChunk(text: string): void;
  onThoughtChunk(text: string): void;
}

export interface RequestedToolCall {
  readonly name: string;
  readonly input: unknown;
}

/**
 * Why generation stopped: the model finished (`end`), asked for tools (`tool_calls`), hit the
 * token cap or the context size, or the signal aborted it.
 */
export type GenerateStop = "end" | "tool_calls" | "max_tokens" | "context_full" | "cancelled";

/**
 * How a turn that ends on this generation ends, in the words ACP's stop reasons and the
 * Anthropic API's both use: a cap on tokens or context is `max_tokens`.
 */
export function turnEndOf(stop: GenerateStop): "end_turn" | "max_tokens" | "cancelled" {
  switch (stop) {
    case "end":
    case "tool_calls":
      return "end_turn";
    case "max_tokens":
    case "context_full":
      return "max_tokens";
    case "cancelled":
      return "cancelled";
    default:
      return stop satisfies never;
  }
}

export interface TokenCounts {
  /** Tokens in the context when generation started (the prompt as the model saw it). */
  readonly prompt: number;
  /** Tokens actually evaluated for the prompt (the rest came from the cached prefix). */
  readonly evaluated: number;
  readonly generated: number;
}

export interface GenerateResult {
  readonly text: string;
  readonly thought: string;
  readonly toolCalls: readonly RequestedToolCall[];
  readonly stop: GenerateStop;
  readonly tokens: TokenCounts;
  /**
   * What the user should be told of how the generation ended, beside its stop (a reply the
   * backend cut because the server would not stop); absent when there is nothing to tell.
   */
  readonly notice?: string;
}

/**
 * Where a context size comes from: the context the model runs in this process (`model`), what
 * the server says of its own (`server`), the user's `--ctx-size` (`flag`), or an assumption where
 * none of those says (`assumed`: the server may hold less, and then refuses or truncates).
 */
export type ContextSource = "model" | "server" | "flag" | "assumed";

/** One conversation's state in the model (a context sequence for llama). */
export interface ModelSession {
  /** The context size in tokens, where there is one (a script without `contextSize` has none). */
  readonly contextSize?: number;
  /** Where `contextSize` comes from; absent where there is no context size. */
  readonly contextSource?: ContextSource;
  /**
   * Tokens `conversation` with `tools` takes as the prompt of a request: the model's own count
   * in process, an estimate erring high elsewhere (token_estimate.ts, where this is absent).
   */
  countPromptTokens?(
    conversation: readonly ConversationItem[],
    tools: readonly ToolDefinition[],
  ): Promise<number>;
  /** Tokens of `text` on its own (a tool result), counted as `countPromptTokens` counts. */
  countTextTokens?(text: string): number;
  /**
   * The counts are the model's own (in process, a script), not an estimate: what they say does
   * not fit will not fit, so a request is refused before it is sent rather than after.
   */
  readonly exactCounts?: boolean;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  dispose(): Promise<void>;
}

export interface Model {
  /** What to show the user: a file name or a scripted file. */
  readonly displayName: string;
  /**
   * What the user should be told at start of the context size: set where it is assumed (the
   * server did not say, and no `--ctx-size` was given), saying what was assumed and what to pass.
   */
  readonly contextNotice?: string;
  openSession(): Promise<ModelSession>;
  dispose(): Promise<void>;
}
