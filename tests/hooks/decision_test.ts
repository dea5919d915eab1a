import { assert, assertEquals } from "../helpers/assert.ts";
import { combineOutcomes, joinedContext, type Verdict } from "../../src/hooks/decision.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import { interpretResult } from "../../src/hooks/hook_outcome.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import {
  answered,
  commandRegistration,
  decide,
  evaluated,
  exited,
  failed,
  id,
  outcome,
  promptRegistration,
} from "./registration_fixture.ts";

function pre(fields: Record<string, unknown>, top: Record<string, unknown> = {}): HandlerResult {
  return answered({ ...top, hookSpecificOutput: { hookEventName: "PreToolUse", ...fields } });
}

function blockOf(verdict: Verdict): Extract<Verdict, { kind: "block" }> {
  assert(verdict.kind === "block", `expected a block, got ${JSON.stringify(verdict)}`);
  return verdict;
}

Deno.test("no outcomes decide nothing", () => {
  const decision = combineOutcomes("PreToolUse", []);
  assertEquals(decision, {
    event: "PreToolUse",
    verdict: { kind: "none" },
    updatedInput: null,
    updatedToolOutput: null,
    contexts: [],
    texts: [],
    systemMessages: [],
    errors: [],
    ignored: [],
    unread: [],
  });
  assertEquals(joinedContext(decision), null);
});

// continue:false

Deno.test("continue:false beats a deny, and keeps its stopReason and who said it", () => {
  const decision = decide("PreToolUse", [
    exited(2, { stderr: "no" }),
    answered({ continue: false, stopReason: "Budget spent" }),
  ]);
  assertEquals(decision.verdict, {
    kind: "stop",
    by: id("PreToolUse", 1),
    stopReason: "Budget spent",
  });
});

Deno.test("continue:false beats a Stop block: the turn stops", () => {
  const decision = decide("Stop", [
    answered({ decision: "block", reason: "go on" }),
    answered({ continue: false }),
  ]);
  assertEquals(decision.verdict, { kind: "stop", by: id("Stop", 1), stopReason: null });
});

Deno.test("the first continue:false in chain order decides, whatever order outcomes arrive in", () => {
  const outcomes = [
    outcome("UserPromptSubmit", 2, answered({ continue: false, stopReason: "second" })),
    outcome("UserPromptSubmit", 1, answered({ continue: false, stopReason: "first" })),
  ];
  assertEquals(combineOutcomes("UserPromptSubmit", outcomes).verdict, {
    kind: "stop",
    by: id("UserPromptSubmit", 1),
    stopReason: "first",
  });
});

// PreToolUse permission

Deno.test("PreToolUse: deny beats ask beats allow beats no decision", () => {
  const allow = pre({ permissionDecision: "allow" });
  const ask = pre({ permissionDecision: "ask" });
  const deny = pre({ permissionDecision: "deny", permissionDecisionReason: "no" });
  assertEquals(decide("PreToolUse", [allow, ask, deny, allow]).verdict.kind, "block");
  assertEquals(decide("PreToolUse", [allow, ask, allow]).verdict.kind, "ask");
  assertEquals(decide("PreToolUse", [exited(0), allow]).verdict.kind, "allow");
  assertEquals(decide("PreToolUse", [exited(0), answered({})]).verdict.kind, "none");
});

Deno.test("PreToolUse: exit 2, permissionDecision deny, decision block and ok:false all deny", () => {
  const outcomes = [
    outcome("PreToolUse", 0, exited(2, { stderr: "exit two" })),
    outcome("PreToolUse", 1, pre({ permissionDecision: "deny", permissionDecisionReason: "pd" })),
    outcome("PreToolUse", 2, answered({ decision: "block", reason: "legacy" })),
    interpretResult(
      "PreToolUse",
      promptRegistration("judge", { order: 3 }),
      evaluated(false, "model says no"),
    ),
  ];
  const verdict = blockOf(combineOutcomes("PreToolUse", outcomes).verdict);
  assertEquals(verdict.blocks.map((b) => [b.by, b.source, b.reason]), [
    [id("PreToolUse", 0), "exit_2", "[./hook0.sh]: exit two"],
    [id("PreToolUse", 1), "permission_decision", "pd"],
    [id("PreToolUse", 2), "decision", "legacy"],
    [id("PreToolUse", 3), "ok_false", "model says no"],
  ]);
  assertEquals(verdict.reason, "[./hook0.sh]: exit two\npd\nlegacy\nmodel says no");
});

