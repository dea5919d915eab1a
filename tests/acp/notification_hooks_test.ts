/**
 * Notification at each profile's moments: in the `claude` profile Claude Code's
 * `permission_prompt` when the client is asked to allow a call and `idle_prompt` when the session
 * has waited for its next prompt, never llama-agent's per-message types; in the default profile
 * llama-agent's own, and never Claude Code's.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { oneCall, recordingModel, text } from "./claude_session_fixture.ts";
import { callTool, reply } from "./fake_models.ts";
import type { InMemoryAgent } from "./in_memory_agent.ts";
import { logging, readLog, settings } from "./hook_fixtures.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

/** Waits until `path` holds `count` lines (Notification hooks run beside the session). */
async function logOf(path: string, count: number): Promise<Record<string, unknown>[]> {
  const deadline = performance.now() + 5000;
  while ((await readLog(path)).length < count && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
  }
  return await readLog(path);
}

/** A notifier as Claude Code plugins write it: alerts only when the user is asked. */
const NOTIFIER = {
  ".claude/settings.json": settings({
    Notification: [["permission_prompt", logging("alert.log")], [null, logging("all.log")]],
    UserPromptSubmit: [[null, logging("prompts.log")]],
  }),
};

const BASH = { command: "touch made.txt", description: "Create made.txt" };

/** The agent of the test running: its permission handler reads the project's logs. */
let current: InMemoryAgent;

/** A client that takes `ms` to answer, then allows once. */
const answerAfter = (ms: number) => async () => {
  await new Promise((r) => setTimeout(r, ms));
  return { outcome: { outcome: "selected" as const, optionId: "allow_once" } };
};

Deno.test("claude profile: a notifier filtering on permission_prompt alerts when the user leaves the question open, with Claude Code's payload", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: NOTIFIER,
    mode: "always-ask",
    model: oneCall("Bash", BASH),
    notificationDelays: { permissionMs: 150 },
    onPermission: answerAfter(600),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(t.permissionRequests.length, 1, "the client was asked");
    const [alert] = await logOf(`${t.cwd}/alert.log`, 1);
    const [prompted] = await readLog(`${t.cwd}/prompts.log`);
    assertEquals(alert, {
      session_id: sessionId,
      transcript_path: alert!.transcript_path,
      cwd: t.cwd,
      prompt_id: prompted!.prompt_id,
      permission_mode: "default",
      hook_event_name: "Notification",
      message: "Claude needs your permission to use Bash",
      notification_type: "permission_prompt",
    });
    // Claude Code's key order: message, then notification_type; its dialog passes no title.
    assertEquals(Object.keys(alert!).slice(-2), ["message", "notification_type"]);
    // The model's "done" and the call's text are no notification in Claude Code.
    await logOf(`${t.cwd}/all.log`, 1);
    await new Promise((r) => setTimeout(r, 300));
    const all = await readLog(`${t.cwd}/all.log`);
    assertEquals(all.map((p) => p.notification_type), ["permission_prompt"]);
  });
});

Deno.test("claude profile: a question answered before the user was inactive for the threshold notifies no one", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: NOTIFIER,
    mode: "always-ask",
    model: oneCall("Bash", BASH),
    notificationDelays: { permissionMs: 400 },
    onPermission: answerAfter(50),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(t.permissionRequests.length, 1);
    await new Promise((r) => setTimeout(r, 600));
    assertEquals(await readLog(`${t.cwd}/all.log`), []);
  });
});

Deno.test("claude profile: asked after the user was already inactive for the threshold, the notifier alerts at once", async () => {
  let alertedBeforeAnswer = false;
  await withInMemoryAgent({
    profile: "claude",
    files: NOTIFIER,
    mode: "always-ask",
    // The model works for 1.1 s after the prompt before it calls Bash.
    model: recordingModel([
      async (request) => {
        await new Promise((r) => setTimeout(r, 1100));
        return await callTool("Bash", BASH)(request);
      },
      reply("done"),
    ]),
    notificationDelays: { permissionMs: 1000 },
    // Answered well within the threshold: an alert seen by then was sent as the agent asked.
    onPermission: async () => {
      const deadline = performance.now() + 800;
      while (!alertedBeforeAnswer && performance.now() < deadline) {
        alertedBeforeAnswer = (await readLog(`${current.cwd}/alert.log`)).length === 1;
        await new Promise((r) => setTimeout(r, 20));
      }
      return { outcome: { outcome: "selected" as const, optionId: "allow_once" } };
    },
  }, async (t) => {
    current = t;
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assert(alertedBeforeAnswer, "alerted as the question was put");
  });
});

Deno.test("claude profile: no permission_prompt when nobody is asked (the policy allows the call)", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: NOTIFIER,
    // Reads are allowed without asking.
    model: oneCall("Glob", { pattern: "*.txt" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(t.permissionRequests.length, 0);
    // Past the point where a firing would have been written.
    await new Promise((r) => setTimeout(r, 300));
    assertEquals(await readLog(`${t.cwd}/all.log`), []);
  });
});

Deno.test("claude profile: idle_prompt fires once when no prompt came for the threshold; a prompt before it calls it off", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": settings({
        Notification: [["idle_prompt", logging("idle.log")]],
        UserPromptSubmit: [[null, logging("prompts.log")]],
      }),
    },
    script: { turns: [{ text: "first" }, { text: "second" }] },
    notificationDelays: { idleMs: 250 },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("one") });
    await t.agent.request("session/prompt", { sessionId, prompt: text("two") });
    const [idle] = await logOf(`${t.cwd}/idle.log`, 1);
    // Long enough for a second idle firing, had the first prompt's not been called off.
    await new Promise((r) => setTimeout(r, 500));
    assertEquals((await readLog(`${t.cwd}/idle.log`)).length, 1);
    const prompts = await readLog(`${t.cwd}/prompts.log`);
    assertEquals(idle!.prompt_id, prompts[1]!.prompt_id, "the last prompt's id");
    assertEquals(idle!.message, "Claude is waiting for your input");
    assertEquals(idle!.notification_type, "idle_prompt");
    assert(!("title" in idle!), "Claude Code's idle notification has no title");
  });
});

Deno.test("claude profile: closing the session calls the idle notification off", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: { ".claude/settings.json": settings({ Notification: [[null, logging("all.log")]] }) },
    script: { turns: [{ text: "done" }] },
    notificationDelays: { idleMs: 200 },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("one") });
    await t.agent.request("session/close", { sessionId });
    await new Promise((r) => setTimeout(r, 400));
    assertEquals(await readLog(`${t.cwd}/all.log`), []);
  });
});

Deno.test("llama profile: Notification keeps llama-agent's types, never permission_prompt or idle_prompt", async () => {
  await withInMemoryAgent({
    profile: "llama",
    files: { ".claude/settings.json": settings({ Notification: [[null, logging("all.log")]] }) },
    script: {
      turns: [
        { toolCalls: [{ name: "shell", input: { command: "touch made.txt" } }] },
        { text: "done" },
      ],
    },
    mode: "always-ask",
    notificationDelays: { idleMs: 100, permissionMs: 0 },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(t.permissionRequests.length, 1, "the client was asked");
    const [note] = await logOf(`${t.cwd}/all.log`, 1);
    await new Promise((r) => setTimeout(r, 300));
    assertEquals((await readLog(`${t.cwd}/all.log`)).map((p) => p.notification_type), [
      "agent_message",
    ]);
    assertEquals(Object.keys(note!).slice(-3), ["notification_type", "message", "title"]);
    assertEquals([note!.message, note!.title], ["done", "llama-agent message"]);
  });
});
