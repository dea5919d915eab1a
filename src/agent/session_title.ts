/**
 * A session's title in `session/list`: the first line of the user's own words in its first
 * prompt. Never the prompt as the model read it, which starts with what UserPromptSubmit hooks
 * added (`<system-reminder>` for every session of a project with such a hook).
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";

export const TITLE_LENGTH = 80;

/** The title for a prompt, or null when it holds no words to show. */
export function sessionTitle(prompt: readonly ContentBlock[]): string | null {
  const line = prompt.flatMap((block) => block.type === "text" ? block.text.split("\n") : [])
    .map((text) => text.trim()).find((text) => text !== "") ?? mentionOf(prompt);
  if (line === undefined) return null;
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1)}…` : line;
}

/** A prompt of mentions alone (`@file`) is named after the first one. */
function mentionOf(prompt: readonly ContentBlock[]): string | undefined {
  for (const block of prompt) {
    if (block.type === "resource_link") return `@${block.name}`;
    if (block.type === "resource") return `@${block.resource.uri.split("/").at(-1)}`;
  }
  return undefined;
}
