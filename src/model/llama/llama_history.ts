/**
 * Our conversation as node-llama-cpp's chat history. Pure data mapping: the shapes below are the
 * parts of node-llama-cpp's `ChatHistoryItem` we produce, written out so that this file does not
 * import node-llama-cpp (the `llama_*` backend files do; the compiler checks the fit there).
 */
import type { AssistantSegment, ConversationItem } from "../model.ts";

export type LlamaHistoryItem =
  | { type: "system"; text: string }
  | { type: "user"; text: string }
  | { type: "model"; response: LlamaResponseItem[] };

export type LlamaResponseItem =
  | string
  | { type: "segment"; segmentType: "thought"; text: string; ended: boolean }
  | { type: "functionCall"; name: string; params: unknown; result: string };

/**
 * The history to generate from. It always ends with a model item: the assistant message being
 * continued, or an empty one that the model's reply fills.
 */
export function toLlamaHistory(conversation: readonly ConversationItem[]): LlamaHistoryItem[] {
  const history = conversation.flatMap((item): LlamaHistoryItem[] => {
    switch (item.role) {
      case "system":
        return systemItems(item.text, item.sharedLength);
      case "user":
        return [{ type: "user", text: item.text }];
      case "assistant":
        return [{ type: "model", response: item.segments.map(toResponseItem) }];
      default:
        return [item satisfies never];
    }
  });
  if (history.at(-1)?.type !== "model") history.push({ type: "model", response: [] });
  return history;
}

/**
 * The history of the start of a system prompt alone (its shared part, or that and the
 * project's), to be rendered with the same tools: the start its rendering has in common with a
 * whole prompt's is what every such session has.
 */
export function fixedPartHistory(
  system: { readonly text: string; readonly sharedLength?: number },
): LlamaHistoryItem[] {
  return [...systemItems(system.text, system.sharedLength), { type: "model", response: [] }];
}

/**
 * A system prompt with a shared part is two system messages, the shared part first: the chat
 * wrappers join adjacent system messages with a blank line, so the text is the same, and the
 * tool definitions can go between them (llama_prefix_state.ts).
 */
function systemItems(text: string, sharedLength: number | undefined): LlamaHistoryItem[] {
  if (sharedLength === undefined || sharedLength <= 0 || sharedLength >= text.length) {
    return [{ type: "system", text }];
  }
  const own = text.slice(sharedLength).replace(/^\n\n/, "");
  return [{ type: "system", text: text.slice(0, sharedLength) }, { type: "system", text: own }];
}

function toResponseItem(segment: AssistantSegment): LlamaResponseItem {
  switch (segment.type) {
    case "text":
      return segment.text;
    case "thought":
      return { type: "segment", segmentType: "thought", text: segment.text, ended: true };
    case "tool_call":
      // The wrapper renders params and result itself (as JSON), the way it renders calls the
      // model made: the same text, so a conversation re-read matches the cached prefix.
      return {
        type: "functionCall",
        name: segment.name,
        params: segment.input,
        result: segment.result,
      };
    default:
      return segment satisfies never;
  }
}
