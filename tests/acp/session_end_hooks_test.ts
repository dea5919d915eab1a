/**
 * SessionEnd in the `claude` profile: once per session, on `session/close` or when the agent
 * shuts down, with `reason: "other"`, bounded by Claude Code's budget (1.5 s, raised by a hook's
 * own `timeout`, or set by CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS: session_end_stdio_test.ts).
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { sessionEndBudget } from "../../src/acp/session/session_end_hooks.ts";
import { exists, oneCall, sleepMarker, text, untilRunning } from "./claude_session_fixture.ts";
import { readLog, settings } from "./hook_fixtures.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

/** A hook command that appends its stdin (one line) to `path`, an absolute path. */
function loggingTo(path: string): string {
  return `cat >> '${path}'; echo >> '${path}'`;
}

/** Runs `fn` with a directory that outlives the agent (its temp dirs go when it shuts down). */
async function withOuterDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "session_end_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("SessionEnd budget: 1.5 s, raised by a hook's own timeout up to 60 s, or the environment's", () => {
  assertEquals(sessionEndBudget([], undefined), { ms: 1500, fromEnv: false });
  assertEquals(sessionEndBudget([undefined, 1], undefined), { ms: 1500, fromEnv: false });
  assertEquals(sessionEndBudget([undefined, 10], undefined), { ms: 10_000, fromEnv: false });
  assertEquals(sessionEndBudget([120], undefined), { ms: 60_000, fromEnv: false });
  assertEquals(sessionEndBudget([120], "2500"), { ms: 2500, fromEnv: true });
  for (const ignored of ["0", "-1", "not-a-number", "1.5", ""]) {
    assertEquals(sessionEndBudget([], ignored), { ms: 1500, fromEnv: false }, ignored);
  }
});

Deno.test("SessionEnd budget: an environment value past what a timer holds waits long, never kills at once", () => {
  const budget = sessionEndBudget([], "3000000000");
  assert(budget.fromEnv);
  assert(budget.ms > 24 * 24 * 3600_000, `a budget of ${budget.ms} ms is not "long"`);
  assert(budget.ms + 2_000 < 2 ** 31, `a budget of ${budget.ms} ms overflows a timer`);
});

Deno.test("SessionEnd fires on session/close with reason other, in Claude Code's payload", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": settings({
        SessionEnd: [
          [null, `cat >> "$CLAUDE_PROJECT_DIR/end.log"; echo >> "$CLAUDE_PROJECT_DIR/end.log"`],
          ["other", 'echo other >> "$CLAUDE_PROJECT_DIR/matched.log"'],
          ["clear", 'echo clear >> "$CLAUDE_PROJECT_DIR/matched.log"'],
        ],
      }),
    },
  }, async (t) => {
    const sessionId = await t.newSession();
    assertEquals(await readLog(`${t.cwd}/end.log`), [], "not before the session ends");
    await t.agent.request("session/close", { sessionId });
    const [payload, ...more] = await readLog(`${t.cwd}/end.log`);
    assertEquals(more, []);
    // Claude Code 2.1.332: permission_mode, and no prompt_id (SessionEnd belongs to no prompt).
    assertEquals(Object.keys(payload!), [
      "session_id",
      "transcript_path",
      "cwd",
      "permission_mode",
      "hook_event_name",
      "reason",
    ]);
    assertEquals([payload!.session_id, payload!.hook_event_name, payload!.reason], [
      sessionId,
      "SessionEnd",
      "other",
    ]);
    assertEquals(
      await Deno.readTextFile(`${t.cwd}/matched.log`),
      "other\n",
      "the matcher is tested against the reason",
    );
  });
});

Deno.test("SessionEnd fires when the agent shuts down, and once only for a session closed before", async () => {
  await withOuterDir(async (dir) => {
    let closedId = "";
    let openId = "";
    await withInMemoryAgent({
      profile: "claude",
      files: {
        ".claude/settings.json": settings({ SessionEnd: [[null, loggingTo(`${dir}/end.log`)]] }),
      },
    }, async (t) => {
      closedId = await t.newSession();
      openId = await t.newSession();
      await t.agent.request("session/close", { sessionId: closedId });
    });
    const ended = (await readLog(`${dir}/end.log`)).map((payload) => payload.session_id);
    assertEquals(ended, [closedId, openId]);
  });
});

