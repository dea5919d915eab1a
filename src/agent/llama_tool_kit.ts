/**
 * The `llama` profile's tools (the source document's contract): the model is offered `shell`,
 * `fs_read`, `fs_write`, ...; hooks see the input as the model sent it; bad input is found when
 * the call runs, after PreToolUse, and is a failed call like any other.
 */
import { compatProfile } from "../profile/compat_profile.ts";
import { executeOperation } from "./tool_executor.ts";
import { parseToolInput, toolDefinitions } from "./tool_input.ts";
import type { ToolKit } from "./tool_kit.ts";

export function llamaToolKit(): ToolKit {
  return {
    profile: compatProfile("llama"),
    definitions: toolDefinitions,
    parse(capability, raw, name) {
      const parsed = parseToolInput(capability, raw, name);
      return parsed.ok ? { ok: true, operation: parsed.operation, hookInput: raw } : parsed;
    },
    precheck: () => Promise.resolve(undefined),
    validationFailure: (message) => message,
    rewriteFailure: (name, message) =>
      `PreToolUse:${name} hook error: the hook's updatedInput is invalid: ${message}`,
    execute: executeOperation,
  };
}
