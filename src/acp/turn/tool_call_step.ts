/**
 * One tool call from announcement to result — the single dispatch seam every call passes:
 * announce (`tool_call`), the gate (the profile's input check, PreToolUse hooks, the permission
 * policy: tool_call_gate.ts), dispatch, report (`tool_call_update`), PostToolUse hooks, record,
 * and hand the result back to the model. Every announced call gets a final update and the model
 * gets a result for every call, whatever happens.
 */
import { CallFileReads } from "../../agent/files/call_file_reads.ts";
import {
  failedExecution,
  type ParsedCall,
  type ToolExecution,
} from "../../agent/tools/tool_kit.ts";
import type { ToolOperation } from "../../agent/tools/tool_operation.ts";
import { errorMessage } from "../../error.ts";
import { systemReminder } from "../../hooks/hook_messages.ts";
import type { AgentSession } from "../session/agent_session.ts";
import { toolNameOf } from "../../profile/compat_profile.ts";
import { fitResult, resultOrigin } from "./tool_output_budget.ts";
import {
  type CallDeps,
  executorDeps,
  type Gate,
  gateCall,
  shownCall,
  type ToolCallDeps,
  type ToolTarget,
  toolTarget,
} from "./tool_call_gate.ts";
import {
  type HookedCall,
  NO_POST_TOOL_OUTCOME,
  type PostToolOutcome,
  runPostToolHooks,
} from "./tool_hooks.ts";
import { type GuardAnswer, UNCHANGED_TEXT } from "./loop_guard.ts";
import type { ToolCallSegment, ToolTurn } from "./turn_types.ts";
import type { CallRepair, TurnToolCall } from "./tool_call_repair.ts";

export interface ToolCallOutcome {
  /** The call's id (`tool_use_id` in hooks). */
  readonly toolCallId: string;
  readonly segment: ToolCallSegment;
  /** A hook's `continue:false`: the turn ends after this call. */
  readonly halt: { readonly stopReason: string | null } | null;
  /** A PreToolUse `defer`: the turn ends now, without the Stop hooks (hooks.md §12.4). */
  readonly deferred: boolean;
}

export async function runToolCall(
  session: AgentSession,
  call: TurnToolCall,
  turn: ToolTurn,
  turnDeps: ToolCallDeps,
): Promise<ToolCallOutcome> {
  // The check, the permission prompt's diff and the change itself share one read of the file.
  const deps: CallDeps = {
    ...turnDeps,
    files: new CallFileReads(turnDeps.files, session.workingDirectory.current),
  };
  const hooked: HookedCall = {
    toolCallId: session.nextToolCallId(),
    name: call.name,
    input: call.input,
  };
  const refusal = call.repair?.refusal;
  const target: ToolTarget = refusal === undefined
    ? toolTarget(session, call.name, deps)
    : { kind: "none", message: refusal };
  const parsed = parseCall(session, target, call.input, call.name);
  announce(session, hooked, target, parsed, call.repair);
  // The model's call as it emitted it, before any check or hook (a PreToolUse hook reads it).
  session.claudeTranscript?.toolUse({ id: hooked.toolCallId, name: call.name, input: call.input });

  let gate: Gate;
  try {
    gate = await gateCall(session, hooked, target, parsed, turn, deps);
  } catch (error) {
    gate = {
      kind: "refused",
      execution: failedExecution(
        `Internal error while running ${call.name}: ${errorMessage(error)}`,
      ),
    };
  }
  let execution: ToolExecution;
  let forModel: readonly string[] = gate.kind === "refused" ? gate.forModel ?? [] : [];
  let halt = gate.kind === "refused" ? gate.halt ?? null : null;
  const recordedInput = gate.input ?? call.input;
  let durationMs = 0;
  if (gate.kind === "dispatch" && target.kind !== "none") {
    const started = performance.now();
    execution = await dispatch(session, hooked, target, gate, turn.signal, deps);
    durationMs = Math.round(performance.now() - started);
  } else {
    execution = gate.kind === "refused"
      ? gate.execution
      : failedExecution("The tool call was not run");
  }
  // The turn's loop guard hears of every call it did not answer itself: the same call again with
  // the same outcome is answered "unchanged" (the client still sees what the tool said).
  const guardAnswer: GuardAnswer | undefined = gate.kind === "refused" && gate.guarded
    ? "already_refused"
    : turn.loopGuard?.settled(call, execution.status, execution.modelText) === "unchanged"
    ? "unchanged"
    : undefined;
  const meta = {
    ...(gate.kind === "refused" ? gate.meta : undefined),
    ...(guardAnswer === "unchanged" ? { "llama-agent/loop_guard": guardAnswer } : {}),
  };
  session.send({
    sessionUpdate: "tool_call_update",
    toolCallId: hooked.toolCallId,
    status: execution.status,
    content: execution.content,
    rawOutput: execution.rawOutput,
    ...(execution.locations ? { locations: execution.locations } : {}),
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
  });
  // Cut to its share of the free context, with a note of how to get the rest (the tool's way).
  const notes = session.toolKit.profile.cutNotes;
  const origin = target.kind === "builtin"
    ? resultOrigin(
      operationOf(gate.kind === "dispatch" ? gate.parsed : parsed),
      toolNameOf(session.toolKit.profile, target.capability),
    )
    : { kind: target.kind === "mcp" ? "mcp" as const : "other" as const, tool: call.name };
  let toolText = await fitResult(execution.modelText, origin, turn.budget, notes);
  // Before the Post hooks, which may read it; what they add is recorded as their attachments. A
  // deferred call has no result there, as in Claude Code: its hook_deferred_tool stands for it.
  const deferred = gate.kind === "refused" && gate.deferred === true;
  if (!deferred) {
    session.claudeTranscript?.toolResult({
      promptId: turn.promptId,
      toolUseId: hooked.toolCallId,
      content: toolText,
      failed: execution.status === "failed",
      flagsSuccess: target.kind === "builtin" && target.capability === "shell",
      toolResponse: execution.rawOutput,
    });
  }
  let hookOutput = false;
  if (gate.kind === "dispatch") {
    const post = await postToolHooks(
      session,
      turn,
      { ...hooked, input: recordedInput },
      execution,
      durationMs,
    );
    forModel = [...gate.forModel, ...post.forModel];
    halt = post.halt;
    // The model reads the hook's output; the client and the Claude-format transcript, written
    // above, keep the tool's real one (a hook reading the transcript sees what ran).
    if (post.toolOutput !== null) {
      hookOutput = true;
      const origin = { kind: "other" as const, tool: call.name };
      // A value of the tool's own response shape reads as the tool's own output would.
      const told = target.kind === "builtin"
        ? session.toolKit.rewrittenOutput(target.capability, post.toolOutput.value)
        : null;
      toolText = await fitResult(told ?? post.toolOutput.text, origin, turn.budget, notes);
    }
  }
  // What a hook put in the result's place is the model's to read, repeated or not.
  if (guardAnswer === "unchanged" && !hookOutput) toolText = UNCHANGED_TEXT;
  const result = [toolText, ...forModel.map(systemReminder)].join("\n\n");
  session.record({
    type: "tool_call",
    toolCallId: hooked.toolCallId,
    name: call.name,
    input: recordedInput,
    status: execution.status,
    result,
    ...(guardAnswer === undefined ? {} : { guard: guardAnswer }),
    ...(call.repair === undefined ? {} : { repair: call.repair }),
  });
  return {
    toolCallId: hooked.toolCallId,
    segment: { type: "tool_call", name: call.name, input: recordedInput, result },
    halt,
    deferred,
  };
}

