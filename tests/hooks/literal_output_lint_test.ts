/**
 * `hooks lint` on an answer a command hook prints as a literal: what the agent would do with it
 * at run time, found before it runs.
 */
import { assertEquals } from "../helpers/assert.ts";
import { group, lintProject, only, PROJECT, run, settings, summary } from "./lint_project.ts";

const lint = (hooks: Record<string, unknown>, profile: "llama" | "claude" = "claude") => {
  const found: string[] = [];
  return lintProject({ [PROJECT]: settings(hooks) }, (diagnostics) => {
    found.push(...summary(only(diagnostics, "LINT_OUTPUT_IGNORED")));
  }, { profile }).then(() => found);
};

Deno.test("a literal that starts with { and does not parse is found, in Claude Code's words", async () => {
  const found = await lint({
    SessionStart: [group(undefined, run(`echo '{"continue": true,}'`))],
  });
  assertEquals(found, [
    "warning LINT_OUTPUT_IGNORED /hooks/SessionStart/0/hooks/0/command: The answer it prints " +
    'cannot be used on "SessionStart": Hook output looks like a JSON object but is not valid ' +
    "JSON — Expected double-quoted property name in JSON at position 18 (line 1 column 19). " +
    "Emit the payload with a JSON encoder (jq, ConvertTo-Json, json.dumps) rather than string " +
    "concatenation so backslashes and quotes inside strings are escaped",
  ]);
});

Deno.test("a literal hookSpecificOutput without hookEventName is found", async () => {
  const found = await lint({
    PostToolUse: [group(
      "Edit",
      run(`printf '%s\\n' '{"hookSpecificOutput": {"additionalContext": "formatted"}}'`),
    )],
  });
  assertEquals(found, [
    "warning LINT_OUTPUT_IGNORED /hooks/PostToolUse/0/hooks/0/command: The answer it prints " +
    'cannot be used on "PostToolUse": Hook output is invalid: ' +
    '"hookSpecificOutput.hookEventName" must be "PostToolUse" (it is missing)',
  ]);
});

Deno.test("literal fields the event does not read, or a level too high, are found", async () => {
  const found = await lint({
    PostToolUse: [group(
      "Bash",
      run(
        `echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny"}}'`,
      ),
    )],
    PreToolUse: [group("Bash", run(`echo '{"permissionDecision": "deny"}'; exit 0`))],
  });
  assertEquals(found, [
    "warning LINT_OUTPUT_IGNORED /hooks/PostToolUse/0/hooks/0/command: Part of the answer it " +
    'prints has no effect on "PostToolUse": "hookSpecificOutput.permissionDecision" has no ' +
    "effect on PostToolUse: it is read on PreToolUse only",
    "warning LINT_OUTPUT_IGNORED /hooks/PreToolUse/0/hooks/0/command: Part of the answer it " +
    'prints has no effect on "PreToolUse": A top-level "permissionDecision" has no effect: put ' +
    'it in "hookSpecificOutput", with "hookEventName": "PreToolUse"',
  ]);
});

Deno.test("a valid literal answer, plain text and printed variables give no finding", async () => {
  const found = await lint({
    PreToolUse: [group(
      "Bash",
      run(
        `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}'`,
      ),
      run("echo checked; echo '[1, 2]'"),
      run('echo "{$RESULT"'),
      run(`printf '{"continue": %s}' "$OK"`),
    )],
  }, "llama");
  assertEquals(found, []);
});

Deno.test("a literal top-level additionalContext is found in the claude profile only", async () => {
  const hooks = {
    PostToolUse: [group("Edit", run(`echo '{"additionalContext": "formatted"}'`))],
  };
  assertEquals(await lint(hooks, "claude"), [
    "warning LINT_OUTPUT_IGNORED /hooks/PostToolUse/0/hooks/0/command: Part of the answer it " +
    'prints has no effect on "PostToolUse": A top-level "additionalContext" has no effect: put ' +
    'it in "hookSpecificOutput", with "hookEventName": "PostToolUse"',
  ]);
  assertEquals(await lint(hooks, "llama"), []);
});