Deno.test("PreToolUse: deny reasons are joined in chain order even when outcomes arrive out of order", () => {
  const outcomes = [
    outcome("PreToolUse", 3, exited(2, { stderr: "third" })),
    outcome(
      "PreToolUse",
      1,
      pre({ permissionDecision: "deny", permissionDecisionReason: "first" }),
    ),
    outcome("PreToolUse", 2, pre({ permissionDecision: "allow" })),
    outcome("PreToolUse", 0, exited(0)),
  ];
  assertEquals(
    blockOf(combineOutcomes("PreToolUse", outcomes).verdict).reason,
    "first\n[./hook3.sh]: third",
  );
});

Deno.test('PreToolUse: a deny\'s reason falls back to "reason", then to "Blocked by hook"', () => {
  const verdict = blockOf(
    decide("PreToolUse", [
      pre({ permissionDecision: "deny" }, { reason: "top-level" }),
      pre({ permissionDecision: "deny" }),
      answered({ decision: "block" }),
    ]).verdict,
  );
  assertEquals(verdict.reason, "top-level\nBlocked by hook\nBlocked by hook");
});

Deno.test('PreToolUse: the deprecated decision "approve" allows', () => {
  const decision = decide("PreToolUse", [answered({ decision: "approve", reason: "read-only" })]);
  assertEquals(decision.verdict, {
    kind: "allow",
    votes: [{ by: id("PreToolUse", 0), reason: "read-only" }],
  });
});

Deno.test("PreToolUse: within one hook, a deny in either field beats an allow in the other", () => {
  const decision = decide("PreToolUse", [
    pre({ permissionDecision: "allow" }, { decision: "block", reason: "x" }),
  ]);
  assertEquals(blockOf(decision.verdict).blocks.map((b) => b.source), ["decision"]);
});

Deno.test("PreToolUse: ask and allow votes name their hooks and reasons", () => {
  const decision = decide("PreToolUse", [
    pre({ permissionDecision: "ask", permissionDecisionReason: "touches /etc" }),
    pre({ permissionDecision: "ask" }),
  ]);
  assertEquals(decision.verdict, {
    kind: "ask",
    votes: [{ by: id("PreToolUse", 0), reason: "touches /etc" }, {
      by: id("PreToolUse", 1),
      reason: null,
    }],
  });
});

// updatedInput

Deno.test("updatedInput: the last one in chain order wins and names its hook", () => {
  const outcomes = [
    outcome("PreToolUse", 2, pre({ updatedInput: { command: "ls -la" } })),
    outcome("PreToolUse", 0, pre({ updatedInput: { command: "ls" } })),
    outcome("PreToolUse", 1, exited(0)),
  ];
  assertEquals(combineOutcomes("PreToolUse", outcomes).updatedInput, {
    by: id("PreToolUse", 2),
    input: { command: "ls -la" },
  });
});

Deno.test("updatedInput survives an allow and no decision at all", () => {
  const withAllow = decide("PreToolUse", [
    pre({ permissionDecision: "allow", updatedInput: { a: 1 } }),
  ]);
  assertEquals([withAllow.verdict.kind, withAllow.updatedInput?.input], ["allow", { a: 1 }]);
  const alone = decide("PreToolUse", [pre({ updatedInput: { a: 2 } })]);
  assertEquals([alone.verdict.kind, alone.updatedInput?.input], ["none", { a: 2 }]);
});

// Context

Deno.test("additionalContext is kept in chain order, top-level before hookSpecificOutput", () => {
  const outcomes = [
    outcome("PostToolUse", 1, answered({ additionalContext: "b" })),
    outcome(
      "PostToolUse",
      0,
      answered({
        additionalContext: "a1",
        hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "a2" },
      }),
    ),
  ];
  const decision = combineOutcomes("PostToolUse", outcomes);
  assertEquals(decision.contexts, [
    { by: id("PostToolUse", 0), text: "a1" },
    { by: id("PostToolUse", 0), text: "a2" },
    { by: id("PostToolUse", 1), text: "b" },
  ]);
  assertEquals(joinedContext(decision), "a1\na2\nb");
});

