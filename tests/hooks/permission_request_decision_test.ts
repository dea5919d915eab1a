import { assertEquals } from "../helpers/assert.ts";
import { combineOutcomes } from "../../src/hooks/decision.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import { type HookOutcome, interpretResult } from "../../src/hooks/hook_outcome.ts";
import {
  answerPermissionRequest,
  PERMISSION_REQUEST_DENIED,
  sessionPermissionUpdates,
} from "../../src/hooks/permission_request_decision.ts";
import {
  answered,
  commandRegistration,
  exited,
  failed,
  id as registrationId,
  outcome,
} from "./registration_fixture.ts";

/** The outcome of PermissionRequest hook number `order` (command `./hook<order>.sh`). */
function hook(order: number, result: HandlerResult): HookOutcome {
  return outcome("PermissionRequest", order, result);
}

function answer(...results: HandlerResult[]) {
  return answerPermissionRequest(results.map((result, order) => hook(order, result)));
}

function id(order: number): string {
  return registrationId("PermissionRequest", order);
}

function decision(fields: Record<string, unknown>): HandlerResult {
  return answered({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: fields } });
}

Deno.test("PermissionRequest: no hook, or one that says nothing, leaves the client to be asked", () => {
  assertEquals(answer(), { kind: "ask" });
  assertEquals(answer(exited(0), exited(0, { stdout: "looked at it\n" })), { kind: "ask" });
});

Deno.test("PermissionRequest: a hook that fails (exit 1, timeout, bad output) decides nothing", () => {
  assertEquals(
    answer(
      exited(1, { stderr: "boom" }),
      failed("timeout", "slow"),
      decision({ behavior: "maybe" }),
    ),
    { kind: "ask" },
  );
});

Deno.test("PermissionRequest: behavior allow answers allow, with its updatedInput", () => {
  assertEquals(answer(decision({ behavior: "allow" })), {
    kind: "allow",
    by: [id(0)],
    updatedInput: null,
  });
  assertEquals(answer(decision({ behavior: "allow", updatedInput: { command: "ls" } })), {
    kind: "allow",
    by: [id(0)],
    updatedInput: { by: id(0), input: { command: "ls" } },
  });
});

Deno.test("PermissionRequest: behavior deny answers deny with its message and interrupt", () => {
  assertEquals(answer(decision({ behavior: "deny", message: "not on main", interrupt: true })), {
    kind: "deny",
    by: [id(0)],
    message: "not on main",
    interrupt: true,
  });
  assertEquals(answer(decision({ behavior: "deny" })), {
    kind: "deny",
    by: [id(0)],
    message: PERMISSION_REQUEST_DENIED,
    interrupt: false,
  });
});

Deno.test("PermissionRequest: exit 2 decides nothing, as in Claude Code 2.1.332: the client is asked", () => {
  assertEquals(answer(exited(2, { stderr: "no rm here\n" })), { kind: "ask" });
  // Another hook's deny still denies; an allow still allows.
  assertEquals(answer(exited(2, { stderr: "no" }), decision({ behavior: "allow" })), {
    kind: "allow",
    by: [id(1)],
    updatedInput: null,
  });
});

Deno.test("PermissionRequest: an exit 2 is an error the user reads, saying how to refuse instead", () => {
  const result = hook(0, exited(2, { stderr: "no rm here\n" }));
  assertEquals(result.kind, "error");
  if (result.kind !== "error") return;
  assertEquals(
    result.detail,
    'Exit 2 decides nothing on PermissionRequest, as in Claude Code (stderr: "no rm here"): ' +
      'to refuse, exit 0 and print {"hookSpecificOutput": {"hookEventName": ' +
      '"PermissionRequest", "decision": {"behavior": "deny", "message": "<why>"}}}',
  );
  const combined = combineOutcomes("PermissionRequest", [result]);
  assertEquals(combined.verdict.kind, "none");
  assertEquals(combined.errors.map((error) => error.detail), [result.detail]);
  // On PreToolUse exit 2 still blocks.
  assertEquals(outcome("PreToolUse", 0, exited(2, { stderr: "no" })).kind, "block");
});

