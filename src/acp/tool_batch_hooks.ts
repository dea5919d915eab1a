/**
 * PostToolBatch (the `claude` profile; a newer Claude Code event the source document does not
 * know): once the calls of one model reply all have their results, before the model is called
 * again. Every call of the batch is in `tool_calls`, a call refused before any hook (bad input,
 * an unknown tool: claude-compat.md §0.2) too, since this is the only hook such a call fires.
 * Not fired for a batch a hook's stop or the user's cancel cut short.
 *
 * What the hooks say reaches the model before its next call: `additionalContext` as
 * `PostToolBatch hook additional context: <ctx>`, a block's reason as feedback (inferred: Claude
 * Code's wording for it was not observed); `continue:false` ends the turn, as after PostToolUse.
 */
import type { RequestedToolCall } from "../model/model.ts";
import { joinedContext } from "../hooks/decision.ts";
import { additionalContextMessage, hookLabel } from "../hooks/hook_messages.ts";
import type { BatchedToolCall } from "../hooks/payload.ts";
import type { AgentSession } from "./agent_session.ts";
import { hookNotices } from "./hook_notices.ts";
import type { ToolCallOutcome } from "./tool_call_step.ts";
import type { TurnHookContext } from "./turn_types.ts";

/**
 * One call of the batch as hooks see it. `tool_input` is the input as the model gave it: Claude
 * Code sends the input as its next API request echoes it back (claude-compat.md §0.3), and the
 * model's own input is what ours echoes back. `tool_response` is exactly the result the model
 * reads (§0.6).
 */
export function batchedCall(call: RequestedToolCall, outcome: ToolCallOutcome): BatchedToolCall {
  return {
    tool_name: call.name,
    tool_input: call.input,
    tool_use_id: outcome.toolCallId,
    tool_response: outcome.segment.result,
  };
}

export type BatchGate =
  /** Go on to the next model call; `forModel` is read before it. */
  | { readonly kind: "go"; readonly forModel: readonly string[] }
  /** `continue:false`: the turn ends here. */
  | { readonly kind: "halt"; readonly stopReason: string | null };

const GO: BatchGate = { kind: "go", forModel: [] };

export async function runPostToolBatchHooks(
  session: AgentSession,
  turn: TurnHookContext,
  calls: readonly BatchedToolCall[],
): Promise<BatchGate> {
  if (calls.length === 0 || !session.hooks.has("PostToolBatch")) return GO;
  const { decision } = await session.hooks.fire("PostToolBatch", null, { tool_calls: calls }, turn);
  for (const notice of hookNotices(decision, null)) session.notice(notice);
  const verdict = decision.verdict;
  if (verdict.kind === "stop") return { kind: "halt", stopReason: verdict.stopReason };
  const forModel: string[] = [];
  const context = joinedContext(decision);
  if (context !== null) forModel.push(additionalContextMessage("PostToolBatch", null, context));
  if (verdict.kind === "block") {
    for (const block of verdict.blocks) {
      forModel.push(batchBlockedMessage(block.command, block.reason));
    }
  }
  return { kind: "go", forModel };
}

/** A block or exit 2, for the model: the PostToolUse wording without a tool (inferred). */
function batchBlockedMessage(command: string, reason: string): string {
  return `${hookLabel("PostToolBatch")} hook blocking error from command: "${command}": ${reason}`;
}
