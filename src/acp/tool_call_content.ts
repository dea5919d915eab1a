/**
 * What a tool call shows besides its title, and how much of a result the model is given. A shell
 * call shows its whole command (the title keeps only the start of its first line), so the user
 * who is asked for permission sees exactly what would run.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { ToolCapability } from "../agent/tool_names.ts";
import type { ResultBudget } from "./prompt_turn.ts";

export function commandContent(
  capability: ToolCapability | undefined,
  input: unknown,
): ToolCallContent[] {
  if (capability !== "shell" || typeof input !== "object" || input === null) return [];
  const command = (input as Record<string, unknown>).command;
  if (typeof command !== "string") return [];
  return [{ type: "content", content: { type: "text", text: "```sh\n" + command + "\n```" } }];
}

/** The result cut to the budget, with a note that tells the model how to get the rest. */
export function fitToBudget(text: string, budget: ResultBudget): string {
  if (budget.maxChars === undefined || text.length <= budget.maxChars) return text;
  return text.slice(0, budget.maxChars) +
    `\n[cut at ${budget.maxChars} of ${text.length} characters to fit the model's context: ` +
    "ask for less at a time, e.g. fs_read with offset and limit, or a shell command piped to head]";
}
