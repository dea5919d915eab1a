/**
 * The JSON a hook may answer with (command stdout on exit 0, an http 2xx body), as Claude Code
 * reads it: camelCase, unknown keys ignored, wrong types rejected. A `hookSpecificOutput` is
 * tagged by `hookEventName`, which must name the event that ran the hook.
 */
import { z } from "zod";
import type { FiredEventName } from "./event_table.ts";
import { isRecord } from "./json_value_at.ts";

// Messages name no field: `parseHookOutput` prefixes the quoted path of the offending field.
const text = z.string({ error: "must be a string" });
const flag = z.boolean({ error: "must be a boolean" });

/**
 * `defer` (Claude Code >= 2.1.89) holds the call: it is not run and the turn ends at once
 * (hooks.md §12.4).
 */
export const PermissionDecision = z.enum(["allow", "deny", "ask", "defer"], {
  error: 'must be "allow", "deny", "ask" or "defer"',
});
export type PermissionDecision = z.infer<typeof PermissionDecision>;

export const PreToolUseOutput = z.looseObject({
  hookEventName: z.literal("PreToolUse"),
  permissionDecision: PermissionDecision.optional(),
  permissionDecisionReason: text.optional(),
  updatedInput: z.record(z.string(), z.unknown(), { error: "must be an object" }).optional(),
  additionalContext: text.optional(),
});
export type PreToolUseOutput = z.infer<typeof PreToolUseOutput>;

function contextOutput<E extends FiredEventName>(hookEventName: E) {
  return z.looseObject({
    hookEventName: z.literal(hookEventName),
    additionalContext: text.optional(),
  });
}

export const PostToolUseOutput = z.looseObject({
  hookEventName: z.literal("PostToolUse"),
  additionalContext: text.optional(),
  /**
   * What the model reads as the result instead of the tool's own (hooks.md §12.5): any JSON
   * value, a string as it is, anything else as its JSON text (decision.ts). `null` is none.
   */
  updatedToolOutput: z.unknown().optional(),
});
export type PostToolUseOutput = z.infer<typeof PostToolUseOutput>;

export const SessionStartOutput = z.looseObject({
  hookEventName: z.literal("SessionStart"),
  additionalContext: text.optional(),
  /** The first user message of the next turn, before the client's prompt (hooks.md §12.6). */
  initialUserMessage: text.optional(),
});
export type SessionStartOutput = z.infer<typeof SessionStartOutput>;

const StopOutput = z.looseObject({
  hookEventName: z.literal("Stop"),
  reason: text.optional(),
  additionalContext: text.optional(),
});

/** A PermissionRequest hook's answer to the permission prompt (permission_request_decision.ts). */
export const PermissionRequestDecision = z.looseObject({
  behavior: z.enum(["allow", "deny"], { error: 'must be "allow" or "deny"' }),
  /** On allow: the input the tool runs with. */
  updatedInput: z.record(z.string(), z.unknown(), { error: "must be an object" }).optional(),
  /** On deny: what the model is told. */
  message: text.optional(),
  /** On deny: stop the turn too. */
  interrupt: flag.optional(),
}, { error: "must be an object" });
export type PermissionRequestDecision = z.infer<typeof PermissionRequestDecision>;

const PermissionRequestOutput = z.looseObject({
  hookEventName: z.literal("PermissionRequest"),
  decision: PermissionRequestDecision.optional(),
});

// The session is over: nothing is read, but naming the event is no error.
const SessionEndOutput = z.looseObject({ hookEventName: z.literal("SessionEnd") });

export const HookSpecificOutput = z.discriminatedUnion("hookEventName", [
  PreToolUseOutput,
  PostToolUseOutput,
  contextOutput("PostToolUseFailure"),
  contextOutput("UserPromptSubmit"),
  SessionStartOutput,
  contextOutput("Notification"),
  StopOutput,
  PermissionRequestOutput,
  SessionEndOutput,
  contextOutput("PostToolBatch"),
], { error: 'must be an object with a "hookEventName"' });
export type HookSpecificOutput = z.infer<typeof HookSpecificOutput>;

export const HookOutput = z.looseObject({
  continue: flag.optional(),
  stopReason: text.optional(),
  suppressOutput: flag.optional(),
  systemMessage: text.optional(),
  // "approve" is deprecated in Claude Code (it meant PreToolUse allow) but old scripts send it.
  decision: z.enum(["block", "approve"], { error: 'must be "block" or "approve"' }).optional(),
  reason: text.optional(),
  additionalContext: text.optional(),
  hookSpecificOutput: HookSpecificOutput.optional(),
}, { error: "must be an object" });

/**
 * The source document answers a PermissionRequest with a top-level `{"decision": "approve" |
 * "deny", "reason": …}`: "deny" is read on that event only.
 */
const PermissionRequestHookOutput = HookOutput.extend({
  decision: z.enum(["block", "approve", "deny"], {
    error: 'must be "block", "approve" or "deny"',
  }).optional(),
});
export type HookOutput = z.infer<typeof PermissionRequestHookOutput>;

export type ParsedHookOutput =
  | { readonly ok: true; readonly output: HookOutput }
  | { readonly ok: false; readonly message: string };

/**
 * Validates a JSON value as the output of a hook that ran for `event`. An invalid output is a
 * non-blocking error (as in Claude Code), so the message says which field is wrong and why.
 */
export function parseHookOutput(event: FiredEventName, value: unknown): ParsedHookOutput {
  // Checked before the schema so a mismatch reads as one, not as a failed union.
  if (isRecord(value) && isRecord(value.hookSpecificOutput)) {
    const named = value.hookSpecificOutput.hookEventName;
    if (named !== event) {
      const got = named === undefined ? "it is missing" : `got ${JSON.stringify(named)}`;
      return {
        ok: false,
        message: invalid(`"hookSpecificOutput.hookEventName" must be "${event}" (${got})`),
      };
    }
  }
  const schema = event === "PermissionRequest" ? PermissionRequestHookOutput : HookOutput;
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, output: parsed.data };
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String).join(".") ?? "";
  const message = issue?.message ?? "is not valid";
  return { ok: false, message: invalid(path === "" ? `it ${message}` : `"${path}" ${message}`) };
}

function invalid(detail: string): string {
  return `Hook output is invalid: ${detail}`;
}
