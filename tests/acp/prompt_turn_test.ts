import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";
import { callTool, reply, steppedModel } from "./fake_models.ts";

Deno.test("a text turn streams the model's reply and ends end_turn with token counts", async () => {
  await withInMemoryAgent(
    { script: { turns: [{ text: "Hello from the script." }] } },
    async (t) => {
      const sessionId = await t.newSession();
      const response = await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "hi" }],
      });
      assertEquals(response.stopReason, "end_turn");
      assertEquals(t.text(sessionId), "Hello from the script.");
      const tokens = (response._meta as { tokens: { generated: number } }).tokens;
      assertEquals(tokens.generated, 4);
    },
  );
});

Deno.test("a tool turn announces the call, runs fs_read, and gives the result back to the model", async () => {
  await withInMemoryAgent({
    files: { "notes.txt": "remember the milk\n" },
    script: {
      turns: [
        { text: "Reading.", toolCalls: [{ name: "fs_read", input: { file_path: "notes.txt" } }] },
        { text: "It says to remember the milk." },
      ],
    },
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read" }],
    });
    assertEquals(response.stopReason, "end_turn");
    const kinds = t.kinds(sessionId).filter((k) => k !== "available_commands_update");
    assertEquals(kinds, [
      "session_info_update",
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
      "tool_call_update",
      "agent_message_chunk",
      "agent_message_chunk",
      "agent_message_chunk",
      "agent_message_chunk",
      "agent_message_chunk",
      "agent_message_chunk",
    ]);
    const toolUpdates = t.updates.map((u) => u.update).filter((u) =>
      u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update"
    );
    const call = toolUpdates[0]!;
    assert(call.sessionUpdate === "tool_call");
    assertEquals([call.kind, call.status, call.title], ["read", "pending", "Read notes.txt"]);
    assertEquals(call._meta, { tool_name: "fs_read" });
    const done = toolUpdates[2]!;
    assert(done.sessionUpdate === "tool_call_update");
    assertEquals(done.status, "completed");
    assertEquals(t.permissionRequests.length, 0, "auto-approve-reads runs reads without asking");
  });
});

Deno.test("a denied call never runs, fails its update, and the model hears it was denied", async () => {
  let secondTurnSawDenial = false;
  await withInMemoryAgent({
    model: steppedModel([
      callTool("fs_write", { file_path: "out.txt", content: "x" }),
      (request) => {
        const last = request.conversation.at(-1);
        secondTurnSawDenial = last?.role === "assistant" &&
          last.segments.some((s) => s.type === "tool_call" && s.result.includes("denied"));
        return reply("ok")(request);
      },
    ]),
    onPermission: () => ({ outcome: { outcome: "selected", optionId: "reject_once" } }),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "w" }],
    });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(t.permissionRequests.length, 1);
    const asked = t.permissionRequests[0]!;
    assertEquals(asked.options.map((o) => o.optionId), [
      "allow_once",
      "allow_always",
      "reject_once",
      "reject_always",
    ]);
    assertEquals(asked.toolCall.content, [{
      type: "diff",
      path: `${t.cwd}/out.txt`,
      oldText: null,
      newText: "x",
    }]);
    const exists = await Deno.stat(`${t.cwd}/out.txt`).then(() => true, () => false);
    assertEquals(exists, false, "the file was not written");
    const final = t.updates.map((u) => u.update).filter((u) =>
      u.sessionUpdate === "tool_call_update"
    ).at(-1);
    assert(final?.sessionUpdate === "tool_call_update");
    assertEquals(final.status, "failed");
    assert(secondTurnSawDenial, "the model was told the call was denied");
  });
});

Deno.test("an unknown session is -32002 with the id in data", async () => {
  await withInMemoryAgent({}, async (t) => {
    await t.newSession();
    const error = await t.agent.request("session/prompt", {
      sessionId: "nope",
      prompt: [{ type: "text", text: "x" }],
    }).then(() => undefined, (e) => e);
    assertEquals([error?.code, error?.data], [-32002, { sessionId: "nope" }]);
  });
});

Deno.test("a relative or outside cwd is refused with -32602 and a clear message", async () => {
  await withInMemoryAgent({}, async (t) => {
    await t.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const relative = await t.agent.request("session/new", { cwd: "project", mcpServers: [] }).then(
      () => undefined,
      (e) => e,
    );
    assertEquals(relative?.code, -32602);
    assertStringIncludes(relative.message, '"cwd" must be an absolute path');
    const outside = await t.agent.request("session/new", { cwd: "/", mcpServers: [] }).then(
      () => undefined,
      (e) => e,
    );
    assertEquals(outside?.code, -32602);
    assertStringIncludes(outside.message, "outside the allowed directories");
  });
});
