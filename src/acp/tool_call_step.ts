/**
 * One tool call from announcement to result — the single dispatch seam every call passes:
 * announce (`tool_call`), gate (permission policy; hooks join here), dispatch, report
 * (`tool_call_update`), record, and hand the result back to the model. Every announced call
 * gets a final update and the model gets a result for every call, whatever happens.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { decidePermission } from "../agent/permission_policy.ts";
import {
  permissionAnswer,
  permissionOptions,
  rememberAnswer,
} from "../agent/permission_request.ts";
import { executeTool, fileWriteDiff, type ToolExecution } from "../agent/tool_executor.ts";
import { parseToolInput } from "../agent/tool_input.ts";
import { capabilityOf, type ToolCapability } from "../agent/tool_names.ts";
import { toolCallPresentation } from "../agent/tool_presentation.ts";
import type { RequestedToolCall } from "../model/model.ts";
import type { PermissionRule } from "../agent/permission_rules.ts";
import type { AgentSession } from "./agent_session.ts";
import type { ResultBudget, ToolCallSegment } from "./prompt_turn.ts";
import { commandContent, fitToBudget } from "./tool_call_content.ts";
import { errorMessage } from "../error.ts";
import type { ToolPlaces } from "./tool_set.ts";
import { untilAborted } from "./until_aborted.ts";

export interface ToolCallDeps extends ToolPlaces {
  readonly rules: readonly PermissionRule[];
  readonly budget: ResultBudget;
}

export async function runToolCall(
  session: AgentSession,
  call: RequestedToolCall,
  signal: AbortSignal,
  deps: ToolCallDeps,
): Promise<ToolCallSegment> {
  const toolCallId = session.nextToolCallId();
  const capability = capabilityOf(call.name);
  const presentation = toolCallPresentation({
    name: call.name,
    capability,
    input: call.input,
    cwd: session.cwd,
  });
  session.send({
    sessionUpdate: "tool_call",
    toolCallId,
    title: presentation.title,
    kind: presentation.kind,
    status: "pending",
    rawInput: call.input,
    locations: presentation.locations,
    content: commandContent(capability, call.input),
    _meta: { tool_name: call.name },
  });

  const execution = await gateAndDispatch(session, call, capability, toolCallId, signal, deps)
    // Whatever fails here, the announced call still gets its final update and the model a result.
    .catch((error) => refused(`Internal error while running ${call.name}: ${errorMessage(error)}`));
  const result = fitToBudget(execution.modelText, deps.budget);
  session.send({
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: execution.status,
    content: execution.content,
    rawOutput: execution.rawOutput,
    ...(execution.locations ? { locations: execution.locations } : {}),
  });
  session.record({
    type: "tool_call",
    toolCallId,
    name: call.name,
    input: call.input,
    status: execution.status,
    result,
  });
  return { type: "tool_call", name: call.name, input: call.input, result };
}

async function gateAndDispatch(
  session: AgentSession,
  call: RequestedToolCall,
  capability: ToolCapability | undefined,
  toolCallId: string,
  signal: AbortSignal,
  deps: ToolCallDeps,
): Promise<ToolExecution> {
  if (capability === undefined) {
    return refused(`Unknown tool "${call.name}": the tools are shell, fs_read and fs_write`);
  }
  const allowed = await permitted(session, call, capability, toolCallId, signal, deps);
  if (signal.aborted) return refused("The tool call was cancelled before it ran", true);
  if (!allowed) return refused(`The user denied permission to run ${call.name}`);
  session.send({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
  return await executeTool({ name: call.name, capability, input: call.input }, {
    cwd: session.cwd,
    files: deps.files,
    shell: deps.shell,
    signal,
    onTerminal: (terminalId) =>
      // Embedded while it runs, so the editor shows the output live.
      session.send({
        sessionUpdate: "tool_call_update",
        toolCallId,
        content: [{ type: "terminal", terminalId }],
      }),
  });
}

/** The permission policy, asking the client when it says so; a cancel while asking is a refusal. */
async function permitted(
  session: AgentSession,
  call: RequestedToolCall,
  capability: ToolCapability,
  toolCallId: string,
  signal: AbortSignal,
  deps: ToolCallDeps,
): Promise<boolean> {
  const decision = decidePermission({
    mode: session.mode,
    toolName: call.name,
    capability,
    rules: deps.rules,
    alwaysAllowed: session.alwaysAllowed,
    alwaysRejected: session.alwaysRejected,
  });
  if (decision !== "ask") return decision === "allow";
  const presentation = toolCallPresentation({
    name: call.name,
    capability,
    input: call.input,
    cwd: session.cwd,
  });
  const content = await proposedChange(session, call, capability, signal, deps);
  // Cancelled while the diff was read: no dialog should flash up in the editor.
  if (signal.aborted) return false;
  const asking = session.client.request("session/request_permission", {
    sessionId: session.id,
    toolCall: {
      toolCallId,
      title: presentation.title,
      kind: presentation.kind,
      status: "pending",
      rawInput: call.input,
      locations: presentation.locations,
      content,
    },
    options: permissionOptions(call.name),
  }, { cancellationSignal: signal });
  const response = await untilAborted(asking.catch(() => undefined), signal);
  const answer = permissionAnswer(response);
  rememberAnswer(session, call.name, answer);
  return answer.decision === "allow";
}

/**
 * What the user is asked to allow: a write's diff, a command's full text, so the change is seen
 * before it is made.
 */
async function proposedChange(
  session: AgentSession,
  call: RequestedToolCall,
  capability: ToolCapability,
  signal: AbortSignal,
  deps: ToolCallDeps,
): Promise<ToolCallContent[]> {
  if (capability === "shell") return commandContent(capability, call.input);
  if (capability !== "fs_write") return [];
  const parsed = parseToolInput(capability, call.input, call.name);
  if (!parsed.ok || parsed.value.capability !== "fs_write") return [];
  const diff = await fileWriteDiff(parsed.value.input, {
    cwd: session.cwd,
    files: deps.files,
    signal,
  });
  return diff.ok ? [diff.content] : [];
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
