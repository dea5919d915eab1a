import { assert, assertEquals } from "../helpers/assert.ts";
import { command, hooksSettings, runEvent, withTempProject } from "./scenario_project.ts";

const DENY = `cat > /dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm -rf here"}}'
`;
const REWRITE = `cat > /dev/null
echo '{"systemMessage":"rewrote it","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -la"},"additionalContext":"ctx one"}}'
`;
const CONTEXT = `cat > /dev/null
echo '{"additionalContext":"ctx two"}'
`;

const GUARD_PROJECT = {
  ".claude/settings.json": hooksSettings({
    PreToolUse: [
      { matcher: "shell", hooks: [command("./hooks/deny.sh")] },
      { matcher: "fs_write", hooks: [command("./hooks/write_guard.sh")] },
    ],
  }),
  "hooks/deny.sh": DENY,
  "hooks/write_guard.sh": "cat > /dev/null\n",
};

Deno.test("event case: a PreToolUse deny passes as deny or block, with exact and regex reasons", async () => {
  await withTempProject(GUARD_PROJECT, async (project) => {
    for (const decision of ["deny", "block"]) {
      const result = await runEvent(project, {
        name: "rm is denied",
        event: "PreToolUse",
        input: { tool_name: "shell", tool_input: { command: "rm -rf /" } },
        expect: {
          decision,
          reason: "no rm -rf here",
          matched: ["deny.sh"],
          notMatched: ["write_guard"],
          exitCodes: [0],
          errors: 0,
        },
      });
      assertEquals(result.failures, []);
      assertEquals(result.status, "passed");
      assertEquals(result.kind, "event");
      assertEquals(result.name, "rm is denied");
    }
    const regex = await runEvent(project, {
      name: "regex",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { reason: { matches: "rm -r[f]" } },
    });
    assertEquals(regex.status, "passed");
  });
});

Deno.test("event case: updatedInput, joined contexts and systemMessage", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ hooks: [command("./hooks/rewrite.sh"), command("./hooks/context.sh")] }],
    }),
    "hooks/rewrite.sh": REWRITE,
    "hooks/context.sh": CONTEXT,
  }, async (project) => {
    const result = await runEvent(project, {
      name: "rewrite",
      event: "PreToolUse",
      input: { tool_name: "shell", tool_input: { command: "ls" } },
      expect: {
        decision: "allow",
        updatedInput: { command: "ls -la" },
        context: "ctx one\nctx two",
        systemMessage: "rewrote it",
        matched: ["rewrite.sh", "context.sh"],
      },
    });
    assertEquals(result.failures, []);

    const none = await runEvent(project, {
      name: "no rewrite expected",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { updatedInput: null },
    });
    assertEquals(none.status, "failed");
    assertEquals(none.failures[0]?.path, "expect.updatedInput");
    assertEquals(none.failures[0]?.actual, { command: "ls -la" });
  });
});

Deno.test("event case: a failing expectation says which, what was expected, what happened, and where", async () => {
  await withTempProject(GUARD_PROJECT, async (project) => {
    const lines: Record<string, number> = {
      "/cases/0/expect/reason": 12,
      "/cases/0/expect/decision": 11,
    };
    const result = await runEvent(project, {
      name: "wrong",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { decision: "allow", reason: "something else" },
    }, { lineOf: (pointer: string) => lines[pointer] });
    assertEquals(result.status, "failed");
    assertEquals(result.failures, [
      {
        path: "expect.decision",
        message: 'Expected the decision "allow", but it is "deny"',
        expected: "allow",
        actual: "deny",
        line: 11,
      },
      {
        path: "expect.reason",
        message: 'Expected the reason "something else", but it is "no rm -rf here"',
        expected: "something else",
        actual: "no rm -rf here",
        line: 12,
      },
    ]);
  });
});

Deno.test("event case: matched and notMatched failures say why a hook did or did not run", async () => {
  await withTempProject(GUARD_PROJECT, async (project) => {
    const result = await runEvent(project, {
      name: "expects the write guard",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { matched: ["write_guard"], notMatched: ["deny.sh", "typo_hook"] },
    });
    assertEquals(result.failures.map((f) => f.path), [
      "expect.matched",
      "expect.notMatched[0]",
      "expect.notMatched[1]",
    ]);
    const [matched, ran, unknown] = result.failures;
    assert(
      matched!.message.includes(
        '"write_guard" did not run: matcher "fs_write" does not match "shell"',
      ),
      matched!.message,
    );
    assert(matched!.message.includes('these ran: "./hooks/deny.sh"'), matched!.message);
    assertEquals(
      ran!.message,
      'Expected "deny.sh" not to run, but it ran (project:/hooks/PreToolUse/0/hooks/0)',
    );
    assert(
      unknown!.message.startsWith('"typo_hook" names no hook of the settings'),
      unknown!.message,
    );
    // A registration id works as a reference too.
    const byId = await runEvent(project, {
      name: "by id",
      event: "PreToolUse",
      input: { tool_name: "fs_write" },
      expect: { matched: ["project:/hooks/PreToolUse/1/hooks/0"] },
    });
    assertEquals(byId.failures, []);
  });
});

