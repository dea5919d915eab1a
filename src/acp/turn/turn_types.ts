/**
 * What a prompt turn hands down to its steps: the hook context every hook of the turn fires with,
 * how much of a tool result the model may read, and the tool call's part of the assistant's
 * message. It sits below the turn (prompt_turn.ts) and each of its steps (tool_call_step.ts,
 * tool_call_gate.ts, permission_step.ts, tool_call_content.ts, the hook steps), so a step reads
 * these without importing the turn that calls it.
 */
import type { AssistantSegment } from "../../model/model.ts";
import type { LoopGuard } from "./loop_guard.ts";
import type { ResultBudget } from "./tool_output_budget.ts";

/** What each hook of a turn fires with: the prompt's id (`prompt_id`) and the turn's signal. */
export interface TurnHookContext {
  readonly promptId: string;
  readonly signal: AbortSignal;
}

/** The turn as one of its tool calls sees it. */
export interface ToolTurn extends TurnHookContext {
  /** How much of a result the model may be shown, as the context stands (tool_output_budget.ts). */
  readonly budget: ResultBudget;
  /** Repeated calls this turn stops (loop_guard.ts); no guard when absent. */
  readonly loopGuard?: LoopGuard;
}

/** A tool call in the assistant's message: its name, its input and the result the model read. */
export type ToolCallSegment = Extract<AssistantSegment, { type: "tool_call" }>;
