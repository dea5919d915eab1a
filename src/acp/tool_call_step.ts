/**
 * One tool call from announcement to result — the single dispatch seam every call passes:
 * announce (`tool_call`), PreToolUse hooks, the permission policy, dispatch, report
 * (`tool_call_update`), PostToolUse hooks, record, and hand the result back to the model. Every
 * announced call gets a final update and the model gets a result for every call, whatever
 * happens.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { McpServers } from "../agent/mcp/mcp_servers.ts";
import type { McpTool } from "../agent/mcp/mcp_connection.ts";
import type { PermissionRule } from "../agent/permission_rules.ts";
import { executeTool, type ToolExecution } from "../agent/tool_executor.ts";
import { parseToolInput } from "../agent/tool_input.ts";
import { capabilityOf, TOOL_ALIASES, type ToolCapability } from "../agent/tool_names.ts";
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
  /** The session's MCP servers: `mcp__<server>__<tool>` calls go to them. */
  readonly mcp: Pick<McpServers, "lookup" | "call" | "toolNames">;
}

/** What an emitted tool name runs: a built-in capability, an MCP server's tool, or nothing. */
type ToolTarget =
  | { readonly kind: "builtin"; readonly capability: ToolCapability }
  | { readonly kind: "mcp"; readonly tool: McpTool }
  | { readonly kind: "none"; readonly message: string };

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
  const target = toolTarget(call.name, deps);
  announce(session, hooked, target);

  let gate: Gate;
  try {
    gate = await gateCall(session, hooked, target, turn, deps);
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
  if (gate.kind === "dispatch" && target.kind !== "none") {
    dispatchedInput = gate.input;
    const started = performance.now();
    execution = await dispatch(session, hooked, target, gate.input, turn.signal, deps);
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

function toolTarget(name: string, deps: ToolCallDeps): ToolTarget {
  const capability = capabilityOf(name);
  if (capability !== undefined) return { kind: "builtin", capability };
  const found = deps.mcp.lookup(name);
  if (found.kind === "tool") return { kind: "mcp", tool: found.tool };
  if (found.kind === "unavailable") return { kind: "none", message: found.message };
  const names = [...Object.keys(TOOL_ALIASES), ...deps.mcp.toolNames()];
  return { kind: "none", message: `Unknown tool "${name}": the tools are ${names.join(", ")}` };
}

function capabilityOfTarget(target: ToolTarget): ToolCapability | undefined {
  return target.kind === "builtin" ? target.capability : undefined;
}

function announce(session: AgentSession, call: HookedCall, target: ToolTarget): void {
  const capability = capabilityOfTarget(target);
  const presentation = toolCallPresentation({
    name: call.name,
    capability,
    input: call.input,
    cwd: session.cwd,
  });
  session.send({
    sessionUpdate: "tool_call",
    toolCallId: call.toolCallId,
    title: target.kind === "mcp" ? mcpTitle(target.tool) : presentation.title,
    kind: presentation.kind,
    status: "pending",
    rawInput: call.input,
    locations: presentation.locations,
    content: commandContent(capability, call.input),
    _meta: { tool_name: call.name },
  });
}

/** `echo (MCP: fixture)`: the server's own title for the tool when it gives one. */
function mcpTitle(tool: McpTool): string {
  return `${tool.title ?? tool.toolName} (MCP: ${tool.server})`;
}

/** PreToolUse, then the permission policy: everything that may stop a call before it runs. */
async function gateCall(
  session: AgentSession,
  call: HookedCall,
  target: ToolTarget,
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
  if (target.kind === "none") return { kind: "refused", execution: refused(target.message) };
  const capability = capabilityOfTarget(target);
  if (pre.rewritten) {
    const invalid = invalidRewrite(target, pre.input, call.name);
    if (invalid !== undefined) {
      return {
        kind: "refused",
        execution: refused(
          `PreToolUse:${call.name} hook error: the hook's updatedInput is invalid: ${invalid}`,
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
      title: target.kind === "mcp" ? mcpTitle(target.tool) : presentation.title,
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
      ...(target.kind === "mcp" ? { title: mcpTitle(target.tool) } : {}),
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

/** Why a hook's rewritten input cannot run, or undefined when it can. */
function invalidRewrite(target: ToolTarget, input: unknown, name: string): string | undefined {
  if (target.kind === "builtin") {
    const parsed = parseToolInput(target.capability, input, name);
    return parsed.ok ? undefined : parsed.message;
  }
  // The server validates against its own schema; an MCP call's arguments are an object.
  const isObject = typeof input === "object" && input !== null && !Array.isArray(input);
  return isObject ? undefined : `${name} takes a JSON object`;
}

function dispatch(
  session: AgentSession,
  call: HookedCall,
  target: Exclude<ToolTarget, { kind: "none" }>,
  input: unknown,
  signal: AbortSignal,
  deps: ToolCallDeps,
): Promise<ToolExecution> {
  session.send({
    sessionUpdate: "tool_call_update",
    toolCallId: call.toolCallId,
    status: "in_progress",
  });
  if (target.kind === "mcp") return deps.mcp.call(target.tool, input, signal);
  return executeTool({ name: call.name, capability: target.capability, input }, {
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
