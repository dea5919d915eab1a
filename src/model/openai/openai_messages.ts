/**
 * The conversation as Chat Completions messages. An assistant message of the turn loop holds
 * text, thoughts and tool calls with their results in the order the model produced them; the
 * API wants each run of calls as one assistant message carrying the text before it, followed by
 * one `tool` message per call. Thoughts are not sent back: servers' chat templates drop them,
 * and they would cost context.
 *
 * Call ids are ours, made from the call's position (`call_<item>_<n>`): a server's own ids are
 * not kept in the conversation, and a template only needs each result to name its call.
 */
import type {
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { AssistantSegment, ConversationItem, ToolDefinition } from "../model.ts";

export function toChatMessages(
  conversation: readonly ConversationItem[],
): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  conversation.forEach((item, index) => {
    switch (item.role) {
      case "system":
        messages.push({ role: "system", content: item.text });
        return;
      case "user":
        messages.push({ role: "user", content: item.text });
        return;
      case "assistant":
        messages.push(...assistantMessages(item.segments, index));
        return;
      default:
        return item satisfies never;
    }
  });
  return messages;
}

function assistantMessages(
  segments: readonly AssistantSegment[],
  itemIndex: number,
): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  let text = "";
  let calls: { id: string; name: string; input: unknown; result: string }[] = [];
  let callCount = 0;
  const flushCalls = () => {
    if (calls.length === 0) return;
    const toolCalls: ChatCompletionMessageToolCall[] = calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: argumentsText(call.input) },
    }));
    // Empty text is "", not null: llama-cpp-python refuses a null beside tool calls.
    messages.push({ role: "assistant", content: text, tool_calls: toolCalls });
    for (const call of calls) {
      messages.push({ role: "tool", tool_call_id: call.id, content: call.result });
    }
    text = "";
    calls = [];
  };
  for (const segment of segments) {
    switch (segment.type) {
      case "text":
        // Text after a run of calls answers their results: it starts the next message.
        flushCalls();
        text += segment.text;
        break;
      case "thought":
        break;
      case "tool_call":
        calls.push({
          id: `call_${itemIndex}_${callCount++}`,
          name: segment.name,
          input: segment.input,
          result: segment.result,
        });
        break;
      default:
        segment satisfies never;
    }
  }
  flushCalls();
  if (text !== "") messages.push({ role: "assistant", content: text });
  return messages;
}

/** A call's input as the model wrote it: what was not JSON stays the text it was. */
function argumentsText(input: unknown): string {
  return typeof input === "string" ? input : JSON.stringify(input ?? {});
}

export function toChatTools(tools: readonly ToolDefinition[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: { ...tool.inputSchema },
    },
  }));
}
