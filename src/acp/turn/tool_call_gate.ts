/**
 * What may stop a tool call before it runs, in order: the profile's own check of the input (the
 * `claude` profile refuses bad input before any hook, claude-compat.md §0.2), PreToolUse hooks
 * (deny, stop, rewrite), and the permission policy. The call either is refused, with what the
 * model reads, or is cleared to run with the input hooks saw.
 */
import type { CallFileReads } from "../../agent/files/call_file_reads.ts";
import type { McpServers } from "../../agent/mcp/mcp_servers.ts";
import type { McpTool } from "../../agent/mcp/mcp_connection.ts";
import type { PermissionRule } from "../../agent/permissions/permission_rules.ts";
import {
  failedExecution,
  type ParsedCall,
  type ToolExecution,
  type ToolExecutorDeps,
} from "../../agent/tools/tool_kit.ts";
import type { ToolOperation } from "../../agent/tools/tool_operation.ts";
import { toolCallPresentation } from "../../agent/tools/tool_presentation.ts";
import { capabilityOf } from "../../profile/compat_profile.ts";
import type { ToolCapability } from "../../profile/tool_identity.ts";
import type { AgentSession } from "../session/agent_session.ts";
import { permissionRewriteFailure, permitted } from "./permission_step.ts";
import { commandContent } from "./tool_call_content.ts";
import { type HookedCall, runPreToolUseHooks } from "./tool_hooks.ts";
import type { ToolPlaces } from "./tool_set.ts";
import type { ToolTurn } from "./turn_types.ts";

export interface ToolCallDeps extends ToolPlaces {
  readonly rules: readonly PermissionRule[];
  /** The session's MCP servers: `mcp__<server>__<tool>` calls go to them. */
  readonly mcp: Pick<McpServers, "lookup" | "call" | "toolNames">;
}

/** One call's deps: its files read once for the call (call_file_reads.ts). */
export interface CallDeps extends ToolCallDeps {
  readonly files: CallFileReads;
}

/** What an emitted tool name runs: a built-in capability, an MCP server's tool, or nothing. */
export type ToolTarget =
  | { readonly kind: "builtin"; readonly capability: ToolCapability }
  | { readonly kind: "mcp"; readonly tool: McpTool }
  | { readonly kind: "none"; readonly message: string };

/** What happened before dispatch: refused (with why), or cleared to run with this input. */
export type Gate =
  | {
    readonly kind: "refused";
    readonly execution: ToolExecution;
    readonly meta?: Record<string, unknown>;
    readonly halt?: { readonly stopReason: string | null };
    /** A PreToolUse `defer`: the turn ends at once after this call (hooks.md §12.4). */
    readonly deferred?: boolean;
    /** For the model, after the result (a deny's context). */
    readonly forModel?: readonly string[];
    /** Refused before any hook ran (the claude profile's input check): no Post hook either. */
    readonly beforeHooks?: boolean;
    /** The input the record keeps. */
    readonly input?: unknown;
    /** Answered by the turn's loop guard (loop_guard.ts): nothing was asked and no hook fired. */
    readonly guarded?: true;
  }
  | {
    readonly kind: "dispatch";
    /** What hooks saw as `tool_input`, and the record keeps. */
    readonly input: unknown;
    /** A built-in call's input, parsed (a failure runs as a failed call in the llama profile). */
    readonly parsed: ParsedCall | undefined;
    readonly forModel: readonly string[];
  };

export function toolTarget(session: AgentSession, name: string, deps: ToolCallDeps): ToolTarget {
  const { profile } = session.toolKit;
  const capability = capabilityOf(profile, name);
  if (capability !== undefined) return { kind: "builtin", capability };
  const found = deps.mcp.lookup(name);
  if (found.kind === "tool") return { kind: "mcp", tool: found.tool };
  if (found.kind === "unavailable") return { kind: "none", message: found.message };
  // Either way the model learns which tools there are, so that it can call one of them.
  const names = [...profile.tools.map((tool) => tool.name), ...deps.mcp.toolNames()].join(", ");
  if (profile.validatesBeforeHooks) {
    // Claude Code's words, then the list it does not give.
    return {
      kind: "none",
      message: `Error: No such tool available: ${name}. The tools are ${names}`,
    };
  }
  return { kind: "none", message: `Unknown tool "${name}": the tools are ${names}` };
}

