/**
 * Whether a tool call may run: the session's permission policy, a PreToolUse hook's `allow` or
 * `ask`, and, when someone must be asked, PermissionRequest hooks (the `claude` profile: an allow
 * or deny answers without asking the client, as in Claude Code) and then the client's answer. A
 * cancel while asking is a refusal.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { decidePermission } from "../../agent/permissions/permission_policy.ts";
import {
  permissionAnswer,
  permissionOptions,
  rememberAnswer,
} from "../../agent/permissions/permission_request.ts";
import type { CallFileReads } from "../../agent/files/call_file_reads.ts";
import type { PermissionRule } from "../../agent/permissions/permission_rules.ts";
import { proposedFileChange } from "../../agent/permissions/proposed_change.ts";
import type { ToolOperation } from "../../agent/tools/tool_operation.ts";
import { claudePermissionSuggestions } from "../../agent/permissions/claude_permission_suggestions.ts";
import {
  answerPermissionRequest,
  type SessionPermissionUpdates,
} from "../../hooks/permission_request_decision.ts";
import type { ToolCapability } from "../../profile/tool_identity.ts";
import { toolCallPresentation } from "../../agent/tools/tool_presentation.ts";
import type { AgentSession } from "../session/agent_session.ts";
import { hookNotices } from "../session/hook_notices.ts";
import { notifyPermissionAsked } from "../session/notification_hooks.ts";
import { commandContent } from "./tool_call_content.ts";
import type { ToolPlaces } from "./tool_set.ts";
import type { TurnHookContext } from "./turn_types.ts";
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

export type Permission =
  | {
    readonly kind: "allowed";
    /** A PermissionRequest hook's rewrite: the call runs with this input once it is checked. */
    readonly updatedInput?: Readonly<Record<string, unknown>>;
  }
  | {
    readonly kind: "refused";
    /** What the model reads as the call's result. */
    readonly modelText: string;
    /** The turn ends after this call (a hook's `continue:false` or `interrupt`). */
    readonly halt?: { readonly stopReason: string | null };
    /** The final `tool_call_update`'s `_meta`. */
    readonly meta?: Record<string, unknown>;
  };

const ALLOWED: Permission = { kind: "allowed" };

function deniedByUser(name: string): Permission {
  return { kind: "refused", modelText: `The user denied permission to run ${name}` };
}

export async function permitted(
  session: AgentSession,
  question: PermissionQuestion,
  turn: TurnHookContext,
  deps: ToolPlaces & {
    readonly rules: readonly PermissionRule[];
    readonly files: CallFileReads;
  },
): Promise<Permission> {
  const { signal } = turn;
  const policy = decidePermission({
    mode: session.mode,
    toolName: question.name,
    capability: question.capability,
    rules: deps.rules,
    alwaysAllowed: session.alwaysAllowed,
    alwaysRejected: session.alwaysRejected,
  });
  // A hook never overrides a deny (a rule, or the user's "always reject").
  if (policy === "deny") return deniedByUser(question.name);
  if (question.hookPermission === "allow") return ALLOWED;
  if (policy === "allow" && question.hookPermission !== "ask") return ALLOWED;

  // Right before the client would be asked, and only then.
  const hooked = await runPermissionRequestHooks(session, question, turn, deps.files);
  if (hooked !== null) return hooked;
  if (signal.aborted) return deniedByUser(question.name);

  const { name, input, capability, operation, toolCallId } = question;
  const presentation = toolCallPresentation({
    name,
    capability,
    operation,
    cwd: session.workingDirectory.current,
  });
  const content = await proposedChange(session, question, signal, deps);
  // Cancelled while the diff was read: no dialog should flash up in the editor.
  if (signal.aborted) return deniedByUser(name);
  // The user is asked: a notifier alerts them (Claude Code's `permission_prompt`).
  const answered = notifyPermissionAsked(session, turn, name);
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
  answered();
  session.lastInteractionAt = performance.now();
  // The user may have changed the file while the prompt was open.
  await deps.files.othersMayHaveWritten();
  const answer = permissionAnswer(response);
  rememberAnswer(session, name, answer);
  return answer.decision === "allow" ? ALLOWED : deniedByUser(name);
}

/**
 * What the model reads when a PermissionRequest hook's `updatedInput` does not fit the tool
 * (`message`: what is wrong). Modelled on Claude Code's PreToolUse wording (inferred: not observed
 * for this event).
 */
export function permissionRewriteFailure(name: string, message: string): string {
  return `PermissionRequest hook for ${name} returned updatedInput that failed validation: ` +
    `${message}\nThe tool input from the model was valid; the hook's rewrite of it was not.`;
}

/** PermissionRequest hooks' answer; null when none decided and the client is to be asked. */
async function runPermissionRequestHooks(
  session: AgentSession,
  question: PermissionQuestion,
  turn: TurnHookContext,
  files: CallFileReads,
): Promise<Permission | null> {
  if (!session.hooks.has("PermissionRequest")) return null;
  const { name } = question;
  // Hooks that match nothing cost the call no payload and no wait.
  const selected = session.hooks.select("PermissionRequest", name, question.input);
  if (selected.done) return null;
  const firing = await selected.run({
    tool_name: name,
    tool_input: question.input,
    permission_suggestions: claudePermissionSuggestions(
      name,
      question.operation?.capability === "shell" ? question.operation.command : undefined,
      // Where the command runs, and its relative paths resolve: the shell's directory.
      session.workingDirectory.current,
    ),
  }, turn);
  // A hook may have changed the file the call works on.
  await files.othersMayHaveWritten();
  for (const notice of hookNotices(firing.decision, name)) session.notice(notice);
  const answer = answerPermissionRequest(firing.runs.map((run) => run.outcome));
  switch (answer.kind) {
    case "ask":
      return null;
    case "allow":
      if (answer.permissionUpdates) applyPermissionUpdates(session, answer.permissionUpdates);
      return answer.updatedInput === null
        ? ALLOWED
        : { kind: "allowed", updatedInput: answer.updatedInput.input };
    case "deny":
      return {
        kind: "refused",
        modelText: answer.message,
        meta: {
          "llama-agent/hook": {
            event: "PermissionRequest",
            decision: "deny",
            reason: answer.message,
          },
        },
        ...(answer.interrupt ? { halt: { stopReason: answer.message } } : {}),
      };
    case "stop":
      return {
        kind: "refused",
        // The stop reason is for the user (a notice); the model only learns the call did not run.
        modelText: `The ${name} call was not run: a hook ended the turn`,
        halt: { stopReason: answer.stopReason },
      };
    default:
      return answer satisfies never;
  }
}

/**
 * A PermissionRequest allow's `updatedPermissions`, kept as the user's "always allow" / "always
 * reject" answers are: for this session only, whatever `destination` the hook named, since
 * llama-agent writes no settings file. What cannot be kept is said in the log.
 */
function applyPermissionUpdates(session: AgentSession, updates: SessionPermissionUpdates): void {
  for (const rule of updates.rules) {
    rememberAnswer(session, rule.toolName, {
      decision: rule.behavior,
      always: true,
      cancelled: false,
    });
  }
  for (const line of updates.ignored) session.log(line);
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
  return await proposedFileChange(operation, {
    cwd: session.workingDirectory.current,
    files: deps.files,
    signal,
  });
}
