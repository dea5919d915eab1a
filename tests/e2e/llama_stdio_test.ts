/**
 * The real agent over real stdio on the real llama path: generated GGUF models through
 * node-llama-cpp, spoken to by our raw NDJSON harness, which fails on any stray stdout line,
 * schema violation, or tool_call_update for an unannounced call.
 */
import { assert, assertEquals, assertLess, assertStringIncludes } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import {
  READ_NOTES,
  REPLY_TEXT,
  writeEndlessModel,
  writeReplyModel,
  writeToolCallModel,
} from "../helpers/test_models.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { textPrompt as text, withE2eProject } from "./e2e_project.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import { MODEL_LOAD_META_KEY } from "../../src/acp/load_progress.ts";

Deno.test("a text turn streams the model's exact reply and ends end_turn", async () => {
  await withE2eProject({}, async (p) => {
    const agent = await p.startAgent(await writeReplyModel(p.models));
    const sessionId = await p.newSession(agent);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("hi"),
    }) as JsonObject;
    assertEquals(result.stopReason, "end_turn");
    assertEquals(agent.agentText(sessionId), REPLY_TEXT);
    const tokens = (result._meta as { tokens: Record<string, number> }).tokens;
    assert(
      tokens.generated! > 0 && tokens.prompt! > 0 && tokens.evaluated! > 0,
      JSON.stringify(tokens),
    );
    const { code } = await agent.close();
    assertEquals(code, 0);
  });
});

Deno.test("a tool turn: the model calls fs_read, gets the file, and answers", async () => {
  await withE2eProject({ "project/notes.txt": "buy milk\n" }, async (p) => {
    const agent = await p.startAgent(await writeToolCallModel(p.models, READ_NOTES));
    const sessionId = await p.newSession(agent);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("read my notes"),
    }) as JsonObject;
    assertEquals(result.stopReason, "end_turn");
    assertEquals(agent.agentText(sessionId), READ_NOTES.answer);
    const calls = agent.toolCallUpdates(sessionId);
    assertEquals(calls.map((u) => [u.sessionUpdate, u.status]), [
      ["tool_call", "pending"],
      ["tool_call_update", "in_progress"],
      ["tool_call_update", "completed"],
    ]);
    assertEquals(calls[0]!._meta, { tool_name: "fs_read" });
    assertStringIncludes(JSON.stringify(calls[2]!.content), "buy milk");
    await agent.close();
  });
});

Deno.test("cancel during generation answers cancelled within 500 ms", async () => {
  await withE2eProject({}, async (p) => {
    const agent = await p.startAgent(await writeEndlessModel(p.models));
    const sessionId = await p.newSession(agent);
    const prompt = agent.request("session/prompt", { sessionId, prompt: text("talk") });
    await waitUntil(() => agent.agentText(sessionId).length > 20, "streamed text");
    const sent = performance.now();
    await agent.notify("session/cancel", { sessionId });
    const response = await prompt;
    assertLess(performance.now() - sent, 500);
    assertEquals((response.result as JsonObject).stopReason, "cancelled");
    await agent.close();
  });
});

Deno.test("cancel during a running shell answers cancelled within 500 ms and leaves no process", async () => {
  const seconds = `29.${Math.floor(Math.random() * 1e6)}`;
  await withE2eProject({}, async (p) => {
    const model = await writeToolCallModel(p.models, {
      toolName: "shell",
      params: { command: `sleep ${seconds}` },
      answer: "done",
    });
    const agent = await p.startAgent(model);
    agent.onRequest(
      "session/request_permission",
      () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    );
    const sessionId = await p.newSession(agent);
    const prompt = agent.request("session/prompt", { sessionId, prompt: text("wait") });
    await waitUntil(
      async () => (await livingPidsMatching(`sleep ${seconds}`)).length > 0,
      "the shell to start",
    );
    const sent = performance.now();
    await agent.notify("session/cancel", { sessionId });
    const response = await prompt;
    assertLess(performance.now() - sent, 500);
    assertEquals((response.result as JsonObject).stopReason, "cancelled");
    assertEquals(await livingPidsMatching(`sleep ${seconds}`), []);
    assertEquals(agent.toolCallUpdates(sessionId).at(-1)?.status, "failed");
    await agent.close();
  });
});

