/**
 * One tool call from announcement to result — the single dispatch seam every call passes:
 * announce (`tool_call`), PreToolUse hooks, the permission policy, dispatch, report
 * (`tool_call_update`), PostToolUse hooks, record, and hand the result back to the model. Every
 * announced call gets a final update and the model gets a result for every call, whatever
 * happens.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { PermissionRule } from "../agent/permission_rules.ts";
import { executeTool, type ToolExecution } from "../agent/tool_executor.ts";
import { parseToolInput } from "../agent/tool_input.ts";
import { capabilityOf, type ToolCapability } from "../agent/tool_names.ts";
import { toolCallPresentation } from "../agent/tool_presentation.ts";
import { errorMessage } from "../error.ts";
import { systemReminder } from "../hooks/hook_messages.ts";
import type { RequestedToolCall } from "../model/model.ts";
import type { AgentSession } from "./agent_session.ts";
import { permitted } from "./permission_step.ts";
import type { ResultBudget, ToolCallSegment } from "./prompt_turn.ts";
import { commandContent, fitToBudget } from "./tool_call_content.ts";
import {
  type HookedCall,
  type PostToolOutcome,
  runPostToolHooks,
  runPreToolUseHooks,
} from "./tool_hooks.ts";
import type { ToolPlaces } from "./tool_set.ts";
import type { TurnHookContext } from "./turn_hooks.ts";

export interface ToolCallDeps extends ToolPlaces {
  readonly rules: readonly PermissionRule[];
}

export interface ToolTurn extends TurnHookContext {
  readonly budget: ResultBudget;
}

export interface ToolCallOutcome {
  readonly segment: ToolCallSegment;
  /** A hook's `continue:false`: the turn ends after this call. */
  readonly halt: { readonly stopReason: string | null } | null;
}

/** What happened before dispatch: refused (with why), or cleared to run with this input. */
type Gate =
  | {
    readonly kind: "refused";
    readonly execution: ToolExecution;
    readonly meta?: Record<string, unknown>;
    readonly halt?: { readonly stopReason: string | null };
  }
  | { readonly kind: "dispatch"; readonly input: unknown; readonly forModel: readonly string[] };

export async function runToolCall(
  session: AgentSession,
  call: RequestedToolCall,
  turn: ToolTurn,
  deps: ToolCallDeps,
): Promise<ToolCallOutcome> {
  const hooked: HookedCall = {
    toolCallId: session.nextToolCallId(),
    name: call.name,
    input: call.input,
  };
  const capability = capabilityOf(call.name);
  announce(session, hooked, capability);

  let gate: Gate;
  try {
    gate = await gateCall(session, hooked, capability, turn, deps);
  } catch (error) {
    gate = {
      kind: "refused",
      execution: refused(`Internal error while running ${call.name}: ${errorMessage(error)}`),
    };
  }
  let execution: ToolExecution;
  let forModel: readonly string[] = [];
  let halt = gate.kind === "refused" ? gate.halt ?? null : null;
  let dispatchedInput = call.input;
  let durationMs = 0;
  if (gate.kind === "dispatch" && capability !== undefined) {
    dispatchedInput = gate.input;
    const started = performance.now();
    execution = await dispatch(session, hooked, capability, gate.input, turn.signal, deps);
    durationMs = Math.round(performance.now() - started);
  } else {
    execution = gate.kind === "refused" ? gate.execution : refused("The tool call was not run");
  }
  session.send({
    sessionUpdate: "tool_call_update",
    toolCallId: hooked.toolCallId,
    status: execution.status,
    content: execution.content,
    rawOutput: execution.rawOutput,
    ...(execution.locations ? { locations: execution.locations } : {}),
    ...(gate.kind === "refused" && gate.meta ? { _meta: gate.meta } : {}),
  });
  if (gate.kind === "dispatch") {
    const post = await postToolHooks(
      session,
      turn,
      { ...hooked, input: dispatchedInput },
      execution,
      durationMs,
    );
    forModel = [...gate.forModel, ...post.forModel];
    halt = post.halt;
  }
  const result = [fitToBudget(execution.modelText, turn.budget), ...forModel.map(systemReminder)]
    .join("\n\n");
  session.record({
    type: "tool_call",
    toolCallId: hooked.toolCallId,
    name: call.name,
    input: dispatchedInput,
    status: execution.status,
    result,
  });
  return { segment: { type: "tool_call", name: call.name, input: dispatchedInput, result }, halt };
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
    return { forModel: [], halt: null };
  };
  if (turn.signal.aborted) {
    const afterCancel = { promptId: turn.promptId, signal: session.background.signal };
    runPostToolHooks(session, afterCancel, call, execution, durationMs).catch(failed);
    return { forModel: [], halt: null };
  }
  return await runPostToolHooks(session, turn, call, execution, durationMs).catch(failed);
}