// Claude Code reads additionalContext only inside hookSpecificOutput (its processHookJSONOutput
// takes it per event from there): in the claude profile a top-level one reaches no model, and
// the user is told where it belongs.
Deno.test("in the claude profile a top-level additionalContext is ignored, and the user told", () => {
  const outcomes = [
    outcome(
      "PostToolUse",
      0,
      answered({
        additionalContext: "a1",
        hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "a2" },
      }),
    ),
  ];
  const claude = combineOutcomes("PostToolUse", outcomes, compatProfile("claude"));
  assertEquals(claude.contexts, [{ by: id("PostToolUse", 0), text: "a2" }]);
  assertEquals(claude.unread.map((u) => u.text), [
    'A top-level "additionalContext" has no effect: put it in "hookSpecificOutput", with ' +
    '"hookEventName": "PostToolUse"',
  ]);
  const llama = combineOutcomes("PostToolUse", outcomes, compatProfile("llama"));
  assertEquals(llama.contexts.map((c) => c.text), ["a1", "a2"]);
  assertEquals(llama.unread, []);
});

Deno.test("block beats context, and the context is still kept", () => {
  const decision = decide("UserPromptSubmit", [
    answered({ additionalContext: "today is Monday" }),
    exited(2, { stderr: "secrets in prompt" }),
  ]);
  assertEquals(blockOf(decision.verdict).reason, "[./hook1.sh]: secrets in prompt");
  assertEquals(joinedContext(decision), "today is Monday");
});

Deno.test("plain stdout is kept on SessionStart and UserPromptSubmit", () => {
  for (const event of ["SessionStart", "UserPromptSubmit"] as const) {
    const decision = decide(event, [exited(0, { stdout: "branch main\n" })]);
    assertEquals(decision.texts, [{ by: id(event, 0), text: "branch main" }]);
  }
});

Deno.test("plain stdout on a tool event has no effect: --explain names it, the user is not told", () => {
  const decision = decide("PreToolUse", [
    exited(0, {
      stdout:
        'log\n{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}',
    }),
  ]);
  assertEquals(decision.verdict.kind, "none");
  assertEquals(decision.texts, []);
  assertEquals(decision.ignored, [{
    by: id("PreToolUse", 0),
    text: "Stdout is not one JSON object, and plain text has no effect on PreToolUse",
  }]);
  assertEquals(decision.unread, []);
});

// Claude Code: "Hook output looks like a JSON object but is not valid JSON — …", a
// non-blocking error (it no longer reads such stdout as plain text).
Deno.test("stdout that starts with { but is not one JSON object is a non-blocking error", () => {
  for (
    const stdout of [
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}\nlog',
      '{"continue":true}\n{"continue":true}',
      '{"reason": "a "quoted" word"}',
    ]
  ) {
    const decision = decide("PreToolUse", [exited(0, { stdout })]);
    assertEquals(decision.verdict.kind, "none", stdout);
    assertEquals(decision.errors.length, 1, stdout);
    const error = decision.errors[0]!;
    assertEquals(error.cause, "output_invalid");
    assert(
      error.detail.startsWith("Hook output looks like a JSON object but is not valid JSON — "),
      error.detail,
    );
    assert(
      error.detail.endsWith(
        "Emit the payload with a JSON encoder (jq, ConvertTo-Json, json.dumps) rather than " +
          "string concatenation so backslashes and quotes inside strings are escaped",
      ),
      error.detail,
    );
  }
  // On an event that reads plain text it is no context either.
  const start = decide("SessionStart", [exited(0, { stdout: "{not json" })]);
  assertEquals(start.texts, []);
  assertEquals(start.errors.map((e) => e.cause), ["output_invalid"]);
});

