import { assert, assertEquals } from "../helpers/assert.ts";
import type { FiredEventName } from "../../src/hooks/event_table.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import {
  type HookOutcome,
  interpretResult,
  runnerThrewOutcome,
} from "../../src/hooks/hook_outcome.ts";
import type { Registration } from "../../src/hooks/registration.ts";
import {
  answered,
  commandRegistration,
  evaluated,
  exited,
  failed,
  http,
  httpRegistration,
  promptRegistration,
} from "./registration_fixture.ts";

const GUARD = commandRegistration("./guard.sh");
const FAIL_CLOSED = commandRegistration("./guard.sh", { onFailure: "block" });

function interpret(
  result: HandlerResult,
  options: { event?: FiredEventName; registration?: Registration } = {},
): HookOutcome {
  return interpretResult(options.event ?? "PreToolUse", options.registration ?? GUARD, result);
}

function success(outcome: HookOutcome): Extract<HookOutcome, { kind: "success" }> {
  assert(outcome.kind === "success", `expected a success, got ${JSON.stringify(outcome)}`);
  return outcome;
}

function blocked(outcome: HookOutcome): Extract<HookOutcome, { kind: "block" }> {
  assert(outcome.kind === "block", `expected a block, got ${JSON.stringify(outcome)}`);
  return outcome;
}

function nonBlocking(outcome: HookOutcome): Extract<HookOutcome, { kind: "error" }> {
  assert(outcome.kind === "error", `expected a non-blocking error, got ${JSON.stringify(outcome)}`);
  return outcome;
}

const DENY = {
  hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" },
} as const;

// Exit 0

Deno.test("exit 0 with no stdout is a success that says nothing", () => {
  const outcome = success(interpret(exited(0, { stdout: "  \n" })));
  assertEquals([outcome.output, outcome.text], [null, null]);
});

Deno.test("exit 0 with one JSON object on stdout is the JSON output", () => {
  const outcome = success(interpret(exited(0, { stdout: `\n  ${JSON.stringify(DENY)}  \n\n` })));
  assertEquals(outcome.output, DENY);
  assertEquals(outcome.text, null);
});

// Claude Code 2.1.332 calls stdout that starts with "{" and does not parse a non-blocking error
// ("Hook output looks like a JSON object but is not valid JSON"), where it once read it as text.
Deno.test("exit 0 with a JSON deny followed by a log line is a non-blocking error, not a deny", () => {
  const stdout = `${JSON.stringify(DENY)}\nchecked in 3 ms\n`;
  const outcome = nonBlocking(interpret(exited(0, { stdout })));
  assertEquals(outcome.cause, "output_invalid");
  assertEquals(
    outcome.detail,
    "Hook output looks like a JSON object but is not valid JSON — Unexpected non-whitespace " +
      `character after JSON at position ${JSON.stringify(DENY).length + 1} (line 2 column 1). ` +
      "Emit the payload with a JSON encoder (jq, ConvertTo-Json, json.dumps) rather than string " +
      "concatenation so backslashes and quotes inside strings are escaped",
  );
});

Deno.test("exit 0 with text before a JSON object is plain text", () => {
  const outcome = success(interpret(exited(0, { stdout: `checking\n${JSON.stringify(DENY)}` })));
  assertEquals(outcome.output, null);
  assertEquals(outcome.text, `checking\n${JSON.stringify(DENY)}`);
});

Deno.test("exit 0 with two JSON objects, or an object that does not parse, is a non-blocking error", () => {
  for (const stdout of ['{"continue":false}\n{"continue":true}', "{decision: block}", "{"]) {
    const outcome = nonBlocking(interpret(exited(0, { stdout })));
    assertEquals(outcome.cause, "output_invalid", stdout);
  }
});

Deno.test("exit 0 with an array, a string or a number is plain text", () => {
  for (const stdout of ['[{"decision":"block"}]', '"block"', "42", "null"]) {
    const outcome = success(interpret(exited(0, { stdout })));
    assertEquals([outcome.output, outcome.text], [null, stdout], stdout);
  }
});

Deno.test("exit 0 with a JSON object of wrong field types is a non-blocking error naming the field", () => {
  const outcome = nonBlocking(interpret(answered({ continue: "false" })));
  assertEquals(outcome.cause, "output_invalid");
  assertEquals(outcome.detail, 'Hook output is invalid: "continue" must be a boolean');
  assertEquals(outcome.timedOut, false);
});

Deno.test("exit 0 with a hookEventName for another event is a non-blocking error", () => {
  const outcome = nonBlocking(interpret(answered(DENY), { event: "PostToolUse" }));
  assertEquals(outcome.cause, "output_invalid");
  assertEquals(
    outcome.detail,
    'Hook output is invalid: "hookSpecificOutput.hookEventName" must be "PostToolUse" (got "PreToolUse")',
  );
});

