/**
 * The slash commands a session offers (`available_commands_update`): a prompt that starts with
 * one is the command, run by the agent instead of sent to the model.
 */
import type { AvailableCommand, ContentBlock } from "@agentclientprotocol/sdk";
import { promptText } from "../turn/prompt_text.ts";

export const SESSION_COMMANDS: readonly AvailableCommand[] = [
  {
    name: "compact",
    description: "Summarise the conversation so far, to free the model's context; the text " +
      "after it says what the summary should keep",
    input: { hint: "what the summary should focus on (optional)" },
  },
  {
    name: "clear",
    description: "Start the conversation over: the model forgets it (this thread still shows it)",
  },
];

export type SessionCommand =
  | { readonly name: "compact"; readonly focus: string }
  | { readonly name: "clear" };

/** The command a prompt gives, if it starts with one (`/compact keep the API notes`). */
export function sessionCommandOf(prompt: readonly ContentBlock[]): SessionCommand | undefined {
  const match = /^\/(compact|clear)(?:\s+([\s\S]*))?$/.exec(promptText(prompt).trim());
  if (match === null) return undefined;
  if (match[1] === "clear") return match[2] === undefined ? { name: "clear" } : undefined;
  return { name: "compact", focus: (match[2] ?? "").trim() };
}