Deno.test("a hookSpecificOutput field the event does not read is ignored, and the user told", () => {
  const decision = decide("PostToolUse", [
    answered({
      hookSpecificOutput: {
        hookEventName: "PostToolUse",
        permissionDecision: "deny",
        additionalContext: "kept",
        aditionalContext: "typo",
      },
    }),
  ]);
  assertEquals(decision.verdict.kind, "none");
  assertEquals(decision.contexts.map((c) => c.text), ["kept"]);
  const expected = [
    '"hookSpecificOutput.permissionDecision" has no effect on PostToolUse: it is read on ' +
    "PreToolUse only",
    '"hookSpecificOutput.aditionalContext" has no effect on PostToolUse',
  ];
  assertEquals(decision.ignored.map((i) => i.text), expected);
  assertEquals(decision.unread.map((u) => [u.by, u.command, u.text]), [
    [id("PostToolUse", 0), "./hook0.sh", expected[0]],
    [id("PostToolUse", 0), "./hook0.sh", expected[1]],
  ]);
});

Deno.test("a hookSpecificOutput field written at the top level is ignored, and the user told", () => {
  const decision = decide("PreToolUse", [
    answered({
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "no",
      metrics: { elapsed: 3 },
    }),
  ]);
  assertEquals(decision.verdict.kind, "none", "a deny one level too high denies nothing");
  // A script's own data at the top level (`metrics`) passes quietly, as in Claude Code.
  assertEquals(decision.unread.map((u) => u.text), [
    'A top-level "hookEventName" has no effect: put it in "hookSpecificOutput"',
    'A top-level "permissionDecision" has no effect: put it in "hookSpecificOutput", with ' +
    '"hookEventName": "PreToolUse"',
    'A top-level "permissionDecisionReason" has no effect: put it in "hookSpecificOutput", with ' +
    '"hookEventName": "PreToolUse"',
  ]);
});

Deno.test("a hookSpecificOutput without hookEventName is invalid output: a non-blocking error", () => {
  const decision = decide("PreToolUse", [
    pre({ hookEventName: undefined, permissionDecision: "deny" }),
  ]);
  assertEquals(decision.verdict.kind, "none");
  assertEquals(decision.errors.map((e) => [e.cause, e.detail]), [[
    "output_invalid",
    'Hook output is invalid: "hookSpecificOutput.hookEventName" must be "PreToolUse" (it is ' +
    "missing)",
  ]]);
});

// Errors

Deno.test("a timeout is a non-blocking error and so is a crash: neither blocks", () => {
  const decision = decide("PreToolUse", [
    failed("timeout", "Timed out after 5 s"),
    exited(139, { signal: "SIGSEGV" }),
    exited(1, { stderr: "boom" }),
  ]);
  assertEquals(decision.verdict, { kind: "none" });
  assertEquals(decision.errors.map((e) => [e.by, e.command, e.cause, e.detail, e.timedOut]), [
    [id("PreToolUse", 0), "./hook0.sh", "timeout", "Timed out after 5 s", true],
    [id("PreToolUse", 1), "./hook1.sh", "signal", "Killed by signal SIGSEGV", false],
    [id("PreToolUse", 2), "./hook2.sh", "exit_code", "boom", false],
  ]);
});

Deno.test("a non-blocking error does not hide another hook's deny", () => {
  const decision = decide("PreToolUse", [
    failed("timeout", "Timed out"),
    exited(2, { stderr: "no" }),
  ]);
  assertEquals(blockOf(decision.verdict).reason, "[./hook1.sh]: no");
  assertEquals(decision.errors.length, 1);
});

Deno.test("onFailure block makes a timeout deny a tool call", () => {
  const registration = commandRegistration("./strict.sh", { onFailure: "block" });
  const outcome = interpretResult("PreToolUse", registration, failed("timeout", "Timed out"));
  const verdict = blockOf(combineOutcomes("PreToolUse", [outcome]).verdict);
  assertEquals(verdict.blocks.map((b) => [b.source, b.reason]), [[
    "on_failure",
    "[./strict.sh]: Timed out",
  ]]);
});

// Per event

Deno.test("PostToolUse decision:block is honoured, with the command for the message", () => {
  const decision = decide("PostToolUse", [answered({ decision: "block", reason: "lint failed" })]);
  assertEquals(blockOf(decision.verdict).blocks, [{
    by: id("PostToolUse", 0),
    command: "./hook0.sh",
    source: "decision",
    reason: "lint failed",
    detail: "lint failed",
  }]);
});

Deno.test("PostToolUseFailure exit 2 blocks with its stderr", () => {
  const decision = decide("PostToolUseFailure", [exited(2, { stderr: "try again" })]);
  assertEquals(blockOf(decision.verdict).blocks.map((b) => [b.reason, b.detail]), [
    ["[./hook0.sh]: try again", "try again"],
  ]);
});

