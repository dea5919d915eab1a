/**
 * Sessions after something went wrong: a crash mid-call, a damaged transcript, a full disk. The
 * session loads what is sound, the client is told what is not, and transcripts stay private.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import type { ConversationItem } from "../../src/model/model.ts";
import { noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";
import { callTool, reply, type Step, steppedModel } from "./fake_models.ts";

const text = (prompt: string): ContentBlock[] => [{ type: "text", text: prompt }];

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

Deno.test("a tool call cut off by a crash is replayed as failed, and the model is told it was interrupted", async () => {
  const seen: (readonly ConversationItem[])[] = [];
  // Calls fs_read for "read it"; answers anything else, keeping what it was shown.
  const step: Step = (request) => {
    const last = request.conversation.at(-1);
    if (last?.role === "user" && last.text === "read it") {
      return callTool("fs_read", { file_path: "notes.txt" })(request);
    }
    seen.push(request.conversation);
    return reply("ok")(request);
  };
  await withInMemoryAgent({
    files: { "notes.txt": "hi\n" },
    model: steppedModel(Array.from({ length: 8 }, () => step)),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("read it") });
    await t.agent.request("session/close", { sessionId });
    // As if the agent had been killed while the call ran: the transcript ends at `in_progress`.
    const path = transcriptPathFor(sessionId, t.env);
    const lines = (await Deno.readTextFile(path)).split("\n");
    const running = lines.findIndex((line) => line.includes('"status":"in_progress"'));
    assert(running > 0, "the call was recorded as running");
    await Deno.writeTextFile(path, lines.slice(0, running + 1).join("\n") + "\n");

    t.updates.length = 0;
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    const calls = t.updates.map((u) => u.update).filter((u) =>
      u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update"
    );
    assertEquals(
      calls.map((u) => u.sessionUpdate === "tool_call_update" ? u.status : "tool_call"),
      [
        "tool_call",
        "in_progress",
        "failed",
      ],
    );
    const final = calls.at(-1);
    assert(final?.sessionUpdate === "tool_call_update");
    assertEquals(final.toolCallId, "call_1");
    assertStringIncludes(
      JSON.stringify(final.content),
      "interrupted: the agent stopped before it finished",
    );

    await t.agent.request("session/prompt", { sessionId, prompt: text("what happened?") });
    const shown = seen.at(-1) ?? [];
    const segments = shown.flatMap((item) => item.role === "assistant" ? item.segments : []);
    assertEquals(segments.filter((s) => s.type === "tool_call"), [{
      type: "tool_call",
      name: "fs_read",
      input: { file_path: "notes.txt" },
      result: "interrupted: the agent stopped before it finished",
    }]);
  });
});

Deno.test("bad lines in the middle of a transcript are skipped: the rest loads, the client is told once, the log names them", async () => {
  await withInMemoryAgent({ script: { turns: [{ text: "one" }, { text: "two" }] } }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("first") });
    await t.agent.request("session/close", { sessionId });
    const path = transcriptPathFor(sessionId, t.env);
    const [head, ...rest] = (await Deno.readTextFile(path)).split("\n");
    const garbage = [
      "not json at all",
      JSON.stringify({ type: "tool_call", toolCallId: "call_9" }), // JSON, but not a record
      '"a string"',
    ];
    await Deno.writeTextFile(path, [head, ...garbage, ...rest].join("\n"));

    t.updates.length = 0;
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    const replayed = t.updates.map((u) => u.update);
    assertEquals(replayed[0], { sessionUpdate: "user_message_chunk", content: text("first")[0]! });
    assertEquals(t.text(sessionId).startsWith("one"), true, t.text(sessionId));
    const notices = noticesOf(t.updates, sessionId);
    assertEquals(notices.length, 1, JSON.stringify(notices));
    assertStringIncludes(notices[0]!, "3 lines");
    assertStringIncludes(notices[0]!, path);
    for (const line of [2, 3, 4]) {
      assert(
        t.logs.some((l) => l.includes(path) && l.includes(`line ${line}`)),
        `the log names line ${line}: ${t.logs.join("\n")}`,
      );
    }
    // The conversation goes on from what loaded.
    const next = await t.agent.request("session/prompt", { sessionId, prompt: text("again") });
    assertEquals(next.stopReason, "end_turn");

    const listed = await t.agent.request("session/list", { cwd: t.cwd });
    assertEquals(listed.sessions.find((s) => s.sessionId === sessionId)?.title, "first");
  });
});

Deno.test("a session resumed from a damaged transcript is told about the skipped lines too", async () => {
  await withInMemoryAgent({}, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/close", { sessionId });
    const path = transcriptPathFor(sessionId, t.env);
    const [head, ...rest] = (await Deno.readTextFile(path)).split("\n");
    await Deno.writeTextFile(path, [head, "{oops", ...rest].join("\n"));
    t.updates.length = 0;
    await t.agent.request("session/resume", { sessionId, cwd: t.cwd });
    await tick();
    const notices = noticesOf(t.updates, sessionId);
    assertEquals(notices.length, 1, JSON.stringify(notices));
    assertStringIncludes(notices[0]!, "1 line");
  });
});

Deno.test("session/list lists the other sessions when one transcript cannot be read at all", async () => {
  await withInMemoryAgent({ script: { turns: [{ text: "one" }] } }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("first") });
    // A directory where the transcript should be: reading it fails outright.
    const unreadable = transcriptPathFor("unreadable", t.env);
    await Deno.mkdir(unreadable, { recursive: true });
    const listed = await t.agent.request("session/list", {});
    assertEquals(listed.sessions.map((s) => s.sessionId), [sessionId]);
    assertEquals(t.logs.filter((l) => l.includes("unreadable")), [
      `Cannot list a session: Cannot read the transcript "${unreadable}": it is a directory, ` +
      "not a regular file",
    ]);
  });
});

Deno.test("a full disk: the client is told once that the transcript is not written, and the session goes on", async () => {
  await withInMemoryAgent({
    script: { turns: [{ text: "one" }, { text: "two" }] },
    newSessionId: () => "full-disk",
  }, async (t) => {
    const path = transcriptPathFor("full-disk", t.env);
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    // Every write to /dev/full fails with ENOSPC, as on a disk that has filled up.
    await Deno.symlink("/dev/full", path);
    const sessionId = await t.newSession();
    await tick();
    // After session/new answered, as every update: the client knows the session id by then.
    assertEquals(t.kinds(sessionId), ["available_commands_update", "agent_message_chunk"]);
    for (const prompt of ["first", "second"]) {
      const answer = await t.agent.request("session/prompt", { sessionId, prompt: text(prompt) });
      assertEquals(answer.stopReason, "end_turn");
    }
    await tick();
    assert(t.text(sessionId).includes("one") && t.text(sessionId).includes("two"));
    const notices = noticesOf(t.updates, sessionId);
    assertEquals(notices.length, 1, JSON.stringify(notices));
    assertStringIncludes(notices[0]!, `Cannot write the transcript "${path}"`);
    assertStringIncludes(notices[0]!, "No space left on device");
    assertStringIncludes(notices[0]!, "the session goes on");
    assertEquals(t.logs.filter((l) => l.includes("Cannot write the transcript")).length, 1);
  });
});

Deno.test("transcripts are private: the file is 0600 and the directories made for it 0700", async () => {
  await withInMemoryAgent({}, async (t) => {
    const sessionId = await t.newSession();
    const path = transcriptPathFor(sessionId, t.env);
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600);
    const sessionDir = path.slice(0, path.lastIndexOf("/"));
    for (const dir of [sessionDir, `${t.home}/.local/state/llama-agent`, `${t.home}/.local`]) {
      assertEquals(((await Deno.stat(dir)).mode! & 0o777).toString(8), "700", dir);
    }
  });
});

Deno.test("a transcript written world-readable by an older version loads, and is made private", async () => {
  await withInMemoryAgent({ script: { turns: [{ text: "one" }] } }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("first") });
    await t.agent.request("session/close", { sessionId });
    const path = transcriptPathFor(sessionId, t.env);
    const sessionDir = path.slice(0, path.lastIndexOf("/"));
    await Deno.chmod(path, 0o644);
    await Deno.chmod(sessionDir, 0o755);
    t.updates.length = 0;
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    assertEquals(t.text(sessionId), "one");
    assertEquals(((await Deno.stat(path)).mode! & 0o777).toString(8), "600");
    assertEquals(((await Deno.stat(sessionDir)).mode! & 0o777).toString(8), "700");
  });
});

Deno.test("a session open in another agent process is not loaded here: the error says so, and its transcript is left alone", async () => {
  await withInMemoryAgent({ script: { turns: [{ text: "one" }] } }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("first") });
    await t.agent.request("session/close", { sessionId });
    const path = transcriptPathFor(sessionId, t.env);
    const before = await Deno.readTextFile(path);
    // What the other process's writer holds on the file.
    const other = await Deno.open(path, { read: true });
    try {
      await other.lock(true);
      const refused = await t.agent.request("session/load", {
        sessionId,
        cwd: t.cwd,
        mcpServers: [],
      }).then(() => undefined, (error: unknown) => error);
      assert(refused instanceof Error, "the load was answered");
      assertStringIncludes(
        refused.message,
        `session "${sessionId}" is open in another agent process (its transcript "${path}" is ` +
          "being written): close it there, or end that agent, before loading it here",
      );
      assertEquals(await Deno.readTextFile(path), before);
    } finally {
      other.close();
    }
    // Once the other process lets go, the session loads.
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
  });
});