/**
 * The Post hooks of a call that ran. A call the user cancelled still fires PostToolUseFailure
 * (`is_interrupt: true`), under the session's signal since the turn's is aborted, and without
 * holding up the cancelled turn's answer.
 */
async function postToolHooks(
  session: AgentSession,
  turn: ToolTurn,
  call: HookedCall,
  execution: ToolExecution,
  durationMs: number,
): Promise<PostToolOutcome> {
  const failed = (error: unknown) => {
    session.log(`Post tool hooks failed: ${errorMessage(error)}`);
    return NO_POST_TOOL_OUTCOME;
  };
  if (turn.signal.aborted) {
    const afterCancel = { promptId: turn.promptId, signal: session.background.signal };
    // Tracked, so closing the session waits for (and kills) these hooks: none outlives it.
    session.runInBackground(
      runPostToolHooks(session, afterCancel, call, execution, durationMs).catch(failed),
    );
    return NO_POST_TOOL_OUTCOME;
  }
  return await runPostToolHooks(session, turn, call, execution, durationMs).catch(failed);
}

function operationOf(parsed: ParsedCall | undefined): ToolOperation | undefined {
  return parsed?.ok ? parsed.operation : undefined;
}

function parseCall(
  session: AgentSession,
  target: ToolTarget,
  input: unknown,
  name: string,
): ParsedCall | undefined {
  if (target.kind !== "builtin") return undefined;
  return session.toolKit.parse(target.capability, input, name, session.workingDirectory.current);
}

/**
 * The call's first update. `_meta.tool_name` is the name the model emitted; a repaired call (a
 * call written as text, another agent's name, arguments sent as a JSON string) says how it was
 * made, and the tool it runs as (`toolName`), under `llama-agent/repair`.
 */
function announce(
  session: AgentSession,
  call: HookedCall,
  target: ToolTarget,
  parsed: ParsedCall | undefined,
  repair: CallRepair | undefined,
): void {
  session.send({
    sessionUpdate: "tool_call",
    toolCallId: call.toolCallId,
    ...shownCall(session, call.name, target, parsed),
    status: "pending",
    rawInput: call.input,
    _meta: repair === undefined
      ? { tool_name: call.name }
      : { tool_name: repair.emittedName, "llama-agent/repair": { ...repair, toolName: call.name } },
  });
}

function dispatch(
  session: AgentSession,
  call: HookedCall,
  target: Exclude<ToolTarget, { kind: "none" }>,
  gate: Extract<Gate, { kind: "dispatch" }>,
  signal: AbortSignal,
  deps: ToolCallDeps,
): Promise<ToolExecution> {
  const { parsed } = gate;
  session.send({
    sessionUpdate: "tool_call_update",
    toolCallId: call.toolCallId,
    status: "in_progress",
  });
  if (target.kind === "mcp") return deps.mcp.call(target.tool, gate.input, signal);
  if (parsed === undefined || !parsed.ok) {
    const message = parsed?.message ?? `Cannot run ${call.name}: its input was not read`;
    return Promise.resolve(failedExecution(message));
  }
  return session.toolKit.execute(
    parsed.operation,
    executorDeps(session, signal, deps, (terminalId) =>
      // Embedded while it runs, so the editor shows the output live.
      session.send({
        sessionUpdate: "tool_call_update",
        toolCallId: call.toolCallId,
        content: [{ type: "terminal", terminalId }],
      })),
  );
}