function capabilityOfTarget(target: ToolTarget): ToolCapability | undefined {
  return target.kind === "builtin" ? target.capability : undefined;
}

function operationOf(parsed: ParsedCall | undefined): ToolOperation | undefined {
  return parsed?.ok ? parsed.operation : undefined;
}

/** `echo (MCP: fixture)`: the server's own title for the tool when it gives one. */
function mcpTitle(tool: McpTool): string {
  return `${tool.title ?? tool.toolName} (MCP: ${tool.server})`;
}

/** How the client is shown a call: its title, kind, the files it touches, its full command. */
export function shownCall(
  session: AgentSession,
  name: string,
  target: ToolTarget,
  parsed: ParsedCall | undefined,
) {
  const operation = operationOf(parsed);
  const presentation = toolCallPresentation({
    name,
    capability: capabilityOfTarget(target),
    operation,
    cwd: session.workingDirectory.current,
  });
  return {
    title: target.kind === "mcp" ? mcpTitle(target.tool) : presentation.title,
    kind: presentation.kind,
    locations: presentation.locations,
    content: commandContent(operation),
  };
}

export function executorDeps(
  session: AgentSession,
  signal: AbortSignal,
  deps: ToolCallDeps,
  onTerminal?: (terminalId: string) => void,
): ToolExecutorDeps {
  return {
    cwd: session.workingDirectory.current,
    roots: deps.roots,
    files: deps.files,
    shell: deps.shell,
    signal,
    ...(onTerminal === undefined ? {} : { onTerminal }),
  };
}

/**
 * What Claude Code checks before any hook (claude-compat.md §0.2): the tool exists, its input
 * fits the schema, and (for an edit) the file allows it. The problem, or undefined.
 */
async function checkBeforeHooks(
  session: AgentSession,
  target: ToolTarget,
  parsed: ParsedCall | undefined,
  signal: AbortSignal,
  deps: ToolCallDeps,
): Promise<string | undefined> {
  if (target.kind === "none") return target.message;
  if (parsed === undefined) return undefined;
  if (!parsed.ok) return parsed.message;
  return await session.toolKit.precheck(parsed.operation, executorDeps(session, signal, deps));
}

/**
 * What may stop a call before it runs: the turn's loop guard (a repeat of a refused call), the
 * profile's input check, PreToolUse, the permission policy. A hook's deny and a refused
 * permission are told to the loop guard.
 */
