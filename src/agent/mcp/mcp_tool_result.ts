/**
 * What an MCP tool's answer becomes: the text the model reads, the content the client shows (MCP
 * and ACP content blocks share their shapes), and `rawOutput` — the server's result as it came,
 * which hooks read as `tool_response`. An `isError` result is a failed call, so PostToolUseFailure
 * fires for it, as for a built-in tool that fails.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { ToolExecution } from "../tools/tool_kit.ts";

type McpContent = CallToolResult["content"][number];

export function mcpToolExecution(result: CallToolResult): ToolExecution {
  const content = result.content ?? [];
  const parts = content.map(modelTextOf);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  const modelText = parts.join("\n") || "(no output)";
  const shown = content.map(clientContentOf);
  return {
    status: result.isError ? "failed" : "completed",
    modelText,
    content: shown.length > 0 ? shown : [textContent(modelText)],
    rawOutput: { ...result },
    interrupted: false,
  };
}

function modelTextOf(block: McpContent): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${Math.round(block.data.length * 3 / 4)} bytes]`;
    case "resource_link":
      return `[resource: ${block.uri}${block.description ? ` — ${block.description}` : ""}]`;
    case "resource":
      return "text" in block.resource
        ? block.resource.text
        : `[resource: ${block.resource.uri}${
          block.resource.mimeType ? ` (${block.resource.mimeType})` : ""
        }]`;
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

function clientContentOf(block: McpContent): ToolCallContent {
  switch (block.type) {
    case "text":
      return textContent(block.text);
    case "image":
      return {
        type: "content",
        content: { type: "image", data: block.data, mimeType: block.mimeType },
      };
    case "audio":
      return {
        type: "content",
        content: { type: "audio", data: block.data, mimeType: block.mimeType },
      };
    case "resource_link":
      return {
        type: "content",
        content: {
          type: "resource_link",
          uri: block.uri,
          name: block.name,
          ...(block.mimeType === undefined ? {} : { mimeType: block.mimeType }),
          ...(block.description === undefined ? {} : { description: block.description }),
        },
      };
    case "resource": {
      const { resource } = block;
      const mimeType = resource.mimeType === undefined ? {} : { mimeType: resource.mimeType };
      return {
        type: "content",
        content: {
          type: "resource",
          resource: "text" in resource
            ? { uri: resource.uri, text: resource.text, ...mimeType }
            : { uri: resource.uri, blob: resource.blob, ...mimeType },
        },
      };
    }
    default:
      return textContent(modelTextOf(block));
  }
}

function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}
