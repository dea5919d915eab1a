import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";
import { callTool, reply, steppedModel } from "./fake_models.ts";

const terminalClient = (client: import("@agentclientprotocol/sdk").ClientApp) =>
  client
    .onRequest("terminal/create", () => ({ terminalId: "term-1" }))
    .onRequest("terminal/wait_for_exit", () => ({ exitCode: 0 }))
    .onRequest(
      "terminal/output",
      () => ({ output: "made it\n", truncated: false, exitStatus: { exitCode: 0 } }),
    )
    .onRequest("terminal/release", () => ({}));

Deno.test("a command that ran in a client terminal is replayed with its output as text", async () => {
  await withInMemoryAgent({
    clientCapabilities: { terminal: true },
    model: steppedModel([callTool("shell", { command: "echo made it" }), reply("done")]),
    onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    clientHandlers: terminalClient,
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
    t.updates.length = 0;
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    const replayed = JSON.stringify(t.updates.map((u) => u.update));
    assert(!replayed.includes('"terminalId"'), "no dead terminal is replayed");
    assertStringIncludes(replayed, "made it");
    const final = t.updates.map((u) => u.update).filter((u) =>
      u.sessionUpdate === "tool_call_update"
    );
    assertEquals(final.map((u) => u.sessionUpdate === "tool_call_update" && u.status), [
      "in_progress",
      "completed",
    ]);
  });
});

Deno.test("a shell call shows its whole command, in the tool call and in the permission request", async () => {
  const command = "ls\nrm -rf build  # the second line matters";
  await withInMemoryAgent({
    model: steppedModel([callTool("shell", { command }), reply("no")]),
    onPermission: () => ({ outcome: { outcome: "selected", optionId: "reject_once" } }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "x" }] });
    const shown: ToolCallContent = {
      type: "content",
      content: { type: "text", text: "```sh\n" + command + "\n```" },
    };
    const announced = t.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call");
    assert(announced?.sessionUpdate === "tool_call");
    assertEquals(announced.content, [shown]);
    assertEquals(t.permissionRequests[0]?.toolCall.content, [shown]);
  });
});

Deno.test("tool call ids after a load never repeat one the client saw, finished or not", async () => {
  await withInMemoryAgent({
    files: { "a.txt": "a" },
    model: steppedModel([callTool("fs_read", { file_path: "a.txt" }), reply("ok")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/close", { sessionId });
    // As if an agent had been killed mid-tool: call_7 announced, never finished.
    const path = transcriptPathFor(sessionId, t.env);
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        type: "update",
        update: {
          sessionUpdate: "tool_call",
          toolCallId: "call_7",
          title: "Run `sleep`",
          status: "pending",
        },
      }) + "\n",
      { append: true },
    );
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    t.updates.length = 0;
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "again" }],
    });
    const ids = t.updates.map((u) => u.update).flatMap((u) =>
      u.sessionUpdate === "tool_call" ? [u.toolCallId] : []
    );
    assertEquals(ids, ["call_8"]);
  });
});

Deno.test("loading a session while its prompt runs is refused", async () => {
  let release = () => {};
  await withInMemoryAgent({
    model: steppedModel([async (request) => {
      await new Promise<void>((resolve) => (release = resolve));
      return reply("late")(request);
    }]),
  }, async (t) => {
    const sessionId = await t.newSession();
    const prompt = t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "x" }],
    });
    await new Promise((r) => setTimeout(r, 20));
    const error = await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] })
      .then(() => undefined, (e) => e);
    assertEquals(error?.code, -32602);
    assertStringIncludes(error.message, "is running a prompt");
    release();
    assertEquals((await prompt).stopReason, "end_turn");
  });
});

Deno.test("the client's fs is confined to the allowed roots too: an auto-approved read of /etc is refused", async () => {
  const served: string[] = [];
  await withInMemoryAgent({
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    model: steppedModel([callTool("fs_read", { file_path: "/etc/hostname" }), reply("ok")]),
    clientHandlers: (client) =>
      client.onRequest("fs/read_text_file", ({ params }) => {
        served.push(params.path);
        return { content: "secret" };
      }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "x" }] });
    assertEquals(served, []);
    const final = t.updates.map((u) => u.update).filter((u) =>
      u.sessionUpdate === "tool_call_update"
    ).at(-1);
    assert(final?.sessionUpdate === "tool_call_update");
    assertEquals(final.status, "failed");
    assertStringIncludes(JSON.stringify(final.content), "outside the allowed directories");
  });
});
