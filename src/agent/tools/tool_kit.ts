/**
 * A profile's built-in tools as the turn uses them: the definitions offered to the model, how an
 * emitted call's input becomes an operation (and the `tool_input` hooks see), what is checked
 * before any hook, and how an operation's outcome is told to the model, the client and the hooks.
 * The turn (src/acp/turn/tool_call_step.ts) is the same for every profile; a kit is what differs.
 *
 * A kit is made per session: the `claude` kit remembers which files the model has read, as
 * Claude Code does, to refuse an edit of a file changed since.
 */
import { errorMessage } from "../../error.ts";
import type { ToolCallContent, ToolCallLocation } from "@agentclientprotocol/sdk";
import type { ToolDefinition } from "../../model/model.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";
import type { ToolCapability } from "../../profile/tool_identity.ts";
import type { FileAccess } from "../files/file_access.ts";
import type { ShellRunner } from "../shell/shell_runner.ts";
import type { ToolOperation } from "./tool_operation.ts";

export interface ToolExecutorDeps {
  /** The session cwd, absolute. */
  readonly cwd: string;
  /** The allowed roots, resolved: where glob and grep may walk. */
  readonly roots: readonly string[];
  readonly files: FileAccess;
  readonly shell: ShellRunner;
  readonly signal?: AbortSignal;
  /** Passed to the shell runner: a client terminal exists and can be embedded now. */
  readonly onTerminal?: (terminalId: string) => void | Promise<void>;
}

export interface ToolExecution {
  readonly status: "completed" | "failed";
  /** What the model is shown as the call's result. */
  readonly modelText: string;
  readonly content: ToolCallContent[];
  /** The profile's `tool_response` (PostToolUse), also the client's `rawOutput`. */
  readonly rawOutput: Record<string, unknown>;
  readonly locations?: ToolCallLocation[];
  /** The call was stopped by a cancel (PostToolUseFailure's `is_interrupt`). */
  readonly interrupted: boolean;
}

export type ParsedCall =
  | {
    readonly ok: true;
    readonly operation: ToolOperation;
    /** The `tool_input` hooks see: the model's input (llama) or Claude Code's parsed form. */
    readonly hookInput: unknown;
  }
  /** For the model: what is wrong with the input. */
  | { readonly ok: false; readonly message: string };

/**
 * How the built-in tools are offered: in `full`, or `lean` where the context is small (at most
 * `LEAN_TOOLS_MAX_CONTEXT` tokens): terser descriptions, and in the llama profile fewer optional
 * parameters (still accepted when a model passes them). The claude profile's lean tools keep
 * Claude Code's names and parameters: only their descriptions are shorter.
 */
export type ToolForm = "full" | "lean";

/** The largest context whose sessions get the lean tools. */
export const LEAN_TOOLS_MAX_CONTEXT = 4096;

/** The form of the tools for a model whose context holds `contextSize` tokens (if known). */
export function toolFormFor(contextSize: number | undefined): ToolForm {
  return contextSize !== undefined && contextSize <= LEAN_TOOLS_MAX_CONTEXT ? "lean" : "full";
}

export interface ToolKit {
  readonly profile: CompatProfile;
  /** The built-in tools as offered to the model, `full` when no form is given. */
  definitions(form?: ToolForm): ToolDefinition[];
  /** Validates an emitted call's input; `name` is the name the model emitted (for messages). */
  parse(capability: ToolCapability, raw: unknown, name: string, cwd: string): ParsedCall;
  /**
   * What is checked before any hook when the profile validates first (an edit whose string is
   * not in the file, a file changed since it was read): the problem for the model, or undefined.
   */
  precheck(operation: ToolOperation, deps: ToolExecutorDeps): Promise<string | undefined>;
  /** The text the model reads for a call refused before any hook ran. */
  validationFailure(message: string): string;
  /**
   * The text the model reads when a PreToolUse hook's `updatedInput` does not fit tool `name`
   * (`message`: what is wrong with it), hooks.md §12.9.
   */
  rewriteFailure(name: string, message: string, input: unknown): string;
  /** Runs the operation; never throws: every problem is a `failed` execution. */
  execute(operation: ToolOperation, deps: ToolExecutorDeps): Promise<ToolExecution>;
  /**
   * The call's input as the next request to the model echoes it back, PostToolBatch's
   * `tool_input` (`name`: the name the model emitted): Claude Code rebuilds Bash's and Edit's
   * (claude_echoed_input.ts); the input as sent otherwise, and always for input that fails the
   * tool's check.
   */
  echoedInput(capability: ToolCapability, input: unknown, name: string, cwd: string): unknown;
  /**
   * What the model reads when a PostToolUse hook's `updatedToolOutput` is not a string: a value
   * of the tool's own `tool_response` shape is told as the tool tells its own output; null for
   * any other value (its JSON text is read then).
   */
  rewrittenOutput(capability: ToolCapability, value: unknown): string | null;
}

/**
 * A kit's `execute` from its dispatch over operations: a call cancelled before it ran is not
 * started, and a throw (a bug: the doors answer with values) still gives the model a result.
 */
export function guardedExecute(
  run: (operation: ToolOperation, deps: ToolExecutorDeps) => Promise<ToolExecution>,
): ToolKit["execute"] {
  return async (operation, deps) => {
    if (deps.signal?.aborted) {
      return failedExecution("The tool call was cancelled before it ran", true);
    }
    try {
      return await run(operation, deps);
    } catch (error) {
      return failedExecution(
        `Internal error while running ${operation.capability}: ${errorMessage(error)}`,
      );
    }
  };
}

export function failedExecution(message: string, interrupted = false): ToolExecution {
  return {
    status: "failed",
    modelText: message,
    content: [textContent(message)],
    rawOutput: { error: message },
    interrupted,
  };
}

export function textContent(value: string): ToolCallContent {
  return { type: "content", content: { type: "text", text: value } };
}
