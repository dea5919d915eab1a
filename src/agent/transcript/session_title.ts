/**
 * A session's title in `session/list`: the first line of the user's own words in its first
 * prompt. Never the prompt as the model read it, which starts with what UserPromptSubmit hooks
 * added (`<system-reminder>` for every session of a project with such a hook).
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";

export const TITLE_LENGTH = 80;

/**
 * The title for a prompt, or null when it holds no words to show. A transcript's prompt is read
 * back loosely, so a block without its text or URI is passed over, never a failure of the list.
 */
export function sessionTitle(prompt: readonly ContentBlock[]): string | null {
  const line =
    prompt.flatMap((block) =>
      block.type === "text" && typeof block.text === "string" ? block.text.split("\n") : []
    ).map((text) => text.trim()).find((text) => text !== "") ?? mentionOf(prompt);
  if (line === undefined) return null;
  // By code points: half of an emoji is no text a client can decode.
  const characters = Array.from(line);
  return characters.length > TITLE_LENGTH
    ? `${characters.slice(0, TITLE_LENGTH - 1).join("")}…`
    : line;
}

/** A prompt of mentions alone (`@file`) is named after the first one. */
function mentionOf(prompt: readonly ContentBlock[]): string | undefined {
  for (const block of prompt) {
    if (block.type === "resource_link" && typeof block.name === "string") return `@${block.name}`;
    const uri: unknown = block.type === "resource" ? block.resource?.uri : undefined;
    if (typeof uri === "string") {
      // A folder's URI ends in "/": its name is the part before.
      return `@${uri.replace(/\/+$/, "").split("/").at(-1) || uri}`;
    }
  }
  return undefined;
}
