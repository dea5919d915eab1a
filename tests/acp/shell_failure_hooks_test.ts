/**
 * A `shell` command that does not succeed is a failed call in the default profile, as in Claude
 * Code (hooks.md §12.1): PostToolUseFailure fires instead of PostToolUse, with Claude Code's
 * `error` text, the model reads that same text as an error result, the client sees the call
 * `failed`, and what the failure hooks say reaches the model after it.
 */
import type { GenerateRequest } from "../../src/model/model.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { POST_FAILURE_KEYS } from "../helpers/payload_keys.ts";
import {
  lastToolCallUpdate,
  oneCall,
  text,
  TURN_KEYS,
  untilRunning,
} from "./claude_session_fixture.ts";
import { logging, printing, readLog, settings } from "./hook_fixtures.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

/** The result the model read for the first tool call of `request`. */
function toolResult(request: GenerateRequest): string {
  for (const item of request.conversation) {
    if (item.role !== "assistant") continue;
    for (const segment of item.segments) {
      if (segment.type === "tool_call") return segment.result;
    }
  }
  throw new Error("the model was given no tool result");
}

const LOGGED = settings({
  PostToolUse: [["shell", logging("post.log")]],
  PostToolUseFailure: [["shell", logging("failure.log")]],
});

Deno.test("a shell exit 3 fires PostToolUseFailure with `Exit code 3\\noops`, not PostToolUse, and the model reads the same text", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: { ".claude/settings.json": LOGGED },
    model: oneCall("shell", { command: "echo oops >&2; exit 3" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    const [failure, ...more] = await readLog(`${t.cwd}/failure.log`);
    assertEquals(more, []);
    assertEquals(Object.keys(failure!), [
      ...TURN_KEYS,
      "hook_event_name",
      ...POST_FAILURE_KEYS,
    ]);
    assertEquals(failure!.hook_event_name, "PostToolUseFailure");
    assertEquals(failure!.tool_input, { command: "echo oops >&2; exit 3" });
    assertEquals([failure!.error, failure!.is_interrupt], ["Exit code 3\noops", false]);
    assertEquals(await readLog(`${t.cwd}/post.log`), [], "a failed call fires no PostToolUse");
    assertEquals(toolResult(requests[1]!), "Exit code 3\noops");
    assertEquals(lastToolCallUpdate(t.updates).status, "failed");
  });
});

Deno.test("PostToolUseFailure contexts (joined) and an exit-2 block on a failed shell call reach the model after its error", async () => {
  const requests: GenerateRequest[] = [];
  const context = (text: string) =>
    printing({
      hookSpecificOutput: { hookEventName: "PostToolUseFailure", additionalContext: text },
    });
  const block = "echo 'do not retry blindly' >&2; exit 2";
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        PostToolUseFailure: [
          ["shell", context("run make clean first")],
          ["shell", context("then check the disk")],
          ["shell", block],
        ],
      }),
    },
    model: oneCall("shell", { command: "echo oops >&2; exit 3" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(
      toolResult(requests[1]!),
      "Exit code 3\noops\n\n" +
        "<system-reminder>\n" +
        "PostToolUseFailure:shell hook additional context: run make clean first\n" +
        "then check the disk\n" +
        "</system-reminder>\n\n" +
        "<system-reminder>\n" +
        `PostToolUseFailure:shell hook blocking error from command: "${block}": ` +
        `[${block}]: do not retry blindly\n` +
        "</system-reminder>",
    );
  });
});

Deno.test("a shell command past its timeout fails with Claude Code's words: exit code 143 and the timeout", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: { ".claude/settings.json": LOGGED },
    model: oneCall("shell", { command: "echo begun; sleep 30", timeout: 300 }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const expected = "Exit code 143\nbegun\nCommand timed out after 0.3s";
    const [failure] = await readLog(`${t.cwd}/failure.log`);
    assertEquals([failure!.error, failure!.is_interrupt], [expected, false]);
    assertEquals(toolResult(requests[1]!), expected);
  });
});

Deno.test("a shell command killed by a signal fails with the status a shell reports for it", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: { ".claude/settings.json": LOGGED },
    model: oneCall("shell", { command: "echo dying; kill -KILL $$" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const [failure] = await readLog(`${t.cwd}/failure.log`);
    assertEquals(failure!.error, "Exit code 137\ndying");
    assertEquals(toolResult(requests[1]!), "Exit code 137\ndying");
    assertEquals(await readLog(`${t.cwd}/post.log`), []);
  });
});

Deno.test("a cancelled shell command fires PostToolUseFailure with is_interrupt true and Claude Code's words", async () => {
  const marker = `${31 + Math.random()}`.slice(0, 10);
  await withInMemoryAgent({
    files: { ".claude/settings.json": LOGGED },
    model: oneCall("shell", { command: `sleep ${marker}` }),
  }, async (t) => {
    const sessionId = await t.newSession();
    const prompt = t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    await untilRunning(`sleep ${marker}`);
    await t.agent.notify("session/cancel", { sessionId });
    assertEquals((await prompt).stopReason, "cancelled");
    // After a cancel the Post hooks run beside the ended turn: wait for the log.
    const deadline = performance.now() + 5000;
    while ((await readLog(`${t.cwd}/failure.log`)).length === 0) {
      assert(performance.now() < deadline, "PostToolUseFailure never fired");
      await new Promise((r) => setTimeout(r, 10));
    }
    const [failure] = await readLog(`${t.cwd}/failure.log`);
    assertEquals(
      [failure!.error, failure!.is_interrupt],
      ["Command was cancelled by the user", true],
    );
    assertEquals(lastToolCallUpdate(t.updates).status, "failed");
  });
});
