import { assertEquals } from "../helpers/assert.ts";
import {
  additionalContextMessage,
  blockingErrorMessage,
  commandReason,
  hookLabel,
  invalidUpdatedInputMessage,
  nonBlockingErrorNotice,
  preToolUseDeniedMessage,
  sessionStartSuccessMessage,
  stopFeedbackMessage,
  stoppedContinuationNotice,
  systemMessageNotice,
  systemReminder,
  userPromptBlockedMessage,
  userPromptSubmitSuccessMessage,
} from "../../src/hooks/hook_messages.ts";

Deno.test("a hook label is the event, with the tool name after a colon when there is one", () => {
  assertEquals(hookLabel("PreToolUse", "shell"), "PreToolUse:shell");
  assertEquals(hookLabel("Stop"), "Stop");
  assertEquals(hookLabel("Stop", null), "Stop");
});

Deno.test("an exit-2 reason quotes the command: [<cmd>]: <stderr>", () => {
  assertEquals(commandReason("./guard.sh", "no"), "[./guard.sh]: no");
});

Deno.test('a PreToolUse deny reads "PreToolUse:T hook error: <reason>"', () => {
  assertEquals(preToolUseDeniedMessage("shell", "no rm"), "PreToolUse:shell hook error: no rm");
  assertEquals(
    preToolUseDeniedMessage("fs_write", commandReason("./g.sh", "read-only tree")),
    "PreToolUse:fs_write hook error: [./g.sh]: read-only tree",
  );
});

Deno.test("an invalid updatedInput reads as Claude Code's schema failure (hooks.md §12.9)", () => {
  assertEquals(
    invalidUpdatedInputMessage(
      "Bash",
      "Bash failed due to the following issue:\nThe required parameter `command` is missing",
    ),
    "PreToolUse hook for Bash returned updatedInput that failed schema validation: " +
      "Bash failed due to the following issue:\nThe required parameter `command` is missing\n" +
      "The tool input from the model was valid; the hook's rewrite of it was not.",
  );
});

Deno.test('additional context reads "<Event>[:T] hook additional context: <ctx>"', () => {
  assertEquals(
    additionalContextMessage("PostToolUse", "fs_read", "a\nb"),
    "PostToolUse:fs_read hook additional context: a\nb",
  );
  assertEquals(
    additionalContextMessage("PreToolUse", "shell", "ctx"),
    "PreToolUse:shell hook additional context: ctx",
  );
  assertEquals(
    additionalContextMessage("SessionStart", null, "branch main"),
    "SessionStart hook additional context: branch main",
  );
  assertEquals(
    additionalContextMessage("UserPromptSubmit", null, "ctx"),
    "UserPromptSubmit hook additional context: ctx",
  );
});

Deno.test('a Post* block reads "<Event>:T hook blocking error from command: "<cmd>": <reason>"', () => {
  assertEquals(
    blockingErrorMessage("PostToolUse", "fs_write", "./lint.sh", "[./lint.sh]: 3 errors"),
    'PostToolUse:fs_write hook blocking error from command: "./lint.sh": [./lint.sh]: 3 errors',
  );
  assertEquals(
    blockingErrorMessage("PostToolUseFailure", "shell", "./why.sh", "retry"),
    'PostToolUseFailure:shell hook blocking error from command: "./why.sh": retry',
  );
});

Deno.test('a blocked prompt reads "UserPromptSubmit operation blocked by hook:...Original prompt:"', () => {
  assertEquals(
    userPromptBlockedMessage("[./p.sh]: secrets", "my key is 123"),
    "UserPromptSubmit operation blocked by hook:\n[./p.sh]: secrets\n\nOriginal prompt: my key is 123",
  );
});

Deno.test('SessionStart plain stdout reads "SessionStart:<source> hook success: <stdout>"', () => {
  assertEquals(
    sessionStartSuccessMessage("startup", "hi"),
    "SessionStart:startup hook success: hi",
  );
  assertEquals(sessionStartSuccessMessage("resume", "hi"), "SessionStart:resume hook success: hi");
});

Deno.test('UserPromptSubmit plain stdout reads "UserPromptSubmit hook success: <stdout>"', () => {
  assertEquals(userPromptSubmitSuccessMessage("ok"), "UserPromptSubmit hook success: ok");
});

Deno.test('Stop feedback reads "Stop hook feedback:\\n<reason>"', () => {
  assertEquals(stopFeedbackMessage("tests fail"), "Stop hook feedback:\ntests fail");
});

Deno.test('a systemMessage reads "<Event>[:T] says: <msg>"', () => {
  assertEquals(
    systemMessageNotice("PreToolUse", "shell", "careful"),
    "PreToolUse:shell says: careful",
  );
  assertEquals(systemMessageNotice("Stop", null, "bye"), "Stop says: bye");
});

Deno.test('continue:false reads "<Event>[:T] hook stopped continuation: <stopReason>"', () => {
  assertEquals(
    stoppedContinuationNotice("PreToolUse", "shell", "budget"),
    "PreToolUse:shell hook stopped continuation: budget",
  );
  assertEquals(stoppedContinuationNotice("Stop", null, null), "Stop hook stopped continuation");
});

Deno.test('continue:false on UserPromptSubmit reads "Operation stopped by hook: <stopReason>"', () => {
  assertEquals(
    stoppedContinuationNotice("UserPromptSubmit", null, "closed"),
    "Operation stopped by hook: closed",
  );
  assertEquals(
    stoppedContinuationNotice("UserPromptSubmit", null, null),
    "Operation stopped by hook",
  );
});

Deno.test("a non-blocking failure tells the user the action went unchecked, and why", () => {
  assertEquals(
    nonBlockingErrorNotice({ timedOut: false, command: "./g.sh", detail: "jq: not found" }),
    "A hook gave no usable answer, so it didn't check this action.\n[./g.sh]: jq: not found",
  );
  assertEquals(
    nonBlockingErrorNotice({ timedOut: true, command: "./g.sh", detail: "Timed out after 5 s" }),
    "A hook didn't answer in time, so it didn't check this action.\n[./g.sh]: Timed out after 5 s",
  );
});

Deno.test("text for the model is wrapped in a system-reminder where needed", () => {
  assertEquals(systemReminder("ctx"), "<system-reminder>\nctx\n</system-reminder>");
});
