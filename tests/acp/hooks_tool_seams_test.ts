import { assert, assertEquals, assertLess, assertStringIncludes } from "../helpers/assert.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import type { GenerateRequest } from "../../src/model/model.ts";
import { parsePermissionRules } from "../../src/agent/permissions/permission_rules.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";
import { callTool, reply, steppedModel } from "./fake_models.ts";
import {
  batches,
  exists,
  lastToolCallUpdate,
  oneCall,
  sleepMarker,
  text,
  untilRunning,
} from "./claude_session_fixture.ts";
import { logging, printing, readLog, seen, settings } from "./hook_fixtures.ts";

const pre = (json: Record<string, unknown>) =>
  printing({ hookSpecificOutput: { hookEventName: "PreToolUse", ...json } });

Deno.test("a PreToolUse deny skips dispatch, fails the call with the hook's reason, and the model hears it", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        PreToolUse: [[
          "fs_write",
          pre({ permissionDecision: "deny", permissionDecisionReason: "no writes today" }),
        ]],
        PostToolUse: [[null, logging("post.log")]],
        PostToolUseFailure: [[null, logging("post.log")]],
      }),
    },
    model: oneCall("fs_write", { file_path: "out.txt", content: "x" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("w") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(await exists(`${t.cwd}/out.txt`), false);
    assertEquals(t.permissionRequests.length, 0, "a denied call asks nobody");
    const final = lastToolCallUpdate(t.updates);
    assertEquals(final.status, "failed");
    assertEquals(final._meta, {
      "llama-agent/hook": { event: "PreToolUse", decision: "deny", reason: "no writes today" },
    });
    assertStringIncludes(
      seen(requests[1]!),
      "tool fs_write: PreToolUse:fs_write hook error: no writes today",
    );
    assertEquals(
      await readLog(`${t.cwd}/post.log`),
      [],
      "a call never dispatched fires no Post event",
    );
  });
});

Deno.test("an exit-2 PreToolUse quotes the command and stderr to the model", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        PreToolUse: [["shell|terminal", "echo 'rm is not allowed' >&2; exit 2"]],
      }),
    },
    model: oneCall("terminal", { command: "rm -rf build" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("clean") });
    assertStringIncludes(
      seen(requests[1]!),
      "PreToolUse:terminal hook error: [echo 'rm is not allowed' >&2; exit 2]: rm is not allowed",
    );
  });
});

Deno.test("matchers see the emitted name: an fs_write matcher does not fire for write_file", async () => {
  await withInMemoryAgent({
    files: { ".claude/settings.json": settings({ PreToolUse: [["fs_write", "exit 2"]] }) },
    model: oneCall("write_file", { path: "out.txt", content: "alias" }),
    onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("w") });
    assertEquals(await Deno.readTextFile(`${t.cwd}/out.txt`), "alias");
  });
});

Deno.test("updatedInput rewrites the call before dispatch, with allow too, and the client sees the new input", async () => {
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        PreToolUse: [[
          "fs_write",
          pre({
            permissionDecision: "allow",
            updatedInput: { file_path: "safe.txt", content: "rewritten" },
          }),
        ]],
        PostToolUse: [[null, logging("post.log")]],
      }),
    },
    model: oneCall("fs_write", { file_path: "danger.txt", content: "original" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("w") });
    assertEquals(await Deno.readTextFile(`${t.cwd}/safe.txt`), "rewritten");
    assertEquals(await exists(`${t.cwd}/danger.txt`), false);
    assertEquals(t.permissionRequests.length, 0, "allow skipped the prompt");
    const rewritten = t.updates.map((u) => u.update).find((u) =>
      u.sessionUpdate === "tool_call_update" && u.rawInput !== undefined
    );
    assert(rewritten?.sessionUpdate === "tool_call_update");
    assertEquals(rewritten.rawInput, { file_path: "safe.txt", content: "rewritten" });
    const [post] = await readLog(`${t.cwd}/post.log`);
    assertEquals(post!.tool_input, { file_path: "safe.txt", content: "rewritten" });
  });
});

Deno.test("an updatedInput that breaks the tool's schema is not dispatched; the model is told", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent(
    {
      files: {
        ".claude/settings.json": settings({
          PreToolUse: [["fs_read", pre({ updatedInput: { nope: 1 } })]],
        }),
      },
      model: oneCall("fs_read", { file_path: "a.txt" }, requests),
    } as Parameters<typeof withInMemoryAgent>[0],
    async (t) => {
      const sessionId = await t.newSession();
      await t.agent.request("session/prompt", { sessionId, prompt: text("r") });
      assertStringIncludes(
        seen(requests[1]!),
        "tool fs_read: PreToolUse hook for fs_read returned updatedInput that failed schema " +
          "validation: fs_read failed due to the following issue:\n",
      );
    },
  );
});

