/**
 * PreToolUse and PostToolUse / PostToolUseFailure at the dispatch seam (hooks.md §4, §5): what
 * the hooks decided, turned into what the seam does — deny, stop the turn, rewrite the input,
 * force or skip the permission prompt — and the words the model reads (§10).
 */
import { type HookDecision, joinedContext } from "../../hooks/decision.ts";
import {
  additionalContextMessage,
  blockingErrorMessage,
  preToolUseDeniedMessage,
} from "../../hooks/hook_messages.ts";
import type { ToolExecution } from "../../agent/tools/tool_kit.ts";
import type { AgentSession } from "../session/agent_session.ts";
import { hookNotices } from "../session/hook_notices.ts";
import type { TurnHookContext } from "./turn_types.ts";

export interface HookedCall {
  readonly toolCallId: string;
  /**
   * As the model emitted it, or the profile's tool another agent's name was mapped onto
   * (tool_call_repair.ts): matchers and `tool_name` see this.
   */
  readonly name: string;
  readonly input: unknown;
}

export type PreToolGate =
  | {
    readonly kind: "go";
    /** The input to dispatch: a hook's `updatedInput`, or the model's. */
    readonly input: unknown;
    readonly rewritten: boolean;
    /** A hook's `allow` (skip the prompt) or `ask` (prompt even if the policy would not). */
    readonly permission: "allow" | "ask" | null;
    /** For the model, after the result. */
    readonly forModel: readonly string[];
    /** Whether a hook ran: it may have changed the files the call works on. */
    readonly hooksRan: boolean;
  }
  /** Not dispatched; the model reads `modelText` as the result, then `forModel` (§12.3). */
  | {
    readonly kind: "deny";
    readonly reason: string;
    readonly modelText: string;
    readonly forModel: readonly string[];
  }
  /**
   * `permissionDecision:"defer"`: not dispatched, and the turn ends at once, with no Post or Stop
   * hook (§12.4). Claude Code ignores a defer's reason and context; only `--explain` shows them.
   */
  | { readonly kind: "defer"; readonly modelText: string }
  /** `continue:false`: not dispatched, and the turn ends after this call. */
  | { readonly kind: "halt"; readonly stopReason: string | null; readonly modelText: string };

export async function runPreToolUseHooks(
  session: AgentSession,
  turn: TurnHookContext,
  call: HookedCall,
): Promise<PreToolGate> {
  const unchanged: PreToolGate = {
    kind: "go",
    input: call.input,
    rewritten: false,
    permission: null,
    forModel: [],
    hooksRan: false,
  };
  if (!session.hooks.has("PreToolUse")) return unchanged;
  // Hooks that match nothing cost the call no payload and no wait.
  const selected = session.hooks.select("PreToolUse", call.name, call.input);
  if (selected.done) return unchanged;
  const { decision } = await selected.run({
    tool_name: call.name,
    tool_input: call.input,
    tool_use_id: call.toolCallId,
  }, turn);
  for (const notice of hookNotices(decision, call.name)) session.notice(notice);
  const verdict = decision.verdict;
  switch (verdict.kind) {
    case "stop":
      return {
        kind: "halt",
        stopReason: verdict.stopReason,
        // The stop reason is for the user (§10); the model only learns that the call did not run.
        modelText: `The ${call.name} call was not run: a hook ended the turn`,
      };
    case "block":
      return {
        kind: "deny",
        reason: verdict.reason,
        modelText: preToolUseDeniedMessage(call.name, verdict.reason),
        forModel: contextForModel(decision, call.name),
      };
    case "defer":
      return {
        kind: "defer",
        modelText: deferredMessage(call.name),
      };
    case "none":
    case "allow":
    case "ask":
      return {
        kind: "go",
        input: decision.updatedInput?.input ?? call.input,
        rewritten: decision.updatedInput !== null,
        permission: verdict.kind === "none" ? null : verdict.kind,
        forModel: contextForModel(decision, call.name),
        hooksRan: true,
      };
    default:
      return verdict satisfies never;
  }
}

/** What the model and the client read as a deferred call's result. */
function deferredMessage(toolName: string): string {
  return `The ${toolName} call was deferred by a hook: it was not run, and the turn ended`;
}

function contextForModel(decision: HookDecision, toolName: string): string[] {
  const context = joinedContext(decision);
  return context === null ? [] : [additionalContextMessage("PreToolUse", toolName, context)];
}

export interface PostToolOutcome {
  /**
   * A PostToolUse hook's `updatedToolOutput`: the result the model reads instead of the tool's
   * own (§12.5), as the hook gave it and as text. The client was already shown the real one.
   */
  readonly toolOutput: { readonly value: unknown; readonly text: string } | null;
  /** Appended to the result the model reads. */
  readonly forModel: readonly string[];
  /** `continue:false`: the turn ends after this call. */
  readonly halt: { readonly stopReason: string | null } | null;
}

/** What Post hooks that did not run (none registered or matched, or they failed) change. */
export const NO_POST_TOOL_OUTCOME: PostToolOutcome = { toolOutput: null, forModel: [], halt: null };

/** Only for a call that was dispatched: PostToolUse when it succeeded, PostToolUseFailure if not. */
export async function runPostToolHooks(
  session: AgentSession,
  turn: TurnHookContext,
  call: HookedCall,
  execution: ToolExecution,
  durationMs: number,
): Promise<PostToolOutcome> {
  const event = execution.status === "completed" ? "PostToolUse" : "PostToolUseFailure";
  if (!session.hooks.has(event)) return NO_POST_TOOL_OUTCOME;
  // Hooks that match nothing cost the call no payload and no wait.
  const selected = session.hooks.select(event, call.name, call.input);
  if (selected.done) return NO_POST_TOOL_OUTCOME;
  // Claude Code's key order: `tool_response` comes before `tool_use_id` (hooks.md §12.10).
  const { decision } = event === "PostToolUse"
    ? await selected.run({
      tool_name: call.name,
      tool_input: call.input,
      tool_response: execution.rawOutput,
      tool_use_id: call.toolCallId,
      duration_ms: durationMs,
    }, turn)
    : await selected.run({
      tool_name: call.name,
      tool_input: call.input,
      tool_use_id: call.toolCallId,
      error: execution.modelText,
      is_interrupt: execution.interrupted,
      duration_ms: durationMs,
    }, turn);
  for (const notice of hookNotices(decision, call.name)) session.notice(notice);
  const forModel: string[] = [];
  const context = joinedContext(decision);
  if (context !== null) forModel.push(additionalContextMessage(event, call.name, context));
  const verdict = decision.verdict;
  if (verdict.kind === "block") {
    for (const block of verdict.blocks) {
      forModel.push(blockingErrorMessage(event, call.name, block.command, block.reason));
    }
  }
  const halt = verdict.kind === "stop" ? { stopReason: verdict.stopReason } : null;
  return { toolOutput: decision.updatedToolOutput, forModel, halt };
}
