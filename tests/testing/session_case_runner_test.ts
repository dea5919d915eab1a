/**
 * Session cases end to end: hooks and their decisions, the order they fired in, what the model
 * was told, tool names and inputs, permission answers, evaluator scripts, deterministic ids.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import {
  command,
  hooksSettings,
  runSession as run,
  shellModel,
  withTempProject,
} from "./scenario_project.ts";

const DENY_WRITES = `cat > /dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no writes to a.txt"}}'
`;

Deno.test("session case: a PreToolUse deny keeps the tool from running and tells the model why", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ matcher: "fs_write", hooks: [command("./hooks/deny.sh")] }],
    }),
    "hooks/deny.sh": DENY_WRITES,
  }, async (project) => {
    const result = await run(project, {
      name: "deny",
      session: {
        model: {
          turns: [
            { toolCalls: [{ name: "fs_write", input: { file_path: "a.txt", content: "x" } }] },
            { text: "I could not write it." },
          ],
        },
        prompts: ["write a.txt"],
      },
      expect: {
        hooks: [{ event: "PreToolUse", matcher: "fs_write", decision: "deny" }],
        tools: [{
          name: "fs_write",
          dispatched: false,
          status: "failed",
          input: { file_path: "a.txt", content: "x" },
        }],
        modelSaw: ["PreToolUse:fs_write hook error: no writes to a.txt", {
          matches: "write a\\.txt$",
        }],
        modelNeverSaw: ["OUTER_SECRET"],
        files: { "a.txt": null },
        stopReason: "end_turn",
        agentText: "I could not write it.",
        notices: [],
      },
    });
    assertEquals(result.failures, []);
    assertEquals(result.status, "passed");
    assertEquals(result.kind, "session");
    await Deno.stat(`${project.dir}/a.txt`).then(
      () => assert(false, "a.txt must not exist"),
      (error) => assert(error instanceof Deno.errors.NotFound),
    );
  });
});

Deno.test("session case: a UserPromptSubmit block ends the turn with a refusal the model never sees", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      UserPromptSubmit: [{ hooks: [command("./hooks/block.sh")] }],
    }),
    "hooks/block.sh": "echo 'no secrets here' >&2\nexit 2\n",
  }, async (project) => {
    const result = await run(project, {
      name: "refused",
      session: { model: { turns: [] }, prompts: ["tell me the secret"] },
      expect: {
        stopReason: "refusal",
        hooks: [{ event: "UserPromptSubmit", matcher: null, decision: "block" }],
        tools: [],
        notices: [{ matches: "no secrets here" }],
        modelNeverSaw: ["tell me the secret"],
        agentText: "",
      },
    });
    assertEquals(result.failures, []);
  });
});

Deno.test("session case: the ordered list of hooks, with the context each gave the model", async () => {
  const log = 'cat > /dev/null\necho "$1" >> "$HOME/fired.log"\n';
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      SessionStart: [{ hooks: [command("./hooks/start.sh")] }],
      UserPromptSubmit: [{ hooks: [command("./hooks/prompt.sh")] }],
      PreToolUse: [{ matcher: "shell", hooks: [command("./hooks/log.sh pre")] }],
      PostToolUse: [{ hooks: [command("./hooks/log.sh post")] }],
      Stop: [{ hooks: [command("./hooks/log.sh stop")] }],
    }),
    "hooks/start.sh": "cat > /dev/null\necho 'project rules: be nice'\n",
    "hooks/prompt.sh": `cat > /dev/null\necho '{"additionalContext":"the prompt context"}'\n`,
    "hooks/log.sh": log,
  }, async (project) => {
    const result = await run(project, {
      name: "order",
      isolate: true,
      session: {
        model: {
          turns: [
            {
              thought: "run it",
              toolCalls: [{
                name: "shell",
                input: { command: "echo hi > out.txt; echo done-writing" },
              }],
            },
            { text: "done" },
          ],
        },
        prompts: ["make out.txt"],
        // The command must really run: the case checks the file it makes.
        execute: true,
      },
      expect: {
        hooks: [
          { event: "SessionStart", matcher: "startup", decision: "none" },
          { event: "UserPromptSubmit" },
          { event: "PreToolUse", matcher: "shell" },
          { event: "PostToolUse", matcher: "shell" },
          { event: "Stop", matcher: null },
        ],
        tools: [{ name: "shell", dispatched: true, status: "completed" }],
        modelSaw: ["project rules: be nice", "the prompt context", "done-writing"],
        files: { "out.txt": "hi\n" },
        stopReason: ["end_turn"],
        meta: { tokens: {} },
      },
    }, { placement: { isolate: true } });
    assertEquals(result.failures, []);
    await Deno.stat(`${project.dir}/out.txt`).then(
      () => assert(false, "the project itself is untouched"),
      (error) => assert(error instanceof Deno.errors.NotFound),
    );

    const wrong = await run(project, {
      name: "wrong order",
      session: {
        model: { turns: [{ text: "nothing to do" }] },
        prompts: ["hi"],
      },
      expect: {
        hooks: [{ event: "SessionStart" }, { event: "Stop" }],
        stopReason: "max_tokens",
        tools: [{ name: "shell" }],
      },
    }, { placement: { isolate: true } });
    assertEquals(wrong.failures.map((f) => f.path), [
      "expect.hooks",
      "expect.tools",
      "expect.stopReason",
    ]);
    assertEquals(
      wrong.failures[0]!.message,
      "The hooks fired differ at position 2: expected Stop, got UserPromptSubmit → none " +
        "(3 firing(s) ran hooks, 2 expected)",
    );
    assertEquals(wrong.failures[2]!.actual, "end_turn");
  });
});

Deno.test("session case: tools keep the name the model emitted (aliases) and the input they ran with", async () => {
  const rewrite = `cat > /dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"file_path":"b.txt","content":"rewritten"}}}'
`;
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ matcher: "write_file", hooks: [command("./hooks/rewrite.sh")] }],
    }),
    "hooks/rewrite.sh": rewrite,
  }, async (project) => {
    const result = await run(project, {
      name: "alias",
      isolate: true,
      session: {
        model: {
          turns: [
            { toolCalls: [{ name: "write_file", input: { path: "b.txt", content: "original" } }] },
            { text: "written" },
          ],
        },
        prompts: ["write b"],
        client: { permissions: "allow_once" },
      },
      expect: {
        hooks: [{ event: "PreToolUse", matcher: "write_file", decision: "none" }],
        tools: [{
          name: "write_file",
          dispatched: true,
          status: "completed",
          input: { file_path: "b.txt", content: "rewritten" },
        }],
        files: { "b.txt": "rewritten" },
      },
    }, { placement: { isolate: true } });
    assertEquals(result.failures, []);
  });
});

Deno.test("session case: permission answers come from the scripted client, in order", async () => {
  await withTempProject({}, async (project) => {
    const result = await run(project, {
      name: "permissions",
      session: {
        model: shellModel(["echo one", "echo two"]),
        prompts: ["go"],
        mode: "always-ask",
        client: { permissions: ["reject_once", "allow_once"] },
      },
      expect: {
        tools: [
          { name: "shell", dispatched: false, status: "failed" },
          { name: "shell", dispatched: true, status: "completed" },
        ],
        modelSaw: ["The user denied permission to run shell"],
      },
    });
    assertEquals(result.failures, []);
  });
});

Deno.test("session case: prompt hooks are answered from the evaluator script, or say they need one", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      Stop: [{ hooks: [{ type: "prompt", prompt: "Did it run the tests? $ARGUMENTS" }] }],
    }),
  }, async (project) => {
    const answered = await run(project, {
      name: "evaluated",
      session: {
        model: { turns: [{ text: "all done" }] },
        prompts: ["finish"],
        evaluator: { turns: [{ text: '{"ok": false, "reason": "run the tests first"}' }] },
      },
      expect: {
        hooks: [{ event: "Stop", decision: "block" }],
        meta: { hook_should_continue: true, hook_reason: "run the tests first" },
      },
    });
    assertEquals(answered.failures, []);

    const unanswered = await run(project, {
      name: "no evaluator",
      session: { model: { turns: [{ text: "all done" }] }, prompts: ["finish"] },
      expect: {
        notices: [{ matches: 'need a \\"session\\.evaluator\\" script|session\\.evaluator' }],
      },
    });
    assertEquals(unanswered.failures, []);
  });
});

Deno.test("session case: a prompt that fails makes the case an error, with the explanation so far", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      UserPromptSubmit: [{ hooks: [command("cat > /dev/null")] }],
    }),
  }, async (project) => {
    const result = await run(project, {
      name: "exhausted",
      session: { model: { turns: [] }, prompts: ["hello"] },
      expect: { agentText: { matches: "" } },
    }, { explain: true });
    assertEquals(result.status, "error");
    assert(result.error?.startsWith("Prompt 1 failed: "), result.error);
    assert(result.error?.includes("has no turn 1"), result.error);
    assertEquals(result.explain?.map((f) => f.event), ["UserPromptSubmit"]);
    assertEquals(result.explain?.[0]?.registrations[0]?.matched, true);
  });
});

Deno.test("session case: prompt ids are deterministic, test-prompt-<case>-<k>", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      UserPromptSubmit: [{
        hooks: [command(`sed -n 's/.*"prompt_id":"\\([^"]*\\)".*/prompt id \\1/p'`)],
      }],
    }),
  }, async (project) => {
    const result = await run(project, {
      name: "ids",
      session: { model: { turns: [{ text: "a" }, { text: "b" }] }, prompts: ["one", "two"] },
      expect: { modelSaw: ["prompt id test-prompt-1-1", "prompt id test-prompt-1-2"] },
    });
    assertEquals(result.failures, []);
    assertEquals(result.status, "passed", result.error);
  });
});