Deno.test("ask makes even an auto-approved read ask the client; allow never beats a rule's deny", async () => {
  const parsed = parsePermissionRules(
    '{"rules":[{"tool":"shell","decision":"deny"}]}',
    "rules.json",
  );
  assert(parsed.ok);
  const denyShell = parsed.rules;
  await withInMemoryAgent({
    files: {
      "a.txt": "A",
      ".claude/settings.json": settings({
        PreToolUse: [["fs_read", pre({ permissionDecision: "ask" })]],
      }),
    },
    model: oneCall("fs_read", { file_path: "a.txt" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("r") });
    assertEquals(t.permissionRequests.length, 1);
  });
  await withInMemoryAgent({
    mode: "rule-based",
    rules: denyShell,
    files: {
      ".claude/settings.json": settings({
        PreToolUse: [["shell", pre({ permissionDecision: "allow" })]],
      }),
    },
    model: oneCall("shell", { command: "touch ran.txt" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("r") });
    assertEquals(await exists(`${t.cwd}/ran.txt`), false);
  });
});

Deno.test("PostToolUse context and block reasons reach the model; PostToolUseFailure fires for a failed call", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      "a.txt": "A",
      ".claude/settings.json": settings({
        PostToolUse: [
          [
            null,
            printing({
              hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "formatted" },
            }),
          ],
          [null, printing({ decision: "block", reason: "lint failed" })],
        ],
        PostToolUseFailure: [[null, `${logging("fail.log")}; echo 'check the path' >&2; exit 2`]],
      }),
    },
    model: batches([[
      { name: "fs_read", input: { file_path: "a.txt" } },
      { name: "fs_read", input: { file_path: "missing.txt" } },
    ]], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("r") });
    const given = seen(requests[1]!);
    assertStringIncludes(
      given,
      "A\n\n<system-reminder>\nPostToolUse:fs_read hook additional context: formatted\n</system-reminder>",
    );
    assertStringIncludes(given, 'PostToolUse:fs_read hook blocking error from command: "printf');
    assertStringIncludes(given, ": lint failed");
    assertStringIncludes(given, "PostToolUseFailure:fs_read hook blocking error from command:");
    assertStringIncludes(given, "check the path");
    const [failure] = await readLog(`${t.cwd}/fail.log`);
    assertEquals([
      failure!.tool_name,
      failure!.is_interrupt,
      typeof failure!.error,
      typeof failure!.duration_ms,
    ], [
      "fs_read",
      false,
      "string",
      "number",
    ]);
  });
});

Deno.test("continue:false from PreToolUse ends the turn with hook_stop_reason and the tool not run", async () => {
  let calls = 0;
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        PreToolUse: [["shell", printing({ continue: false, stopReason: "maintenance window" })]],
      }),
    },
    model: steppedModel([
      (r) => (calls++, callTool("shell", { command: "touch ran.txt" })(r)),
      (r) => (calls++, requests.push(r), reply("x")(r)),
    ]),
    onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(response._meta?.hook_stop_reason, "maintenance window");
    assertEquals(calls, 1, "the model was not called again");
    assertEquals(await exists(`${t.cwd}/ran.txt`), false);
    assertStringIncludes(
      t.text(sessionId),
      "PreToolUse:shell hook stopped continuation: maintenance window",
    );
    // The stop reason is the user's (§10): the model, on the next prompt, only learns the call
    // did not run.
    await t.agent.request("session/prompt", { sessionId, prompt: text("again") });
    const next = seen(requests[0]!);
    assertStringIncludes(next, "The shell call was not run: a hook ended the turn");
    assert(!next.includes("maintenance window"), next);
  });
});

Deno.test("cancel during a running PreToolUse hook answers cancelled at once and kills the hook", async () => {
  const marker = sleepMarker(27);
  await withInMemoryAgent({
    files: { ".claude/settings.json": settings({ PreToolUse: [[null, `sleep ${marker}`]] }) },
    model: oneCall("fs_read", { file_path: "a.txt" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    const prompt = t.agent.request("session/prompt", { sessionId, prompt: text("r") });
    await untilRunning(`sleep ${marker}`);
    const sent = performance.now();
    await t.agent.notify("session/cancel", { sessionId });
    assertEquals((await prompt).stopReason, "cancelled");
    assertLess(performance.now() - sent, 500);
    assertEquals(await livingPidsMatching(`sleep ${marker}`), []);
    const notices = t.updates.filter((u) => u.update.sessionUpdate === "agent_message_chunk");
    assertEquals(notices, [], "a hook killed by the cancel is no news to the user");
  });
});

Deno.test("a prompt hook's ok:false, answered by the session's model, denies the call like a command hook", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [{
            matcher: "shell",
            hooks: [{ type: "prompt", prompt: "Is this command safe? $ARGUMENTS" }],
          }],
        },
      }),
    },
    evaluatorScript: { turns: [{ text: '{"ok": false, "reason": "it deletes files"}' }] },
    model: oneCall("shell", { command: "rm -rf /tmp/x" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("clean") });
    assertStringIncludes(seen(requests[1]!), "PreToolUse:shell hook error: it deletes files");
    assertEquals(t.permissionRequests.length, 0);
  });
});
