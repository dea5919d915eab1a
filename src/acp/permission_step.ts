/**
 * Whether a tool call may run: the session's permission policy, a PreToolUse hook's `allow` or
 * `ask`, and the client's answer when someone must be asked. A cancel while asking is a refusal.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { decidePermission } from "../agent/permission_policy.ts";
import {
  permissionAnswer,
  permissionOptions,
  rememberAnswer,
} from "../agent/permission_request.ts";
import type { PermissionRule } from "../agent/permission_rules.ts";
import { proposedFileChange } from "../agent/proposed_change.ts";
import type { ToolOperation } from "../agent/tool_operation.ts";
import type { ToolCapability } from "../profile/tool_identity.ts";
import { toolCallPresentation } from "../agent/tool_presentation.ts";
import type { AgentSession } from "./agent_session.ts";
import { commandContent } from "./tool_call_content.ts";
import type { ToolPlaces } from "./tool_set.ts";
import { untilAborted } from "./until_aborted.ts";

export interface PermissionQuestion {
  readonly toolCallId: string;
  readonly name: string;
  readonly input: unknown;
  /** Undefined for MCP tools. */
  readonly capability: ToolCapability | undefined;
  /** The built-in call's operation, when its input parsed. */
  readonly operation: ToolOperation | undefined;
  /** The call's title when it is not the built-in tool's (an MCP tool's). */
  readonly title?: string;
  /** What PreToolUse hooks said: `allow` skips the prompt, `ask` forces it. */
  readonly hookPermission: "allow" | "ask" | null;
}

export async function permitted(
  session: AgentSession,
  question: PermissionQuestion,
  signal: AbortSignal,
  deps: ToolPlaces & { readonly rules: readonly PermissionRule[] },
): Promise<boolean> {
  const policy = decidePermission({
    mode: session.mode,
    toolName: question.name,
    capability: question.capability,
    rules: deps.rules,
    alwaysAllowed: session.alwaysAllowed,
    alwaysRejected: session.alwaysRejected,
  });
  // A hook never overrides a deny (a rule, or the user's "always reject").
  if (policy === "deny") return false;
  if (question.hookPermission === "allow") return true;
  if (policy === "allow" && question.hookPermission !== "ask") return true;

  const { name, input, capability, operation, toolCallId } = question;
  const presentation = toolCallPresentation({ name, capability, operation, cwd: session.cwd });
  const content = await proposedChange(session, question, signal, deps);
  // Cancelled while the diff was read: no dialog should flash up in the editor.
  if (signal.aborted) return false;
  const asking = session.client.request("session/request_permission", {
    sessionId: session.id,
    toolCall: {
      toolCallId,
      title: question.title ?? presentation.title,
      kind: presentation.kind,
      status: "pending",
      rawInput: input,
      locations: presentation.locations,
      content,
    },
    options: permissionOptions(name),
  }, { cancellationSignal: signal });
  const response = await untilAborted(asking.catch(() => undefined), signal);
  const answer = permissionAnswer(response);
  rememberAnswer(session, name, answer);
  return answer.decision === "allow";
}

/**
 * What the user is asked to allow: a write's diff, a command's full text, so the change is seen
 * before it is made.
 */
async function proposedChange(
  session: AgentSession,
  question: PermissionQuestion,
  signal: AbortSignal,
  deps: ToolPlaces,
): Promise<ToolCallContent[]> {
  const { capability, input, operation } = question;
  if (capability === undefined) {
    // An MCP tool: the arguments that would be sent to its server.
    const json = JSON.stringify(input, null, 2) ?? String(input);
    return [{ type: "content", content: { type: "text", text: "```json\n" + json + "\n```" } }];
  }
  if (operation === undefined) return [];
  if (operation.capability === "shell") return commandContent(operation);
  return await proposedFileChange(operation, { cwd: session.cwd, files: deps.files, signal });
}