function announce(
  session: AgentSession,
  call: HookedCall,
  capability: ToolCapability | undefined,
): void {
  const presentation = toolCallPresentation({
    name: call.name,
    capability,
    input: call.input,
    cwd: session.cwd,
  });
  session.send({
    sessionUpdate: "tool_call",
    toolCallId: call.toolCallId,
    title: presentation.title,
    kind: presentation.kind,
    status: "pending",
    rawInput: call.input,
    locations: presentation.locations,
    content: commandContent(capability, call.input),
    _meta: { tool_name: call.name },
  });
}

/** PreToolUse, then the permission policy: everything that may stop a call before it runs. */
async function gateCall(
  session: AgentSession,
  call: HookedCall,
  capability: ToolCapability | undefined,
  turn: ToolTurn,
  deps: ToolCallDeps,
): Promise<Gate> {
  const pre = await runPreToolUseHooks(session, turn, call);
  if (pre.kind === "deny") {
    return {
      kind: "refused",
      execution: refused(pre.modelText),
      meta: { "llama-agent/hook": { event: "PreToolUse", decision: "deny", reason: pre.reason } },
    };
  }
  if (pre.kind === "halt") {
    return {
      kind: "refused",
      execution: refused(pre.modelText),
      halt: { stopReason: pre.stopReason },
    };
  }
  if (capability === undefined) {
    return {
      kind: "refused",
      execution: refused(`Unknown tool "${call.name}": the tools are shell, fs_read and fs_write`),
    };
  }
  if (pre.rewritten) {
    const parsed = parseToolInput(capability, pre.input, call.name);
    if (!parsed.ok) {
      return {
        kind: "refused",
        execution: refused(
          `PreToolUse:${call.name} hook error: the hook's updatedInput is invalid: ${parsed.message}`,
        ),
      };
    }
    // The client sees the call as it will run.
    const presentation = toolCallPresentation({
      name: call.name,
      capability,
      input: pre.input,
      cwd: session.cwd,
    });
    session.send({
      sessionUpdate: "tool_call_update",
      toolCallId: call.toolCallId,
      title: presentation.title,
      rawInput: pre.input,
      locations: presentation.locations,
      content: commandContent(capability, pre.input),
    });
  }
  const allowed = await permitted(
    session,
    {
      toolCallId: call.toolCallId,
      name: call.name,
      input: pre.input,
      capability,
      hookPermission: pre.permission,
    },
    turn.signal,
    deps,
  );
  if (turn.signal.aborted) {
    return {
      kind: "refused",
      execution: refused("The tool call was cancelled before it ran", true),
    };
  }
  if (!allowed) {
    return {
      kind: "refused",
      execution: refused(`The user denied permission to run ${call.name}`),
    };
  }
  return { kind: "dispatch", input: pre.input, forModel: pre.forModel };
}

function dispatch(
  session: AgentSession,
  call: HookedCall,
  capability: ToolCapability,
  input: unknown,
  signal: AbortSignal,
  deps: ToolCallDeps,
): Promise<ToolExecution> {
  session.send({
    sessionUpdate: "tool_call_update",
    toolCallId: call.toolCallId,
    status: "in_progress",
  });
  return executeTool({ name: call.name, capability, input }, {
    cwd: session.cwd,
    files: deps.files,
    shell: deps.shell,
    signal,
    onTerminal: (terminalId) =>
      // Embedded while it runs, so the editor shows the output live.
      session.send({
        sessionUpdate: "tool_call_update",
        toolCallId: call.toolCallId,
        content: [{ type: "terminal", terminalId }],
      }),
  });
}

function refused(message: string, interrupted = false): ToolExecution {
  const content: ToolCallContent[] = [{
    type: "content",
    content: { type: "text", text: message },
  }];
  return {
    status: "failed",
    modelText: message,
    content,
    rawOutput: { error: message },
    interrupted,
  };
}
