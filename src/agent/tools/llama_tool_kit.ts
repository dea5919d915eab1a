/**
 * The `llama` profile's tools (the source document's contract): the model is offered `shell`,
 * `fs_read`, `fs_write`, ...; hooks see the input as the model sent it; bad input is found when
 * the call runs, after PreToolUse, and is a failed call like any other. A `shell` command that
 * does not exit 0 is a failed call too, in Claude Code's words (llama_shell_result.ts).
 */
import { invalidUpdatedInputMessage } from "../../hooks/hook_messages.ts";
import { capabilityOf, compatProfile } from "../../profile/compat_profile.ts";
import { inputSchemaFailure } from "./llama_input_issues.ts";
import { shellOutputText } from "./llama_shell_result.ts";
import { llamaToolDefinitions } from "./llama_tool_definitions.ts";
import { executeOperation } from "./tool_executor.ts";
import { parseToolInput } from "./tool_input.ts";
import type { ToolKit } from "./tool_kit.ts";

export function llamaToolKit(): ToolKit {
  const profile = compatProfile("llama");
  return {
    profile,
    definitions: llamaToolDefinitions,
    parse(capability, raw, name) {
      const parsed = parseToolInput(capability, raw, name);
      return parsed.ok ? { ok: true, operation: parsed.operation, hookInput: raw } : parsed;
    },
    precheck: () => Promise.resolve(undefined),
    validationFailure: (message) => message,
    rewriteFailure(name, message, input) {
      // Claude Code's words for the issue need the rewritten input; without it, the llama
      // profile's own words for it stand in.
      const capability = capabilityOf(profile, name);
      const failure = capability === undefined ? null : inputSchemaFailure(capability, input, name);
      return invalidUpdatedInputMessage(
        name,
        failure ?? `${name} failed due to the following issue:\n${message}`,
      );
    },
    execute: executeOperation,
    // PostToolBatch, the only reader, does not fire in this profile.
    echoedInput: (_capability, input) => input,
    rewrittenOutput: (capability, value) => capability === "shell" ? shellOutputText(value) : null,
  };
}
