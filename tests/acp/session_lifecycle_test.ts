import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

const TOOL_SCRIPT = {
  turns: [
    {
      thought: "Look first.",
      text: "Reading.",
      toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }],
    },
    { text: "It says hi." },
    { text: "Second answer." },
  ],
};

Deno.test("session/load replays exactly the updates the live turns sent, user messages first", async () => {
  await withInMemoryAgent({ files: { "notes.txt": "hi\n" }, script: TOOL_SCRIPT }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read it" }],
    });
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "again" }],
    });
    // Session state, not the thread: the title is told once it is known, and again after a load.
    const isState = (u: SessionUpdate) =>
      u.sessionUpdate === "available_commands_update" || u.sessionUpdate === "session_info_update";
    const title: SessionUpdate = { sessionUpdate: "session_info_update", title: "read it" };
    assertEquals(t.updates.filter((u) => u.update.sessionUpdate === "session_info_update")
      .map((u) => u.update), [title]);
    const live = t.updates.map((u) => u.update).filter((u) => !isState(u));
    t.updates.length = 0;
    const loaded = await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    assertEquals(loaded.modes?.currentModeId, "auto-approve-reads");
    assertEquals(t.updates.filter((u) => u.update.sessionUpdate === "session_info_update")
      .map((u) => u.update), [title]);
    const replayed = t.updates.map((u) => u.update).filter((u) => !isState(u));
    const userChunks = replayed.filter((u) => u.sessionUpdate === "user_message_chunk");
    assertEquals(userChunks.map((u) => u.sessionUpdate === "user_message_chunk" && u.content), [
      { type: "text", text: "read it" },
      { type: "text", text: "again" },
    ]);
    assertEquals(replayed.filter((u) => u.sessionUpdate !== "user_message_chunk"), live);
    assertEquals(replayed[0]?.sessionUpdate, "user_message_chunk");
  });
});

Deno.test("a session loaded by a new agent process continues the same conversation", async () => {
  await withInMemoryAgent({ files: { "notes.txt": "hi\n" }, script: TOOL_SCRIPT }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read it" }],
    });
    await t.agent.request("session/close", { sessionId });
    const closed = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "x" }],
    })
      .then(() => undefined, (e) => e);
    assertEquals(closed?.code, -32002, "a closed session is gone from memory");
    await t.agent.request("session/resume", { sessionId, cwd: t.cwd });
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "more" }],
    });
    assertEquals(response.stopReason, "end_turn");
    const lines = (await Deno.readTextFile(transcriptPathFor(sessionId, t.env))).trim().split("\n")
      .map((l) => JSON.parse(l));
    assertEquals(lines.filter((r) => r.type === "prompt").map((r) => r.text), ["read it", "more"]);
    // A fresh model session replays the script from its first turn: the call ids keep counting.
    assertEquals(lines.filter((r) => r.type === "tool_call").map((r) => r.toolCallId), [
      "call_1",
      "call_2",
    ]);
    assertEquals(lines.filter((r) => r.type === "session").length, 1);
  });
});

Deno.test("session/load of an unknown id is -32002, and an id that could escape the state dir too", async () => {
  await withInMemoryAgent({}, async (t) => {
    await t.newSession();
    for (const sessionId of ["missing", "../../etc"]) {
      const error = await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] })
        .then(() => undefined, (e) => e);
      assertEquals([error?.code, error?.data], [-32002, { sessionId }]);
    }
  });
});

Deno.test("session/list shows persisted sessions with title and cwd, filtered by cwd", async () => {
  await withInMemoryAgent({ script: { turns: [{ text: "a" }, { text: "b" }] } }, async (t) => {
    const first = await t.newSession();
    await t.agent.request("session/prompt", {
      sessionId: first,
      prompt: [{ type: "text", text: "First question\nmore" }],
    });
    const second = (await t.agent.request("session/new", { cwd: t.cwd, mcpServers: [] })).sessionId;
    const listed = await t.agent.request("session/list", { cwd: t.cwd });
    const byId = new Map(listed.sessions.map((s) => [s.sessionId, s]));
    assertEquals(byId.get(first)?.title, "First question");
    assertEquals(byId.get(first)?.cwd, t.cwd);
    assert(byId.has(second));
    assertEquals((await t.agent.request("session/list", { cwd: "/elsewhere" })).sessions, []);
  });
});

