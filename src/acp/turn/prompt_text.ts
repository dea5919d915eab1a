/**
 * A prompt's content blocks as the text the model reads. Embedded resources (the editor's
 * `@file` mentions) are inlined with their URI so the model knows where the text came from.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";

export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) {
          parts.push(`<context uri="${resource.uri}">\n${resource.text}\n</context>`);
        } else parts.push(`<context uri="${resource.uri}">(binary content omitted)</context>`);
        break;
      }
      case "resource_link":
        parts.push(`<context uri="${block.uri}" name="${block.name}"/>`);
        break;
      case "image":
      case "audio":
        // Not advertised in promptCapabilities, so a client should not send them.
        parts.push(`(${block.type} omitted: this agent reads text only)`);
        break;
      default:
        block satisfies never;
    }
  }
  return parts.join("\n\n");
}
