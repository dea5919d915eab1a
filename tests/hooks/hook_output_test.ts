import { assertEquals } from "../helpers/assert.ts";
import { type HookOutput, parseHookOutput } from "../../src/hooks/hook_output.ts";

function valid(event: Parameters<typeof parseHookOutput>[0], value: unknown): HookOutput {
  const parsed = parseHookOutput(event, value);
  if (!parsed.ok) throw new Error(`expected a valid output, got: ${parsed.message}`);
  return parsed.output;
}

function invalidMessage(event: Parameters<typeof parseHookOutput>[0], value: unknown): string {
  const parsed = parseHookOutput(event, value);
  if (parsed.ok) throw new Error("expected an invalid output");
  return parsed.message;
}

Deno.test("every documented field is read", () => {
  const output = valid("PreToolUse", {
    continue: true,
    stopReason: "why",
    suppressOutput: false,
    systemMessage: "note",
    decision: "block",
    reason: "because",
    additionalContext: "ctx",
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "ask",
      permissionDecisionReason: "check",
      updatedInput: { command: "ls" },
      additionalContext: "more",
    },
  });
  assertEquals(output.continue, true);
  assertEquals(output.stopReason, "why");
  assertEquals(output.systemMessage, "note");
  assertEquals(output.decision, "block");
  assertEquals(output.additionalContext, "ctx");
  assertEquals(output.hookSpecificOutput, {
    hookEventName: "PreToolUse",
    permissionDecision: "ask",
    permissionDecisionReason: "check",
    updatedInput: { command: "ls" },
    additionalContext: "more",
  });
});

Deno.test("an empty object is a valid output that says nothing", () => {
  assertEquals(valid("Stop", {}), {});
});

Deno.test("unknown keys are ignored, at the top and inside hookSpecificOutput", () => {
  const output = valid("SessionStart", {
    async: true,
    hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "x", extra: 1 },
  });
  assertEquals(output.hookSpecificOutput?.hookEventName, "SessionStart");
});

Deno.test('the deprecated decision "approve" is accepted', () => {
  assertEquals(valid("PreToolUse", { decision: "approve" }).decision, "approve");
});

Deno.test("each event's hookSpecificOutput carries its own fields", () => {
  for (
    const event of [
      "PostToolUse",
      "PostToolUseFailure",
      "UserPromptSubmit",
      "Notification",
    ] as const
  ) {
    const output = valid(event, {
      hookSpecificOutput: { hookEventName: event, additionalContext: "c" },
    });
    assertEquals(output.hookSpecificOutput, { hookEventName: event, additionalContext: "c" });
  }
  assertEquals(
    valid("Stop", { hookSpecificOutput: { hookEventName: "Stop", reason: "keep going" } })
      .hookSpecificOutput,
    { hookEventName: "Stop", reason: "keep going" },
  );
});

Deno.test("a wrong top-level type is invalid and the message names the field", () => {
  assertEquals(
    invalidMessage("Stop", { continue: "no" }),
    'Hook output is invalid: "continue" must be a boolean',
  );
  assertEquals(
    invalidMessage("Stop", { stopReason: 3 }),
    'Hook output is invalid: "stopReason" must be a string',
  );
  assertEquals(
    invalidMessage("Stop", { systemMessage: null }),
    'Hook output is invalid: "systemMessage" must be a string',
  );
  assertEquals(
    invalidMessage("PreToolUse", { decision: "deny" }),
    'Hook output is invalid: "decision" must be "block" or "approve"',
  );
  assertEquals(
    invalidMessage("UserPromptSubmit", { additionalContext: ["a"] }),
    'Hook output is invalid: "additionalContext" must be a string',
  );
});

Deno.test("a wrong hookSpecificOutput field type is invalid and the message gives its path", () => {
  assertEquals(
    invalidMessage("PreToolUse", {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "maybe" },
    }),
    'Hook output is invalid: "hookSpecificOutput.permissionDecision" must be "allow", "deny", "ask" or "defer"',
  );
  assertEquals(
    invalidMessage("PreToolUse", {
      hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: ["ls"] },
    }),
    'Hook output is invalid: "hookSpecificOutput.updatedInput" must be an object',
  );
  assertEquals(
    invalidMessage("Stop", { hookSpecificOutput: { hookEventName: "Stop", reason: false } }),
    'Hook output is invalid: "hookSpecificOutput.reason" must be a string',
  );
});

Deno.test("a hookEventName that differs from the event makes the whole output invalid", () => {
  assertEquals(
    invalidMessage("PreToolUse", {
      systemMessage: "fine",
      hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "c" },
    }),
    'Hook output is invalid: "hookSpecificOutput.hookEventName" must be "PreToolUse" (got "PostToolUse")',
  );
  assertEquals(
    invalidMessage("Stop", { hookSpecificOutput: { hookEventName: "SubagentStop" } }),
    'Hook output is invalid: "hookSpecificOutput.hookEventName" must be "Stop" (got "SubagentStop")',
  );
});

Deno.test("a hookSpecificOutput without hookEventName is invalid", () => {
  assertEquals(
    invalidMessage("SessionStart", { hookSpecificOutput: { additionalContext: "c" } }),
    'Hook output is invalid: "hookSpecificOutput.hookEventName" must be "SessionStart" (it is missing)',
  );
});

Deno.test("a hookSpecificOutput that is not an object is invalid", () => {
  assertEquals(
    invalidMessage("SessionStart", { hookSpecificOutput: "context" }),
    'Hook output is invalid: "hookSpecificOutput" must be an object with a "hookEventName"',
  );
});

Deno.test("an output that is not an object is invalid", () => {
  assertEquals(invalidMessage("Stop", [1]), "Hook output is invalid: it must be an object");
});
