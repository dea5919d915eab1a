/**
 * What a server's usage says of a request's tools: one conversation asked twice for one token,
 * with the tools and without them. A server that uses the tools counts their definitions in the
 * prompt; one that drops them (llama-cpp-python's default chat format) counts the same prompt
 * either way; one that fails with the tools and not without them refuses them.
 *
 * The requests are whole, not streamed: llama-cpp-python reports usage only there. They go
 * through the endpoint's client (same-origin redirects, bounded bodies, the key redacted from
 * what the server says), without retries.
 */
import type { ConversationItem, ToolDefinition } from "../model.ts";
import { endpointError } from "./openai_errors.ts";
import { toChatMessages, toChatTools } from "./openai_messages.ts";
import type { EndpointConnection } from "./openai_model.ts";

/** How long one of the two requests may take: a server on a CPU reads the whole prompt first. */
const REQUEST_TIMEOUT_MS = 5 * 60 * 1000;

/** The prompt tokens the server reported (0: it reports none), or why the request failed. */
export type PromptUsage = number | { readonly error: string };

export interface ToolsUsage {
  readonly withTools: PromptUsage;
  readonly withoutTools: PromptUsage;
}

export async function toolsUsage(
  connection: EndpointConnection,
  model: string,
  conversation: readonly ConversationItem[],
  tools: readonly ToolDefinition[],
  signal: AbortSignal,
): Promise<ToolsUsage> {
  const ask = async (withTools: boolean): Promise<PromptUsage> => {
    try {
      const completion = await connection.client.chat.completions.create(
        {
          model,
          messages: toChatMessages(conversation),
          ...(withTools ? { tools: toChatTools(tools), tool_choice: "auto" as const } : {}),
          max_tokens: 1,
          stream: false,
        },
        { signal, maxRetries: 0, timeout: REQUEST_TIMEOUT_MS },
      );
      return completion.usage?.prompt_tokens ?? 0;
    } catch (error) {
      return { error: endpointError(error, { ...connection.place, model }).message };
    }
  };
  // One after the other: a server on a CPU answers one at a time anyway.
  const withTools = await ask(true);
  const withoutTools = await ask(false);
  return { withTools, withoutTools };
}