// Exit 2

Deno.test("exit 2 blocks with stderr as the reason, quoted as [<cmd>]: <stderr>", () => {
  const outcome = blocked(interpret(exited(2, { stderr: "rm -rf / is not allowed\n" })));
  assertEquals(outcome.cause, "exit_2");
  assertEquals(outcome.detail, "rm -rf / is not allowed");
  assertEquals(outcome.reason, "[./guard.sh]: rm -rf / is not allowed");
});

Deno.test("exit 2 ignores any JSON on stdout", () => {
  const stdout = JSON.stringify({
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" },
  });
  const outcome = blocked(interpret(exited(2, { stdout, stderr: "no" })));
  assertEquals(outcome.reason, "[./guard.sh]: no");
});

Deno.test('exit 2 with empty stderr gives the reason "No stderr output"', () => {
  const outcome = blocked(interpret(exited(2, { stderr: " \n" })));
  assertEquals(outcome.detail, "No stderr output");
  assertEquals(outcome.reason, "[./guard.sh]: No stderr output");
});

Deno.test("exit 2 keeps a multi-line stderr whole", () => {
  const outcome = blocked(interpret(exited(2, { stderr: "first\nsecond\n" })));
  assertEquals(outcome.detail, "first\nsecond");
});

Deno.test("exit 2 is a block outcome on a non-blockable event too (the decision ignores it)", () => {
  const outcome = blocked(interpret(exited(2, { stderr: "no" }), { event: "SessionStart" }));
  assertEquals(outcome.cause, "exit_2");
});

// Other exits and failures

Deno.test("another exit code is a non-blocking error showing the first line of stderr", () => {
  const outcome = nonBlocking(
    interpret(exited(1, { stderr: "\n  jq: command not found  \nmore\n" })),
  );
  assertEquals(outcome.cause, "exit_code");
  assertEquals(outcome.detail, "jq: command not found");
  assertEquals(outcome.timedOut, false);
});

Deno.test("another exit code with no stderr says which code", () => {
  assertEquals(nonBlocking(interpret(exited(127))).detail, "Exited with code 127");
});

Deno.test("a crash (killed by a signal) is a non-blocking error, not a block", () => {
  const outcome = nonBlocking(interpret(exited(2, { signal: "SIGSEGV" })));
  assertEquals(outcome.cause, "signal");
  assertEquals(outcome.detail, "Killed by signal SIGSEGV");
});

Deno.test("a command that cannot start is a non-blocking error with the failure message", () => {
  const outcome = nonBlocking(interpret(failed("spawn", 'Cannot run "./guard.sh": not found')));
  assertEquals(outcome.cause, "spawn");
  assertEquals(outcome.detail, 'Cannot run "./guard.sh": not found');
  assertEquals(outcome.timedOut, false);
});

Deno.test("a timeout is a non-blocking error flagged as timed out, not a block", () => {
  const outcome = nonBlocking(interpret(failed("timeout", "Timed out after 30 s")));
  assertEquals(outcome.cause, "timeout");
  assertEquals(outcome.detail, "Timed out after 30 s");
  assertEquals(outcome.timedOut, true);
});

Deno.test("a very long stderr line is clipped for the user", () => {
  const outcome = nonBlocking(interpret(exited(1, { stderr: "x".repeat(10_000) })));
  assertEquals(outcome.detail.length, 300);
  assert(outcome.detail.endsWith("…"));
});

Deno.test("a runner that threw becomes a non-blocking error", () => {
  const outcome = nonBlocking(runnerThrewOutcome("PreToolUse", GUARD, new Error("boom")));
  assertEquals(outcome.cause, "runner_threw");
  assertEquals(outcome.detail, "The hook runner failed: boom");
});

// onFailure: "block"

Deno.test("onFailure block turns a bad exit code into a block on a blockable event", () => {
  const outcome = blocked(interpret(exited(1, { stderr: "oops" }), { registration: FAIL_CLOSED }));
  assertEquals(outcome.cause, "on_failure");
  assertEquals(outcome.failure, "exit_code");
  assertEquals(outcome.detail, "oops");
  assertEquals(outcome.reason, "[./guard.sh]: oops");
  assertEquals(outcome.timedOut, false);
});

Deno.test("onFailure block turns a timeout, a crash, a spawn failure and invalid output into blocks", () => {
  const results = [
    failed("timeout", "Timed out after 1 s"),
    exited(0, { signal: "SIGKILL" }),
    failed("spawn", "not found"),
    answered({ decision: 1 }),
  ];
  const outcomes = results.map((r) => blocked(interpret(r, { registration: FAIL_CLOSED })));
  assertEquals(outcomes.map((o) => [o.failure, o.timedOut]), [
    ["timeout", true],
    ["signal", false],
    ["spawn", false],
    ["output_invalid", false],
  ]);
});