Deno.test("session/load in a new agent process replays the same updates the live turn sent", async () => {
  await withE2eProject({ "project/notes.txt": "buy milk\n" }, async (p) => {
    const model = await writeToolCallModel(p.models, READ_NOTES);
    const first = await p.startAgent(model);
    const sessionId = await p.newSession(first);
    await first.call("session/prompt", { sessionId, prompt: text("read my notes") });
    // The model's load progress is shown live only: it is not the conversation.
    // Session state (commands, the context meter, the title) is sent as it is, not replayed.
    const isState = (u: JsonObject) =>
      u.sessionUpdate === "available_commands_update" || u.sessionUpdate === "usage_update" ||
      u.sessionUpdate === "session_info_update";
    const live = first.sessionUpdates(sessionId).filter((u) =>
      !isState(u) &&
      !(typeof u._meta === "object" && u._meta !== null && MODEL_LOAD_META_KEY in u._meta)
    );
    await first.close();

    const second = await p.startAgent(model);
    await second.call("session/load", { sessionId, cwd: p.cwd, mcpServers: [] });
    const updates = second.sessionUpdates(sessionId);
    const replayed = updates.filter((u) => !isState(u));
    assertEquals(replayed[0], {
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: "read my notes" },
    });
    assertEquals(replayed.slice(1), live);
    assertEquals(
      updates.filter((u) => u.sessionUpdate === "session_info_update").map((u) => u.title),
      ["read my notes"],
    );
    // The conversation goes on from the transcript: a second prompt works in the loaded session.
    const again = await second.call("session/prompt", {
      sessionId,
      prompt: text("again"),
    }) as JsonObject;
    assertEquals(again.stopReason, "end_turn");
    await second.close();
  });
});

Deno.test("an unknown session is -32002; a malformed line is -32700 and the connection lives on", async () => {
  await withE2eProject({}, async (p) => {
    const agent = await p.startAgent(await writeReplyModel(p.models));
    const unknown = await agent.request("session/prompt", { sessionId: "nope", prompt: text("x") });
    assertEquals(unknown.error?.code, -32002);
    assertEquals(unknown.error?.data, { sessionId: "nope" });
    await agent.sendRaw('{"jsonrpc":"2.0","id":99,"method":');
    await waitUntil(
      () => agent.messages.some((m) => m.from === "agent" && m.line.includes("-32700")),
      "-32700",
    );
    const unknownMethod = await agent.request("_llama/nothing", {});
    assertEquals(unknownMethod.error?.code, -32601);
    const sessionId = await p.newSession(agent);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("still there?"),
    }) as JsonObject;
    assertEquals(result.stopReason, "end_turn");
    await agent.close();
  });
});

for (const escape of ["../outside/secret.txt", "link_to_secret"]) {
  Deno.test(`fs_read of "${escape}" is refused: the file outside the allowed roots is never read`, async () => {
    await withE2eProject({ "outside/secret.txt": "TOP-SECRET-42\n" }, async (p) => {
      await Deno.symlink(`${p.outside}/secret.txt`, `${p.cwd}/link_to_secret`);
      const model = await writeToolCallModel(p.models, {
        toolName: "fs_read",
        params: { file_path: escape },
        answer: "refused",
      });
      const agent = await p.startAgent(model);
      const sessionId = await p.newSession(agent);
      const result = await agent.call("session/prompt", {
        sessionId,
        prompt: text("read"),
      }) as JsonObject;
      assertEquals(result.stopReason, "end_turn");
      const final = agent.toolCallUpdates(sessionId).at(-1)!;
      assertEquals(final.status, "failed");
      assertStringIncludes(JSON.stringify(final.content), "outside the allowed directories");
      assert(
        !agent.messages.some((m) => m.line.includes("TOP-SECRET-42")),
        "the secret never left the disk",
      );
      await agent.close();
    });
  });
}

Deno.test("a client that goes away mid-command leaves no process behind", async () => {
  const seconds = `28.${Math.floor(Math.random() * 1e6)}`;
  const rules = JSON.stringify({ rules: [{ tool: "shell", decision: "allow" }] });
  await withE2eProject({ "project/rules.json": rules }, async (p) => {
    const model = await writeToolCallModel(p.models, {
      toolName: "shell",
      // The shell ignores SIGTERM: only the SIGKILL that follows the grace time ends it.
      params: { command: `trap "" TERM; sleep ${seconds}; sleep ${seconds}` },
      answer: "done",
    });
    const agent = await p.startAgent(model, [
      "--permission-policy",
      "rule-based",
      "--rules",
      "rules.json",
    ]);
    const sessionId = await p.newSession(agent);
    const prompt = agent.request("session/prompt", { sessionId, prompt: text("wait") });
    prompt.catch(() => {}); // never answered: the client leaves first
    await waitUntil(
      async () => (await livingPidsMatching(`sleep ${seconds}`)).length > 0,
      "the shell to start",
    );
    const { code } = await agent.close({ allowViolations: true });
    assertEquals(code, 0);
    assertEquals(await livingPidsMatching(`sleep ${seconds}`), []);
  });
});