Deno.test("PermissionRequest: the source document's top-level approve and deny are read", () => {
  assertEquals(answer(answered({ decision: "approve", reason: "Read-only git operation" })), {
    kind: "allow",
    by: [id(0)],
    updatedInput: null,
  });
  assertEquals(
    answer(answered({ decision: "deny", reason: "Destructive root operation blocked" })),
    {
      kind: "deny",
      by: [id(0)],
      message: "Destructive root operation blocked",
      interrupt: false,
    },
  );
});

Deno.test("PermissionRequest: deny beats allow, and every deny's message is kept in chain order", () => {
  assertEquals(
    answer(
      decision({ behavior: "allow" }),
      answered({ decision: "deny", reason: "second" }),
      decision({ behavior: "deny", message: "third" }),
    ),
    { kind: "deny", by: [id(1), id(2)], message: "second\nthird", interrupt: false },
  );
});

Deno.test("PermissionRequest: of several allows, the last rewrite in chain order wins", () => {
  assertEquals(
    answer(
      decision({ behavior: "allow", updatedInput: { command: "one" } }),
      decision({ behavior: "allow", updatedInput: { command: "two" } }),
      decision({ behavior: "allow" }),
    ),
    {
      kind: "allow",
      by: [id(0), id(1), id(2)],
      updatedInput: { by: id(1), input: { command: "two" } },
    },
  );
});

Deno.test("PermissionRequest: continue:false beats a deny", () => {
  assertEquals(
    answer(
      decision({ behavior: "deny", message: "no" }),
      answered({ continue: false, stopReason: "enough" }),
    ),
    { kind: "stop", by: id(1), stopReason: "enough" },
  );
});

Deno.test("PermissionRequest: a top-level deny outside PermissionRequest is invalid output", () => {
  const outcome = interpretResult(
    "PreToolUse",
    commandRegistration("./hook.sh"),
    answered({ decision: "deny" }),
  );
  assertEquals(outcome.kind, "error");
});

Deno.test("PermissionRequest: the combined decision agrees (a deny blocks, approve is no ignored say)", () => {
  const denied = combineOutcomes("PermissionRequest", [
    hook(0, decision({ behavior: "deny", message: "not here" })),
  ]);
  assertEquals(denied.verdict.kind === "block" && denied.verdict.reason, "not here");
  const approved = combineOutcomes("PermissionRequest", [
    hook(0, answered({ decision: "approve" })),
    hook(1, decision({ behavior: "allow", updatedInput: { command: "ls" } })),
  ]);
  assertEquals(approved.verdict.kind, "allow");
  assertEquals(approved.updatedInput, { by: id(1), input: { command: "ls" } });
  assertEquals(approved.ignored, []);
});

Deno.test("updatedPermissions: whole-tool addRules are kept in order, everything else is left out saying why", () => {
  const updates = sessionPermissionUpdates([
    { type: "addRules", rules: [{ toolName: "Bash" }, { toolName: "Read" }], behavior: "allow" },
    { type: "addRules", rules: [{ toolName: "Write" }], behavior: "deny", destination: "user" },
    { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test" }], behavior: "allow" },
    { type: "setMode", mode: "acceptEdits" },
    { type: "addRules", rules: [{ toolName: "Edit" }], behavior: "ask" },
    "Bash",
  ]);
  assertEquals(updates.rules, [
    { toolName: "Bash", behavior: "allow" },
    { toolName: "Read", behavior: "allow" },
    { toolName: "Write", behavior: "deny" },
  ]);
  assertEquals(updates.ignored, [
    '"updatedPermissions[2].rules[0]" ignored: "Bash(npm test)" is narrower than the whole ' +
    "tool; this session remembers answers for whole tools only",
    '"updatedPermissions[3]" ignored: only "addRules" updates are kept here (got "setMode")',
    '"updatedPermissions[4].rules[0]" ignored: an "ask" rule cannot be kept; this session ' +
    "remembers only always-allow and always-reject answers",
    '"updatedPermissions[5]" ignored: it must be an object',
  ]);
  assertEquals(sessionPermissionUpdates({}).rules, []);
});
