/**
 * Combining what several tool hooks said about `defer` and `updatedToolOutput` (hooks.md §8,
 * §12.4, §12.5): deny > defer > ask > allow, as Claude Code documents; the last rewrite of the
 * output in chain order wins, whatever order the hooks finished in.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { combineOutcomes } from "../../src/hooks/decision.ts";
import { parseHookOutput } from "../../src/hooks/hook_output.ts";
import { decisionName, sameDecision } from "../../src/testing/runner/expectation_match.ts";
import { EventExpectation } from "../../src/testing/scenarios/scenario_schema.ts";
import { answered, decide, exited, id, outcome } from "./registration_fixture.ts";

const pre = (fields: Record<string, unknown>, top: Record<string, unknown> = {}) =>
  answered({ ...top, hookSpecificOutput: { hookEventName: "PreToolUse", ...fields } });
const post = (fields: Record<string, unknown>, top: Record<string, unknown> = {}) =>
  answered({ ...top, hookSpecificOutput: { hookEventName: "PostToolUse", ...fields } });

// defer

Deno.test("permissionDecision defer is a usable answer: the verdict is defer, with who said it", () => {
  const parsed = parseHookOutput("PreToolUse", {
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "defer" },
  });
  assert(parsed.ok, JSON.stringify(parsed));
  const decision = decide("PreToolUse", [pre({ permissionDecision: "defer" })]);
  assertEquals(decision.verdict, {
    kind: "defer",
    votes: [{ by: id("PreToolUse", 0), reason: null }],
  });
  assertEquals(decision.errors, []);
});

Deno.test("a deny beats a defer, from any hook, in any order", () => {
  for (
    const results of [
      [pre({ permissionDecision: "defer" }), exited(2, { stderr: "no" })],
      [
        pre({ permissionDecision: "deny", permissionDecisionReason: "no" }),
        pre({
          permissionDecision: "defer",
        }),
      ],
    ]
  ) {
    assertEquals(decide("PreToolUse", results).verdict.kind, "block");
  }
});

Deno.test("a defer beats ask and allow, whichever hook said them", () => {
  const decision = decide("PreToolUse", [
    pre({ permissionDecision: "allow" }),
    pre({ permissionDecision: "ask", permissionDecisionReason: "check" }),
    pre({ permissionDecision: "defer", permissionDecisionReason: "later" }),
  ]);
  assertEquals(decision.verdict, {
    kind: "defer",
    votes: [{ by: id("PreToolUse", 2), reason: "later" }],
  });
});

Deno.test("one hook's deprecated decision:block beats its own defer", () => {
  const decision = decide("PreToolUse", [
    pre({ permissionDecision: "defer" }, { decision: "block", reason: "stop there" }),
  ]);
  assertEquals(decision.verdict.kind, "block");
});

Deno.test("continue:false beats a defer", () => {
  const decision = decide("PreToolUse", [
    pre({ permissionDecision: "defer" }),
    answered({ continue: false, stopReason: "enough" }),
  ]);
  assertEquals(decision.verdict, { kind: "stop", by: id("PreToolUse", 1), stopReason: "enough" });
});

Deno.test("a defer's additionalContext reaches no model: --explain lists it as having no effect", () => {
  const decision = decide("PreToolUse", [
    pre({ permissionDecision: "defer", additionalContext: "held for review" }),
    pre({ additionalContext: "second opinion" }),
  ]);
  assertEquals(decision.verdict.kind, "defer");
  assertEquals(decision.contexts, []);
  assertEquals(decision.ignored, [
    {
      by: id("PreToolUse", 0),
      text: '"additionalContext" has no effect on a deferred call: held for review',
    },
    {
      by: id("PreToolUse", 1),
      text: '"additionalContext" has no effect on a deferred call: second opinion',
    },
  ]);
});

Deno.test("an unknown permissionDecision is still no usable answer, and names defer among the valid ones", () => {
  const parsed = parseHookOutput("PreToolUse", {
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "later" },
  });
  assertEquals(parsed, {
    ok: false,
    message: 'Hook output is invalid: "hookSpecificOutput.permissionDecision" must be ' +
      '"allow", "deny", "ask" or "defer"',
  });
});

// updatedToolOutput

Deno.test("updatedToolOutput: the last in chain order wins, whatever order the hooks finished in", () => {
  const outcomes = [
    outcome("PostToolUse", 0, post({ updatedToolOutput: "FIRST" })),
    outcome("PostToolUse", 1, post({ updatedToolOutput: "REWRITTEN" })),
    outcome("PostToolUse", 2, post({ additionalContext: "checked" })),
  ];
  const decision = combineOutcomes("PostToolUse", outcomes.toReversed());
  assertEquals(decision.updatedToolOutput, {
    by: id("PostToolUse", 1),
    value: "REWRITTEN",
    text: "REWRITTEN",
  });
  assertEquals(decision.contexts, [{ by: id("PostToolUse", 2), text: "checked" }]);
});

Deno.test("updatedToolOutput that is not a string is kept as given, with its JSON text; null is no rewrite", () => {
  const object = decide("PostToolUse", [post({ updatedToolOutput: { stdout: "x", code: 0 } })])
    .updatedToolOutput;
  assertEquals(object?.value, { stdout: "x", code: 0 });
  assertEquals(object?.text, '{"stdout":"x","code":0}');
  assertEquals(
    decide("PostToolUse", [post({ updatedToolOutput: 42 })]).updatedToolOutput?.text,
    "42",
  );
  assertEquals(
    decide("PostToolUse", [post({ updatedToolOutput: "kept" }), post({ updatedToolOutput: null })])
      .updatedToolOutput?.text,
    "kept",
  );
});

Deno.test("updatedToolOutput is kept beside a block and the contexts: both are still appended", () => {
  const decision = decide("PostToolUse", [
    post({ updatedToolOutput: "REWRITTEN", additionalContext: "ctx" }, {
      decision: "block",
      reason: "odd",
    }),
  ]);
  assertEquals(decision.updatedToolOutput?.text, "REWRITTEN");
  assertEquals(decision.verdict.kind, "block");
  assertEquals(decision.contexts.map((c) => c.text), ["ctx"]);
});

Deno.test("updatedToolOutput is read on PostToolUse only; on PostToolUseFailure --explain says it had no effect", () => {
  const failure = decide("PostToolUseFailure", [
    answered({
      hookSpecificOutput: { hookEventName: "PostToolUseFailure", updatedToolOutput: "x" },
    }),
  ]);
  assertEquals(failure.updatedToolOutput, null);
  assertEquals(failure.ignored, [{
    by: id("PostToolUseFailure", 0),
    text: '"updatedToolOutput" has no effect on PostToolUseFailure',
  }]);
  const before = decide("PreToolUse", [pre({ updatedToolOutput: "x" })]);
  assertEquals(before.updatedToolOutput, null);
});

Deno.test("a top-level updatedToolOutput, or Claude Code's older updatedMCPToolOutput, rewrites nothing and --explain says so", () => {
  const top = decide("PostToolUse", [answered({ updatedToolOutput: "REDACTED" })]);
  assertEquals(top.updatedToolOutput, null);
  assertEquals(top.ignored.map((i) => i.text), [
    'A top-level "updatedToolOutput" has no effect: put it in "hookSpecificOutput"',
  ]);
  const mcp = decide("PostToolUse", [post({ updatedMCPToolOutput: "REDACTED" })]);
  assertEquals(mcp.updatedToolOutput, null);
  assertEquals(mcp.ignored.map((i) => i.text), [
    '"updatedMCPToolOutput" is not read here: use "updatedToolOutput"',
  ]);
});

Deno.test("scenario files name a defer verdict defer, distinct from ask and deny", () => {
  const verdict = decide("PreToolUse", [pre({ permissionDecision: "defer" })]).verdict;
  assertEquals(decisionName("PreToolUse", verdict), "defer");
  assert(!sameDecision("ask", "defer") && !sameDecision("deny", "defer"));
  assert(EventExpectation.safeParse({ decision: "defer" }).success);
});