Deno.test("event case: exit codes, non-blocking errors and blocks of several hooks", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      UserPromptSubmit: [{
        hooks: [command("./hooks/ok.sh"), command("./hooks/fail.sh"), command("./hooks/block.sh")],
      }],
    }),
    "hooks/ok.sh": "cat > /dev/null\n",
    "hooks/fail.sh": "echo oops >&2\nexit 1\n",
    "hooks/block.sh": "echo 'not that prompt' >&2\nexit 2\n",
  }, async (project) => {
    const result = await runEvent(project, {
      name: "codes",
      event: "UserPromptSubmit",
      input: { prompt: "hello" },
      expect: {
        decision: "block",
        reason: { matches: "not that prompt" },
        exitCodes: [0, 1, 2],
        errors: 1,
        matched: ["ok.sh", "fail.sh", "block.sh"],
      },
    });
    assertEquals(result.failures, []);
    const wrong = await runEvent(project, {
      name: "wrong codes",
      event: "UserPromptSubmit",
      expect: { exitCodes: [0], errors: 0 },
    });
    assertEquals(wrong.failures.map((f) => [f.path, f.actual]), [
      ["expect.exitCodes", [0, 1, 2]],
      ["expect.errors", 1],
    ]);
    assert(wrong.failures[1]!.message.includes("oops"), wrong.failures[1]!.message);
  });
});

Deno.test("event case: a hook that times out is named by timedOut and counts as an error", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      Stop: [{ hooks: [command("./hooks/slow.sh", { timeout: 1 }), command("./hooks/quick.sh")] }],
    }),
    "hooks/slow.sh": "sleep 30 &\nsleep 30\n",
    "hooks/quick.sh": "cat > /dev/null\n",
  }, async (project) => {
    const result = await runEvent(project, {
      name: "slow",
      event: "Stop",
      expect: { timedOut: ["slow.sh"], errors: 1, exitCodes: [0], decision: "none" },
    });
    assertEquals(result.failures, []);
    const wrong = await runEvent(project, {
      name: "quick did not time out",
      event: "Stop",
      expect: { timedOut: ["quick.sh"] },
    });
    assertEquals(
      wrong.failures[0]?.message,
      'Expected "quick.sh" to time out, but it finished (success)',
    );
  });
});

Deno.test("event case: the payload is completed deterministically inside the hermetic HOME", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ hooks: [command('cat > "$CLAUDE_PROJECT_DIR/payload.json"')] }],
    }),
  }, async (project) => {
    const result = await runEvent(project, {
      name: "payload",
      event: "PreToolUse",
      input: { tool_name: "shell", tool_input: { command: "ls" } },
      expect: { decision: "none" },
    }, { index: 3 });
    assertEquals(result.status, "passed");
    const payload = JSON.parse(await Deno.readTextFile(`${project.dir}/payload.json`));
    assertEquals(payload.session_id, "test-session-3");
    assertEquals(payload.prompt_id, "test-prompt-3");
    assertEquals(payload.tool_use_id, "toolu_test_3");
    assertEquals(payload.cwd, project.dir);
    assertEquals(payload.tool_input, { command: "ls" });
    assertEquals(payload.hook_event_name, "PreToolUse");
    assert(
      /\/home\/test-session-3\.jsonl$/.test(
        payload.transcript_path,
      ),
      payload.transcript_path,
    );
    assert(!payload.transcript_path.startsWith(project.realHome), "not the real HOME");
  });
});

Deno.test("event case: an input the event cannot do without makes the case an error", async () => {
  await withTempProject(GUARD_PROJECT, async (project) => {
    const result = await runEvent(project, {
      name: "no tool",
      event: "PreToolUse",
      expect: { errors: 0 },
    });
    assertEquals(result.status, "error");
    assertEquals(
      result.error,
      'Invalid "input": "tool_name" is required for PreToolUse: give it in the input',
    );
  });
});

Deno.test("event case: prompt hooks are not evaluated and say where to test them", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      Stop: [{ hooks: [{ type: "prompt", prompt: "Is the work done?" }] }],
    }),
  }, async (project) => {
    const result = await runEvent(project, {
      name: "prompt hook",
      event: "Stop",
      expect: { errors: 1, decision: "none" },
    }, { explain: true });
    assertEquals(result.failures, []);
    const explained = result.explain?.[0]?.registrations[0]?.result;
    assert(
      String(explained?.["message"]).includes(
        'test them in a session case with a "session.evaluator"',
      ),
      JSON.stringify(explained),
    );
  });
});

Deno.test("event case: --explain lists every registration, each raw result and who decided", async () => {
  await withTempProject(GUARD_PROJECT, async (project) => {
    const result = await runEvent(project, {
      name: "explained",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { decision: "deny" },
    }, { explain: true });
    assertEquals(result.explain?.length, 1);
    const firing = result.explain![0]!;
    assertEquals(firing.event, "PreToolUse");
    assertEquals(firing.matcherValue, "shell");
    assertEquals(firing.registrations.map((r) => [r.id, r.matched, r.why]), [
      ["project:/hooks/PreToolUse/0/hooks/0", true, 'matcher "shell" matches "shell"'],
      ["project:/hooks/PreToolUse/1/hooks/0", false, 'matcher "fs_write" does not match "shell"'],
    ]);
    const ran = firing.registrations[0]!;
    assertEquals(ran.summary, "./hooks/deny.sh");
    assert(ran.source.endsWith("/.claude/settings.json:7"), ran.source);
    assertEquals(ran.result?.["kind"], "exited");
    assertEquals(ran.result?.["exitCode"], 0);
    assert(String(ran.result?.["stdout"]).includes("permissionDecision"));
    assert(String(ran.result?.["outcome"]).startsWith("success, JSON output"));
    assertEquals(firing.registrations[1]!.result, undefined);
    assertEquals(firing.decidedBy, { decision: ["project:/hooks/PreToolUse/0/hooks/0"] });

    const quiet = await runEvent(project, {
      name: "not explained",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { errors: 0 },
    });
    assertEquals(quiet.explain, undefined);
  });
});