Deno.test("onFailure block leaves exit 0 and exit 2 as they are", () => {
  success(interpret(exited(0), { registration: FAIL_CLOSED }));
  assertEquals(blocked(interpret(exited(2), { registration: FAIL_CLOSED })).cause, "exit_2");
});

Deno.test("onFailure block does not block on events that cannot be blocked", () => {
  for (const event of ["SessionStart", "Notification"] as const) {
    const registration = commandRegistration("./guard.sh", { event, onFailure: "block" });
    const outcome = nonBlocking(interpret(failed("timeout", "Timed out"), { event, registration }));
    assertEquals(outcome.timedOut, true);
  }
});

// http

const HOOK_URL = httpRegistration("https://hooks.example/check");

Deno.test("http 2xx with a JSON object body is the JSON output", () => {
  const outcome = success(interpret(http(200, JSON.stringify(DENY)), { registration: HOOK_URL }));
  assertEquals(outcome.output, DENY);
});

Deno.test("http 2xx with an empty body is a success with no output", () => {
  for (const status of [200, 204]) {
    const outcome = success(interpret(http(status, " \n"), { registration: HOOK_URL }));
    assertEquals([outcome.output, outcome.text], [null, null]);
  }
});

Deno.test("http 2xx with a body that is not a JSON object is a non-blocking error", () => {
  for (const body of ["ok", "[1]", "{oops", '{"a":1} trailing'] as const) {
    const outcome = nonBlocking(interpret(http(200, body), { registration: HOOK_URL }));
    assertEquals(outcome.cause, "http_body", body);
  }
  assertEquals(
    nonBlocking(interpret(http(200, "ok"), { registration: HOOK_URL })).detail,
    'The hook endpoint\'s answer is not a JSON object: "ok"',
  );
});

Deno.test("http 2xx with an invalid JSON output is a non-blocking error", () => {
  const outcome = nonBlocking(
    interpret(http(200, '{"systemMessage":5}'), { registration: HOOK_URL }),
  );
  assertEquals(outcome.cause, "output_invalid");
});

Deno.test("http non-2xx is a non-blocking error, even with a JSON body", () => {
  const withBody = nonBlocking(
    interpret(http(500, "Internal error\nstack..."), { registration: HOOK_URL }),
  );
  assertEquals(withBody.cause, "http_status");
  assertEquals(withBody.detail, "The hook endpoint answered HTTP 500: Internal error");
  const deny = nonBlocking(interpret(http(403, JSON.stringify(DENY)), { registration: HOOK_URL }));
  assertEquals(deny.cause, "http_status");
  assertEquals(
    nonBlocking(interpret(http(404), { registration: HOOK_URL })).detail,
    "The hook endpoint answered HTTP 404",
  );
});

Deno.test("http connection errors and timeouts are non-blocking errors", () => {
  const down = nonBlocking(
    interpret(failed("network", "Connection refused"), { registration: HOOK_URL }),
  );
  assertEquals([down.cause, down.timedOut], ["network", false]);
  const slow = nonBlocking(interpret(failed("timeout", "Timed out"), { registration: HOOK_URL }));
  assertEquals([slow.cause, slow.timedOut], ["timeout", true]);
});

// prompt / agent

const JUDGE = promptRegistration("Is this safe? $ARGUMENTS");

Deno.test("an evaluated ok:true is a success with no output", () => {
  const outcome = success(interpret(evaluated(true), { registration: JUDGE }));
  assertEquals([outcome.output, outcome.text], [null, null]);
});

Deno.test("an evaluated ok:false blocks with its reason", () => {
  const outcome = blocked(interpret(evaluated(false, "Deletes the repo"), { registration: JUDGE }));
  assertEquals([outcome.cause, outcome.reason, outcome.detail], [
    "ok_false",
    "Deletes the repo",
    "Deletes the repo",
  ]);
});

Deno.test('an evaluated ok:false without a reason blocks with "Blocked by hook"', () => {
  assertEquals(
    blocked(interpret(evaluated(false), { registration: JUDGE })).reason,
    "Blocked by hook",
  );
});

Deno.test("a model error or a model timeout is a non-blocking error", () => {
  const broken = nonBlocking(
    interpret(failed("evaluator", "Model failed"), { registration: JUDGE }),
  );
  assertEquals([broken.cause, broken.detail], ["evaluator", "Model failed"]);
  const slow = nonBlocking(interpret(failed("timeout", "Timed out"), { registration: JUDGE }));
  assertEquals(slow.timedOut, true);
});
