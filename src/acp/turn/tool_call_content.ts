/**
 * What a tool call shows besides its title. A shell call shows its whole command (the title keeps
 * only the start of its first line), so the user who is asked for permission sees exactly what
 * would run. How much of a result the model is given is tool_output_budget.ts's.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { ToolOperation } from "../../agent/tools/tool_operation.ts";

export function commandContent(operation: ToolOperation | undefined): ToolCallContent[] {
  if (operation?.capability !== "shell") return [];
  const text = "```sh\n" + operation.command + "\n```";
  return [{ type: "content", content: { type: "text", text } }];
}