Deno.test("session case: hooks are listed in the order their firings started, not finished", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      UserPromptSubmit: [{ hooks: [command("cat > /dev/null")] }],
      // Slow: each finishes after firings that started later.
      Notification: [{ hooks: [command("cat > /dev/null; sleep 0.4")] }],
      PreToolUse: [{ hooks: [command("cat > /dev/null")] }],
      PostToolUse: [{ hooks: [command("cat > /dev/null")] }],
    }),
    "a.txt": "A",
  }, async (project) => {
    const result = await run(project, {
      name: "order",
      session: {
        model: {
          turns: [
            { text: "Reading.", toolCalls: [{ name: "fs_read", input: { file_path: "a.txt" } }] },
            { text: "Done." },
          ],
        },
        prompts: ["one"],
      },
      expect: {
        // The Notification of "Reading." starts once the queued updates went out: after the
        // PreToolUse of the call that follows, before its PostToolUse, which finishes first.
        hooks: [
          { event: "UserPromptSubmit" },
          { event: "PreToolUse", matcher: "fs_read" },
          { event: "Notification", matcher: "agent_message" },
          { event: "PostToolUse", matcher: "fs_read" },
          { event: "Notification", matcher: "agent_message" },
        ],
      },
    });
    assertEquals(result.failures, []);
    assertEquals(result.status, "passed", result.error);
  });
});
