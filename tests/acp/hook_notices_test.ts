/**
 * What hooks tell the user at run time (hook_notices.ts): an answer that does nothing is never
 * silent. Stdout that looks like JSON and is not, a `hookSpecificOutput` without its
 * `hookEventName`, a field the event does not read or one written a level too high each give a
 * notice; a plain log line on a tool event does not.
 */
import { assertEquals } from "../helpers/assert.ts";
import { hookNotices } from "../../src/acp/session/hook_notices.ts";
import { answered, decide, exited } from "../hooks/registration_fixture.ts";

const NOT_JSON = "Hook output looks like a JSON object but is not valid JSON — ";

Deno.test("stdout that starts with { but does not parse is a notice naming the hook", () => {
  const decision = decide("PreToolUse", [exited(0, { stdout: '{"continue":true}\nlog' })]);
  const [notice, ...rest] = hookNotices(decision, "Bash");
  assertEquals(rest, []);
  assertEquals(
    notice?.startsWith(
      "A hook gave no usable answer, so it didn't check this action.\n[./hook0.sh]: " + NOT_JSON,
    ),
    true,
    notice,
  );
});

Deno.test("a hookSpecificOutput without hookEventName is a notice", () => {
  const decision = decide("PostToolUse", [
    answered({ hookSpecificOutput: { additionalContext: "lint passed" } }),
  ]);
  assertEquals(hookNotices(decision, "Edit"), [
    "A hook gave no usable answer, so it didn't check this action.\n[./hook0.sh]: Hook output " +
    'is invalid: "hookSpecificOutput.hookEventName" must be "PostToolUse" (it is missing)',
  ]);
});

Deno.test("fields the event does not read, or written a level too high, are each a notice", () => {
  const decision = decide("PostToolUse", [
    answered({
      permissionDecision: "deny",
      hookSpecificOutput: { hookEventName: "PostToolUse", initialUserMessage: "hi" },
    }),
  ]);
  assertEquals(hookNotices(decision, "Edit"), [
    "Part of a hook's answer had no effect.\n[./hook0.sh]: \"hookSpecificOutput." +
    'initialUserMessage" has no effect on PostToolUse: it is read on SessionStart only',
    'Part of a hook\'s answer had no effect.\n[./hook0.sh]: A top-level "permissionDecision" ' +
    'has no effect: put it in "hookSpecificOutput", with "hookEventName": "PostToolUse"',
  ]);
});

Deno.test("a block on an event that cannot be blocked is a notice; a plain log line is not", () => {
  const start = decide("SessionStart", [answered({ decision: "block", reason: "no" })]);
  assertEquals(hookNotices(start, null), [
    "Part of a hook's answer had no effect.\n[./hook0.sh]: A block has no effect on " +
    "SessionStart: no",
  ]);
  const logged = decide("PostToolUse", [exited(0, { stdout: "formatted 3 files" })]);
  assertEquals(hookNotices(logged, "Edit"), []);
  assertEquals(logged.ignored.length, 1, "--explain still names it");
});