Deno.test("Stop blocks via exit 2, decision block, hookSpecificOutput.reason and ok:false", () => {
  const outcomes = [
    outcome("Stop", 0, exited(2, { stderr: "tests fail" })),
    outcome("Stop", 1, answered({ decision: "block", reason: "not done" })),
    outcome(
      "Stop",
      2,
      answered({ hookSpecificOutput: { hookEventName: "Stop", reason: "keep going" } }),
    ),
    interpretResult(
      "Stop",
      promptRegistration("done?", { event: "Stop", order: 3 }),
      evaluated(false, "no"),
    ),
  ];
  const verdict = blockOf(combineOutcomes("Stop", outcomes).verdict);
  assertEquals(verdict.blocks.map((b) => b.source), [
    "exit_2",
    "decision",
    "stop_reason",
    "ok_false",
  ]);
  assertEquals(verdict.reason, "[./hook0.sh]: tests fail\nnot done\nkeep going\nno");
});

Deno.test("Stop: an empty hookSpecificOutput.reason does not block", () => {
  const decision = decide("Stop", [
    answered({ hookSpecificOutput: { hookEventName: "Stop", reason: " " } }),
  ]);
  assertEquals(decision.verdict, { kind: "none" });
});

Deno.test("Stop: additionalContext, top-level and in hookSpecificOutput, is kept in chain order", () => {
  const decision = decide("Stop", [
    answered({ additionalContext: "x" }),
    answered({ hookSpecificOutput: { hookEventName: "Stop", additionalContext: "y" } }),
  ]);
  assertEquals(decision.contexts.map((c) => c.text), ["x", "y"]);
  assertEquals(decision.ignored, []);
  assertEquals(decision.verdict, { kind: "none" });
});

Deno.test("SessionStart exit 2 has no effect besides being reported", () => {
  const decision = decide("SessionStart", [exited(2, { stderr: "nope" })]);
  assertEquals(decision.verdict, { kind: "none" });
  assertEquals(decision.ignored, [{
    by: id("SessionStart", 0),
    text: "A block has no effect on SessionStart: [./hook0.sh]: nope",
  }]);
});

Deno.test("SessionStart context and plain text are both kept", () => {
  const decision = decide("SessionStart", [
    answered({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "ctx" } }),
    exited(0, { stdout: "text" }),
  ]);
  assertEquals([joinedContext(decision), decision.texts.map((t) => t.text)], ["ctx", ["text"]]);
});

Deno.test("Notification reads only systemMessage", () => {
  const decision = decide("Notification", [
    answered({ continue: false, systemMessage: "seen", additionalContext: "c", decision: "block" }),
    exited(2, { stderr: "x" }),
  ]);
  assertEquals(decision.verdict, { kind: "none" });
  assertEquals(decision.contexts, []);
  assertEquals(decision.systemMessages, [{ by: id("Notification", 0), text: "seen" }]);
  assertEquals(decision.ignored.map((i) => i.text), [
    '"continue": false has no effect on Notification',
    '"additionalContext" has no effect on Notification',
    "A block has no effect on Notification: Blocked by hook",
    "A block has no effect on Notification: [./hook1.sh]: x",
  ]);
});

Deno.test('decision "approve" outside PreToolUse is reported as ignored', () => {
  const decision = decide("UserPromptSubmit", [answered({ decision: "approve" })]);
  assertEquals(decision.verdict, { kind: "none" });
  assertEquals(decision.ignored.map((i) => i.text), [
    '"decision": "approve" has no effect on UserPromptSubmit',
  ]);
});

Deno.test("systemMessages are kept for the user in chain order, even when a hook blocks", () => {
  const outcomes = [
    outcome("UserPromptSubmit", 1, answered({ systemMessage: "second", decision: "block" })),
    outcome("UserPromptSubmit", 0, answered({ systemMessage: "first" })),
  ];
  const decision = combineOutcomes("UserPromptSubmit", outcomes);
  assertEquals(decision.systemMessages.map((m) => m.text), ["first", "second"]);
  assertEquals(decision.verdict.kind, "block");
});
