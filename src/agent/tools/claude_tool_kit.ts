/**
 * The `claude` profile's tools (claude-compat.md): Claude Code's Bash, Read, Write, Edit, Glob
 * and Grep, their parsed input as hooks' `tool_input`, their `tool_response`s and result texts,
 * and the checks Claude Code makes before any hook (a call refused there fires no tool hook and
 * the model reads `<tool_use_error>…</tool_use_error>`).
 *
 * One kit per session: it remembers what the model has read, to refuse a write over a file
 * changed since (file_read_state.ts).
 */
import { invalidUpdatedInputMessage } from "../../hooks/hook_messages.ts";
import { compatProfile } from "../../profile/compat_profile.ts";
import { editProblem, writeProblem } from "./claude_file_checks.ts";
import { editFileText, readFileLines, writeWholeFile } from "./claude_file_results.ts";
import { globForModel, grepForModel } from "./claude_search_results.ts";
import { claudeEchoedInput } from "./claude_echoed_input.ts";
import { bashOutputText, runBash } from "./claude_shell_result.ts";
import { claudeToolDefinitions } from "./claude_tool_definitions.ts";
import { INPUT_VALIDATION_PREFIX, parseClaudeToolInput } from "./claude_tool_input.ts";
import { FileReadState } from "../files/file_read_state.ts";
import {
  guardedExecute,
  type ToolExecution,
  type ToolExecutorDeps,
  type ToolKit,
} from "./tool_kit.ts";
import type { ToolOperation } from "./tool_operation.ts";

export function claudeToolKit(): ToolKit {
  const state = new FileReadState();
  return {
    profile: compatProfile("claude"),
    definitions: claudeToolDefinitions,
    parse: parseClaudeToolInput,
    async precheck(operation, deps) {
      switch (operation.capability) {
        case "fs_write":
          return await writeProblem(operation, deps, state);
        case "fs_edit":
          return await editProblem(operation, deps, state);
        case "shell":
        case "fs_read":
        case "fs_glob":
        case "fs_grep":
          return undefined;
        default:
          return operation satisfies never;
      }
    },
    validationFailure: (message) => `<tool_use_error>${message}</tool_use_error>`,
    rewriteFailure,
    execute: guardedExecute((operation, deps) => execute(operation, deps, state)),
    echoedInput(capability, input, name, cwd) {
      const checked = parseClaudeToolInput(capability, input, name, cwd).ok;
      return checked ? claudeEchoedInput(capability, input, cwd) : input;
    },
    // Observed for Bash only; the other tools' own texts for a rewritten response are not.
    rewrittenOutput: (capability, value) => capability === "shell" ? bashOutputText(value) : null,
  };
}

/** Claude Code's words for a hook's `updatedInput` that fails the tool's schema. */
function rewriteFailure(name: string, message: string): string {
  const issue = message.startsWith(INPUT_VALIDATION_PREFIX)
    ? message.slice(INPUT_VALIDATION_PREFIX.length)
    : message;
  return invalidUpdatedInputMessage(name, issue);
}

function execute(
  operation: ToolOperation,
  deps: ToolExecutorDeps,
  state: FileReadState,
): Promise<ToolExecution> {
  switch (operation.capability) {
    case "shell":
      // `run_in_background` runs in the foreground: background tasks are not offered here.
      return runBash(operation, deps);
    case "fs_read":
      return readFileLines(operation, deps, state);
    case "fs_write":
      return writeWholeFile(operation, deps, state);
    case "fs_edit":
      return editFileText(operation, deps, state);
    case "fs_glob":
      return globForModel(operation, deps);
    case "fs_grep":
      return grepForModel(operation, deps);
    default:
      return operation satisfies never;
  }
}