export async function gateCall(
  session: AgentSession,
  call: HookedCall,
  target: ToolTarget,
  parsed: ParsedCall | undefined,
  turn: ToolTurn,
  deps: CallDeps,
): Promise<Gate> {
  const kit = session.toolKit;
  // A repeat of a call refused earlier in the turn is refused again at once, as it was.
  const already = turn.loopGuard?.refused(call);
  if (already !== undefined) {
    return {
      kind: "refused",
      execution: failedExecution(already),
      meta: { "llama-agent/loop_guard": "already_refused" },
      input: call.input,
      guarded: true,
    };
  }
  let hooked = call;
  if (kit.profile.validatesBeforeHooks) {
    const problem = await checkBeforeHooks(session, target, parsed, turn.signal, deps);
    if (problem !== undefined) {
      return {
        kind: "refused",
        execution: failedExecution(kit.validationFailure(problem)),
        beforeHooks: true,
      };
    }
    // Hooks see Claude Code's parsed input: defaults added, schema order, absolute paths.
    if (parsed?.ok) hooked = { ...call, input: parsed.hookInput };
  }
  const pre = await runPreToolUseHooks(session, turn, hooked);
  if (pre.kind === "go" && pre.hooksRan) await deps.files.othersMayHaveWritten();
  if (pre.kind === "deny") {
    turn.loopGuard?.denied(call, pre.modelText);
    return {
      kind: "refused",
      execution: failedExecution(pre.modelText),
      meta: { "llama-agent/hook": { event: "PreToolUse", decision: "deny", reason: pre.reason } },
      forModel: pre.forModel,
      input: hooked.input,
    };
  }
  if (pre.kind === "defer") {
    return {
      kind: "refused",
      execution: failedExecution(pre.modelText),
      meta: { "llama-agent/hook": { event: "PreToolUse", decision: "defer" } },
      deferred: true,
      input: hooked.input,
    };
  }
  if (pre.kind === "halt") {
    return {
      kind: "refused",
      execution: failedExecution(pre.modelText),
      halt: { stopReason: pre.stopReason },
      input: hooked.input,
    };
  }
  if (target.kind === "none") {
    return { kind: "refused", execution: failedExecution(target.message), input: hooked.input };
  }
  const capability = capabilityOfTarget(target);
  let input = hooked.input;
  let final = parsed;
  let mcpInput = pre.input;
  if (pre.rewritten) {
    const rewrite = rewriteCall(session, call, target, pre.input);
    if (!rewrite.ok) {
      return {
        kind: "refused",
        execution: failedExecution(kit.rewriteFailure(call.name, rewrite.message, pre.input)),
        input: pre.input,
      };
    }
    ({ parsed: final, input } = rewrite);
  }
  const permission = await permitted(
    session,
    {
      toolCallId: call.toolCallId,
      name: call.name,
      input,
      capability,
      operation: operationOf(final),
      ...(target.kind === "mcp" ? { title: mcpTitle(target.tool) } : {}),
      hookPermission: pre.permission,
    },
    turn,
    deps,
  );
  if (turn.signal.aborted) {
    return {
      kind: "refused",
      execution: failedExecution("The tool call was cancelled before it ran", true),
      input,
    };
  }
  if (permission.kind === "refused") {
    turn.loopGuard?.denied(call, permission.modelText);
    return {
      kind: "refused",
      execution: failedExecution(permission.modelText),
      input,
      ...(permission.halt ? { halt: permission.halt } : {}),
      ...(permission.meta ? { meta: permission.meta } : {}),
    };
  }
  if (permission.updatedInput !== undefined) {
    // A PermissionRequest hook's allow with a rewrite: checked as a PreToolUse rewrite is.
    const rewrite = rewriteCall(session, call, target, permission.updatedInput);
    if (!rewrite.ok) {
      return {
        kind: "refused",
        execution: failedExecution(permissionRewriteFailure(call.name, rewrite.message)),
        input: permission.updatedInput,
      };
    }
    ({ parsed: final, input } = rewrite);
    mcpInput = permission.updatedInput;
  }
  const dispatchInput = target.kind === "mcp" ? mcpInput : input;
  return { kind: "dispatch", input: dispatchInput, parsed: final, forModel: pre.forModel };
}

/**
 * A hook's rewritten input, checked, and shown to the client as the call will now run; `input` is
 * what hooks see as `tool_input` from here on.
 */
function rewriteCall(
  session: AgentSession,
  call: HookedCall,
  target: Exclude<ToolTarget, { kind: "none" }>,
  rewritten: unknown,
):
  | { readonly ok: true; readonly parsed: ParsedCall | undefined; readonly input: unknown }
  | { readonly ok: false; readonly message: string } {
  const rewrite = checkRewrite(session, target, rewritten, call.name);
  if (!rewrite.ok) return rewrite;
  const { parsed } = rewrite;
  const input = parsed?.ok && session.toolKit.profile.validatesBeforeHooks
    ? parsed.hookInput
    : rewritten;
  const { title, locations, content } = shownCall(session, call.name, target, parsed);
  session.send({
    sessionUpdate: "tool_call_update",
    toolCallId: call.toolCallId,
    title,
    rawInput: rewritten,
    locations,
    content,
  });
  return { ok: true, parsed, input };
}

/** A hook's rewritten input, checked: parsed for a built-in tool, an object for an MCP tool. */
function checkRewrite(
  session: AgentSession,
  target: Exclude<ToolTarget, { kind: "none" }>,
  input: unknown,
  name: string,
):
  | { readonly ok: true; readonly parsed: ParsedCall | undefined }
  | { readonly ok: false; readonly message: string } {
  if (target.kind === "builtin") {
    const parsed = session.toolKit.parse(
      target.capability,
      input,
      name,
      session.workingDirectory.current,
    );
    return parsed.ok ? { ok: true, parsed } : { ok: false, message: parsed.message };
  }
  // The server validates against its own schema; an MCP call's arguments are an object.
  const isObject = typeof input === "object" && input !== null && !Array.isArray(input);
  return isObject ? { ok: true, parsed: undefined } : {
    ok: false,
    message: `${name} takes a JSON object`,
  };
}