Deno.test("set_mode and set_config_option keep the mode in sync and announce changes", async () => {
  await withInMemoryAgent({
    clientCapabilities: { session: { configOptions: { boolean: {} } } },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/set_mode", { sessionId, modeId: "always-ask" });
    await new Promise((r) => setTimeout(r, 10));
    const kinds = t.kinds(sessionId);
    assert(kinds.includes("current_mode_update") && kinds.includes("config_option_update"));
    const set = await t.agent.request("session/set_config_option", {
      sessionId,
      configId: "mode",
      value: "rule-based",
    });
    assertEquals(set.configOptions.find((o) => o.id === "mode")?.currentValue, "rule-based");
    await new Promise((r) => setTimeout(r, 10));
    const modeUpdates = t.updates.map((u) => u.update).flatMap((u) =>
      u.sessionUpdate === "current_mode_update" ? [u.currentModeId] : []
    );
    assertEquals(modeUpdates, ["always-ask", "rule-based"]);
    const flag = await t.agent.request("session/set_config_option", {
      sessionId,
      configId: "stop_hooks_continue",
      type: "boolean",
      value: true,
    });
    assertEquals(
      flag.configOptions.find((o) => o.id === "stop_hooks_continue")?.currentValue,
      true,
    );
    const bad = await t.agent.request("session/set_mode", { sessionId, modeId: "yolo" }).then(
      () => undefined,
      (e) => e,
    );
    assertEquals(bad?.code, -32602);
    assertStringIncludes(bad.message, 'unknown mode "yolo"');
    const badOption = await t.agent.request("session/set_config_option", {
      sessionId,
      configId: "x",
      value: "y",
    })
      .then(() => undefined, (e) => e);
    assertEquals(badOption?.code, -32602);
  });
});

Deno.test("allow_always is remembered for that tool name for the rest of the session", async () => {
  await withInMemoryAgent({
    script: {
      turns: [
        { toolCalls: [{ name: "fs_write", input: { file_path: "a.txt", content: "1" } }] },
        { toolCalls: [{ name: "fs_write", input: { file_path: "b.txt", content: "2" } }] },
        { text: "done" },
      ],
    },
    onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_always" } }),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "w" }],
    });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(t.permissionRequests.length, 1);
    assertEquals(await Deno.readTextFile(`${t.cwd}/a.txt`), "1");
    assertEquals(await Deno.readTextFile(`${t.cwd}/b.txt`), "2");
  });
});

Deno.test("the tool-round cap ends the turn with max_turn_requests", async () => {
  const call = { toolCalls: [{ name: "fs_read", input: { file_path: "notes.txt" } }] };
  await withInMemoryAgent({
    files: { "notes.txt": "x" },
    maxToolRounds: 2,
    script: { turns: [call, call, call] },
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "loop" }],
    });
    assertEquals(response.stopReason, "max_turn_requests");
    assertEquals(t.kinds(sessionId).filter((k) => k === "tool_call").length, 2);
  });
});

Deno.test("a second prompt while one runs is refused; an unknown tool fails without ending the turn", async () => {
  await withInMemoryAgent({
    script: { turns: [{ toolCalls: [{ name: "browser", input: {} }] }, { text: "ok" }] },
  }, async (t) => {
    const sessionId = await t.newSession();
    const first = t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "a" }],
    });
    const second = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "b" }],
    })
      .then(() => undefined, (e) => e);
    assertEquals(second?.code, -32602);
    assertEquals((await first).stopReason, "end_turn");
    const failed = t.updates.map((u) => u.update).find((u) =>
      u.sessionUpdate === "tool_call_update"
    );
    assert(failed?.sessionUpdate === "tool_call_update" && failed.status === "failed");
    assertStringIncludes(JSON.stringify(failed.content), 'Unknown tool \\"browser\\"');
  });
});

Deno.test("a model that cannot load fails the prompt with its message, and the connection lives on", async () => {
  await withInMemoryAgent({
    model: () =>
      Promise.reject(new Error('Cannot load model "/x.gguf": no such file (pass --model PATH)')),
  }, async (t) => {
    const sessionId = await t.newSession();
    const error = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "a" }],
    })
      .then(() => undefined, (e) => e);
    assertEquals(error?.code, -32603);
    assertStringIncludes(error.message, "pass --model PATH");
    const listed = await t.agent.request("session/list", {});
    assertEquals(listed.sessions.length, 1);
  });
});
