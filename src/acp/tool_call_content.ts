/**
 * What a tool call shows besides its title, and how much of a result the model is given. A shell
 * call shows its whole command (the title keeps only the start of its first line), so the user
 * who is asked for permission sees exactly what would run.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { ToolOperation } from "../agent/tool_operation.ts";
import type { ResultBudget } from "./turn_types.ts";

export function commandContent(operation: ToolOperation | undefined): ToolCallContent[] {
  if (operation?.capability !== "shell") return [];
  const text = "```sh\n" + operation.command + "\n```";
  return [{ type: "content", content: { type: "text", text } }];
}

/** The result cut to the budget, with a note that tells the model how to get the rest. */
export function fitToBudget(text: string, budget: ResultBudget): string {
  if (budget.maxChars === undefined || text.length <= budget.maxChars) return text;
  return text.slice(0, budget.maxChars) +
    `\n[cut at ${budget.maxChars} of ${text.length} characters to fit the model's context: ` +
    "ask for less at a time, e.g. a read with offset and limit, or a command piped to head]";
}
