/**
 * Claude Code's exact words in a real session, where no other session test pins them (hooks.md
 * §10, §12.8, §12.9): UserPromptSubmit's `continue:false` notice, a resumed session's
 * SessionStart stdout, and a hook's `updatedInput` that does not fit the tool.
 */
import type { GenerateRequest } from "../../src/model/model.ts";
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { oneCall, recordingModel, text } from "./claude_session_fixture.ts";
import { reply } from "./fake_models.ts";
import { printing, seen, settings } from "./hook_fixtures.ts";
import { noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";

Deno.test('UserPromptSubmit continue:false shows the user "Operation stopped by hook: <stopReason>" and never calls the model', async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        UserPromptSubmit: [[null, printing({ continue: false, stopReason: "out of hours" })]],
      }),
    },
    model: recordingModel([reply("never")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(noticesOf(t.updates, sessionId), ["Operation stopped by hook: out of hours"]);
    assertEquals(requests, [], "the model was not called");
  });
});

Deno.test('a session loaded by a new process reads its SessionStart stdout as "SessionStart:resume hook success: <stdout>"', async () => {
  const hooks = settings({ SessionStart: [["resume", "echo 'welcome back'"]] });
  const state: Record<string, string> = {};
  let sessionId = "";
  await withInMemoryAgent({
    files: { ".claude/settings.json": hooks },
    model: recordingModel([reply("first")]),
  }, async (t) => {
    sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("one") });
    await t.agent.request("session/close", { sessionId });
    const dir = `.local/state/llama-agent/sessions/${sessionId}`;
    for await (const entry of Deno.readDir(`${t.home}/${dir}`)) {
      if (entry.isFile) {
        state[`${dir}/${entry.name}`] = await Deno.readTextFile(`${t.home}/${dir}/${entry.name}`);
      }
    }
  });
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: { ".claude/settings.json": hooks },
    homeFiles: state,
    model: recordingModel([reply("second")], requests),
  }, async (t) => {
    await t.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    await t.agent.request("session/prompt", { sessionId, prompt: text("two") });
    assertStringIncludes(seen(requests[0]!), "SessionStart:resume hook success: welcome back");
  });
});

Deno.test("an updatedInput without the command is refused in Claude Code's words, naming the missing parameter", async () => {
  const requests: GenerateRequest[] = [];
  const rewrite = printing({
    hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { description: "x" } },
  });
  await withInMemoryAgent({
    files: { ".claude/settings.json": settings({ PreToolUse: [["shell", rewrite]] }) },
    model: oneCall("shell", { command: "touch ran.txt" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("run") });
    assertStringIncludes(
      seen(requests[1]!),
      "tool shell: PreToolUse hook for shell returned updatedInput that failed schema " +
        "validation: shell failed due to the following issue:\n" +
        "The required parameter `command` is missing\n" +
        "The tool input from the model was valid; the hook's rewrite of it was not.",
    );
  });
});

Deno.test("an updatedInput with a parameter of the wrong type is refused in Claude Code's words, naming both types", async () => {
  const requests: GenerateRequest[] = [];
  const rewrite = printing({
    hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { file_path: 42 } },
  });
  await withInMemoryAgent({
    files: {
      "a.txt": "A",
      ".claude/settings.json": settings({ PreToolUse: [["fs_read", rewrite]] }),
    },
    model: oneCall("fs_read", { file_path: "a.txt" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("read") });
    assertStringIncludes(
      seen(requests[1]!),
      "tool fs_read: PreToolUse hook for fs_read returned updatedInput that failed schema " +
        "validation: fs_read failed due to the following issue:\n" +
        "The parameter `file_path` type is expected as `string` but provided as `number`\n" +
        "The tool input from the model was valid; the hook's rewrite of it was not.",
    );
  });
});
