/**
 * PostToolBatch (the `claude` profile; a newer Claude Code event the source document does not
 * know): once the calls of one model reply all have their results, before the model is called
 * again. Every call of the batch is in `tool_calls`, a call refused before any hook (bad input,
 * an unknown tool: claude-compat.md §0.2) too, since this is the only hook such a call fires.
 * Not fired for a batch a hook's stop or the user's cancel cut short.
 *
 * What the hooks say, as Claude Code 2.1.332 does it: `additionalContext` is read inside the
 * batch's last tool result, as `PostToolBatch hook additional context: <ctx>` in a reminder; a
 * block (`decision: "block"`, exit 2, a prompt hook's `ok: false`) ends the turn as
 * `continue: false` does: no further model call, no Stop hook.
 */
import type { RequestedToolCall } from "../../model/model.ts";
import { joinedContext } from "../../hooks/decision.ts";
import { additionalContextMessage, hookLabel, systemReminder } from "../../hooks/hook_messages.ts";
import type { BatchedToolCall } from "../../hooks/payload.ts";
import { capabilityOf } from "../../profile/compat_profile.ts";
import type { AgentSession } from "../session/agent_session.ts";
import { hookNotices } from "../session/hook_notices.ts";
import type { ToolCallOutcome } from "./tool_call_step.ts";
import type { TurnHookContext } from "./turn_types.ts";

/**
 * One call of the batch as hooks see it. `tool_input` is the input as the next request to the
 * model echoes it back (claude-compat.md §0.3): Claude Code rebuilds Bash's and Edit's
 * (claude_echoed_input.ts), the others' are as the model gave them. `tool_response` is exactly
 * the result the model reads (§0.6).
 */
export function batchedCall(
  session: AgentSession,
  call: RequestedToolCall,
  outcome: ToolCallOutcome,
): BatchedToolCall {
  const { toolKit } = session;
  // Claude Code drops a `cd` into the shell's current directory from an echoed command.
  const cwd = session.workingDirectory.current;
  const capability = capabilityOf(toolKit.profile, call.name);
  return {
    tool_name: call.name,
    tool_input: capability === undefined
      ? call.input
      : toolKit.echoedInput(capability, call.input, call.name, cwd),
    tool_use_id: outcome.toolCallId,
    tool_response: outcome.segment.result,
  };
}

export type BatchGate =
  /**
   * Go on to the next model call; `inLastResult`, when set, is read at the end of the batch's last
   * tool result, after a blank line.
   */
  | { readonly kind: "go"; readonly inLastResult: string | null }
  /** `continue:false` or a block: the turn ends here, the model is not called again. */
  | { readonly kind: "halt"; readonly stopReason: string | null };

const GO: BatchGate = { kind: "go", inLastResult: null };

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
  if (verdict.kind === "block") {
    // The model does not read it (it is not called again): the user is told which hook ended
    // the turn and why, in the words a PostToolUse block has (inferred: Claude Code's own
    // notice for it was not observed).
    for (const block of verdict.blocks) {
      session.notice(batchBlockedMessage(block.command, block.reason));
    }
    return { kind: "halt", stopReason: verdict.reason };
  }
  const context = joinedContext(decision);
  if (context === null) return GO;
  return {
    kind: "go",
    inLastResult: systemReminder(additionalContextMessage("PostToolBatch", null, context)),
  };
}

/** A block or exit 2, for the user: the PostToolUse wording without a tool. */
function batchBlockedMessage(command: string, reason: string): string {
  return `${hookLabel("PostToolBatch")} hook blocking error from command: "${command}": ${reason}`;
}
