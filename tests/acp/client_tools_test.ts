import { assert, assertEquals } from "../helpers/assert.ts";
import { clientFs, withInMemoryAgent } from "./in_memory_agent.ts";

Deno.test("with fs advertised, reads and writes go through the client, not the disk", async () => {
  const calls: string[] = [];
  await withInMemoryAgent({
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    files: { "notes.txt": "on disk\n" },
    onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    script: {
      turns: [
        { toolCalls: [{ name: "fs_read", input: { file_path: "notes.txt" } }] },
        { toolCalls: [{ name: "fs_write", input: { file_path: "notes.txt", content: "new" } }] },
        { text: "done" },
      ],
    },
    clientHandlers: clientFs(calls, "unsaved buffer\n"),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "x" }],
    });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(calls[0], `read ${t.cwd}/notes.txt`);
    assertEquals(calls.at(-1), `write ${t.cwd}/notes.txt new`);
    assertEquals(
      await Deno.readTextFile(`${t.cwd}/notes.txt`),
      "on disk\n",
      "the disk was not touched",
    );
    const completed = t.updates.map((u) => u.update).filter((u) =>
      u.sessionUpdate === "tool_call_update" && u.status === "completed"
    );
    assertEquals(completed.length, 2);
    const write = completed[1]!;
    assert(write.sessionUpdate === "tool_call_update");
    assertEquals(write.content, [{
      type: "diff",
      path: `${t.cwd}/notes.txt`,
      oldText: "unsaved buffer\n",
      newText: "new",
    }]);
  });
});

Deno.test("with terminal advertised, shell runs in a client terminal embedded in the tool call", async () => {
  const methods: string[] = [];
  await withInMemoryAgent({
    clientCapabilities: { terminal: true },
    script: {
      turns: [{ toolCalls: [{ name: "terminal", input: { command: "echo hi" } }] }, { text: "ok" }],
    },
    clientHandlers: (client) =>
      client
        .onRequest("terminal/create", ({ params }) => {
          methods.push(`create ${params.command} ${params.args?.join(" ")}`);
          return { terminalId: "term-1" };
        })
        .onRequest("terminal/wait_for_exit", () => {
          methods.push("wait_for_exit");
          return { exitCode: 0 };
        })
        .onRequest("terminal/output", () => {
          methods.push("output");
          return { output: "hi\n", truncated: false, exitStatus: { exitCode: 0 } };
        })
        .onRequest("terminal/release", () => {
          methods.push("release");
          return {};
        }),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "x" }],
    });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(methods.slice(1), ["wait_for_exit", "output", "release"]);
    assert(methods[0]!.startsWith("create /bin/sh -c"));
    const call = t.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call");
    assert(call?.sessionUpdate === "tool_call");
    assertEquals([call.kind, call._meta], ["execute", { tool_name: "terminal" }]);
    const embedded = t.updates.map((u) => u.update).some((u) =>
      u.sessionUpdate === "tool_call_update" &&
      JSON.stringify(u.content ?? null).includes('"terminalId":"term-1"')
    );
    assert(embedded, "the terminal is embedded in the tool call");
  });
});