Deno.test("SessionEnd: a hook still running at the 1.5 s budget is killed, group and all, and close returns", async () => {
  const marker = sleepMarker(30);
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": settings({
        SessionEnd: [[
          null,
          `touch "$CLAUDE_PROJECT_DIR/started"; sleep ${marker}; touch "$CLAUDE_PROJECT_DIR/late"`,
        ]],
      }),
    },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/close", { sessionId });
    assert(await exists(`${t.cwd}/started`), "the hook ran");
    assertEquals(await livingPidsMatching(`sleep ${marker}`), [], "nothing of it survives");
    assertEquals(await exists(`${t.cwd}/late`), false, "it never got past its sleep");
    // Its own 1.5 s timeout and the budget end together: either may be the one the log names.
    assert(
      t.logs.some((line) => line.startsWith("SessionEnd hook") && line.includes(" 1.5 s")),
      `the log says why: ${t.logs.join("\n")}`,
    );
  });
});

Deno.test("SessionEnd: a hook's own timeout raises the budget", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": JSON.stringify({
        hooks: {
          SessionEnd: [{
            hooks: [{
              type: "command",
              command: 'sleep 2; touch "$CLAUDE_PROJECT_DIR/finished"',
              timeout: 20,
            }],
          }],
        },
      }),
    },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/close", { sessionId });
    assert(await exists(`${t.cwd}/finished`), "it ran past 1.5 s to its end");
  });
});

Deno.test("SessionEnd: nothing a hook says reaches the client once the session is closed", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": settings({
        SessionEnd: [
          [null, `printf '%s' '{"systemMessage":"bye from the hook"}'`],
          [null, "echo 'it broke' >&2; exit 1"],
        ],
      }),
    },
  }, async (t) => {
    const sessionId = await t.newSession();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = t.updates.length;
    await t.agent.request("session/close", { sessionId });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assertEquals(t.updates.slice(before), []);
    assert(t.logs.some((line) => line.includes("it broke")), "a failure goes to the log");
  });
});

Deno.test("session/close during a running prompt: the prompt answers cancelled, nothing is sent after, PostToolBatch does not fire, SessionEnd fires once", async () => {
  const marker = sleepMarker(30);
  await withOuterDir(async (dir) => {
    let sessionId = "";
    await withInMemoryAgent({
      profile: "claude",
      files: {
        ".claude/settings.json": settings({
          SessionEnd: [[null, loggingTo(`${dir}/end.log`)]],
          PostToolBatch: [[null, loggingTo(`${dir}/batch.log`)]],
        }),
      },
      model: oneCall("Bash", { command: `sleep ${marker}; touch late` }),
    }, async (t) => {
      sessionId = await t.newSession();
      const prompt = t.agent.request("session/prompt", { sessionId, prompt: text("go") });
      await untilRunning(`sleep ${marker}`);
      await t.agent.request("session/close", { sessionId });
      const sentBeforeClose = t.updates.filter((u) => u.sessionId === sessionId).length;
      assertEquals((await prompt).stopReason, "cancelled");
      // A round trip after the close: anything the closed session still sent has arrived.
      await t.newSession();
      assertEquals(
        t.updates.filter((u) => u.sessionId === sessionId).length,
        sentBeforeClose,
        "no update after the close",
      );
      assertEquals(await livingPidsMatching(`sleep ${marker}`), [], "the tool was killed");
      assertEquals(await exists(`${t.cwd}/late`), false, "it never got past its sleep");
      assertEquals(
        (await readLog(`${dir}/end.log`)).map((payload) => payload.session_id),
        [sessionId],
        "SessionEnd fired on the close",
      );
    });
    assertEquals(await readLog(`${dir}/batch.log`), [], "a batch cut short fires no PostToolBatch");
    const ended = (await readLog(`${dir}/end.log`)).filter((p) => p.session_id === sessionId);
    assertEquals(ended.length, 1, "not again when the agent shuts down");
    assertEquals(
      "prompt_id" in ended[0]!,
      false,
      "after a prompt too, SessionEnd has no prompt_id",
    );
  });
});

Deno.test("llama profile: SessionEnd never fires", async () => {
  await withOuterDir(async (dir) => {
    await withInMemoryAgent({
      files: {
        ".claude/settings.json": settings({ SessionEnd: [[null, loggingTo(`${dir}/end.log`)]] }),
      },
    }, async (t) => {
      const sessionId = await t.newSession();
      await t.agent.request("session/close", { sessionId });
      await t.newSession();
    });
    assertEquals(await readLog(`${dir}/end.log`), []);
  });
});
