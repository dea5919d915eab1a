/**
 * A session's permission mode, config options and "always reject" answers are part of the
 * session: they come back with it on load and resume. "Always allow" answers do not: a session
 * brought back asks again (the restrictive state is what survives).
 */
import type { ContentBlock, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { assertEquals } from "../helpers/assert.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";

const text = (prompt: string): ContentBlock[] => [{ type: "text", text: prompt }];

const READ_SCRIPT = {
  turns: [
    { toolCalls: [{ name: "fs_read", input: { file_path: "notes.txt" } }] },
    { text: "read" },
  ],
};

/** A client that takes boolean config options, so it is offered "stop_hooks_continue". */
const BOOLEAN_OPTIONS = { session: { configOptions: { boolean: {} } } };

function optionValue(options: readonly { id: string; currentValue: unknown }[], id: string) {
  return options.find((o) => o.id === id)?.currentValue;
}

Deno.test("always-ask and the config options come back on resume and on load: the next read asks", async () => {
  await withInMemoryAgent({
    files: { "notes.txt": "hi\n" },
    script: READ_SCRIPT,
    clientCapabilities: BOOLEAN_OPTIONS,
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/set_mode", { sessionId, modeId: "always-ask" });
    await t.agent.request("session/set_config_option", {
      sessionId,
      configId: "stop_hooks_continue",
      type: "boolean",
      value: true,
    });
    await t.agent.request("session/close", { sessionId });

    const resumed = await t.agent.request("session/resume", { sessionId, cwd: t.cwd });
    assertEquals(resumed.modes?.currentModeId, "always-ask");
    assertEquals(optionValue(resumed.configOptions ?? [], "mode"), "always-ask");
    assertEquals(optionValue(resumed.configOptions ?? [], "stop_hooks_continue"), true);
    await t.agent.request("session/prompt", { sessionId, prompt: text("read it") });
    assertEquals(t.permissionRequests.map((r) => r.toolCall.kind), ["read"]);
    await t.agent.request("session/close", { sessionId });

    const loaded = await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    assertEquals(loaded.modes?.currentModeId, "always-ask");
    assertEquals(optionValue(loaded.configOptions ?? [], "stop_hooks_continue"), true);
    await t.agent.request("session/prompt", { sessionId, prompt: text("read it again") });
    assertEquals(t.permissionRequests.length, 2);

    // The latest change is what comes back.
    await t.agent.request("session/set_config_option", {
      sessionId,
      configId: "mode",
      value: "rule-based",
    });
    await t.agent.request("session/close", { sessionId });
    const again = await t.agent.request("session/resume", { sessionId, cwd: t.cwd });
    assertEquals(again.modes?.currentModeId, "rule-based");
  });
});

Deno.test("an always-reject answer survives a restore; an always-allow is asked for again", async () => {
  const answers: Record<string, string> = { execute: "reject_always", edit: "allow_always" };
  const asked: RequestPermissionRequest[] = [];
  await withInMemoryAgent({
    script: {
      turns: [
        { toolCalls: [{ name: "shell", input: { command: "echo hi" } }] },
        { toolCalls: [{ name: "fs_write", input: { file_path: "out.txt", content: "x" } }] },
        { text: "done" },
      ],
    },
    onPermission: (request) => {
      asked.push(request);
      return { outcome: { outcome: "selected", optionId: answers[request.toolCall.kind ?? ""]! } };
    },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(asked.map((r) => r.toolCall.kind), ["execute", "edit"]);
    await t.agent.request("session/close", { sessionId });

    await t.agent.request("session/resume", { sessionId, cwd: t.cwd });
    await t.agent.request("session/prompt", { sessionId, prompt: text("go again") });
    assertEquals(asked.map((r) => r.toolCall.kind), ["execute", "edit", "edit"]);
    const shell = t.updates.map((u) => u.update).filter((u) =>
      u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_3" && u.status
    );
    assertEquals(shell.map((u) => u.sessionUpdate === "tool_call_update" && u.status), ["failed"]);
  });
});

Deno.test("a transcript that holds no settings loads with the agent's defaults", async () => {
  await withInMemoryAgent({ mode: "rule-based", clientCapabilities: BOOLEAN_OPTIONS }, async (t) => {
    await t.newSession();
    const sessionId = "written-by-an-older-version";
    const path = transcriptPathFor(sessionId, t.env);
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        type: "session",
        sessionId,
        cwd: t.cwd,
        additionalDirectories: [],
        createdAt: "2026-01-01T00:00:00.000Z",
      }) + "\n",
    );
    const loaded = await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    assertEquals(loaded.modes?.currentModeId, "rule-based");
    assertEquals(optionValue(loaded.configOptions ?? [], "stop_hooks_continue"), false);
  });
});

Deno.test("a session saved in a looser mode, brought back by an agent started with always-ask, stays always-ask and says so", async () => {
  await withInMemoryAgent({
    mode: "always-ask",
    files: { "notes.txt": "hi\n" },
    script: READ_SCRIPT,
  }, async (t) => {
    await t.newSession();
    const sessionId = "saved-with-reads-allowed";
    const path = transcriptPathFor(sessionId, t.env);
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    const records = [
      { type: "session", sessionId, cwd: t.cwd, additionalDirectories: [], createdAt: "" },
      {
        type: "settings",
        mode: "auto-approve-reads",
        stopHooksContinue: false,
        alwaysRejected: [],
      },
    ];
    await Deno.writeTextFile(path, records.map((r) => JSON.stringify(r) + "\n").join(""));

    const loaded = await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    assertEquals(loaded.modes?.currentModeId, "always-ask");
    assertEquals(optionValue(loaded.configOptions ?? [], "mode"), "always-ask");
    await t.agent.request("session/prompt", { sessionId, prompt: text("read it") });
    assertEquals(t.permissionRequests.map((r) => r.toolCall.kind), ["read"]);
    const notices = noticesOf(t.updates, sessionId);
    assertEquals(notices, [
      'This session was saved in mode "auto-approve-reads", but this agent was started in the ' +
      'stricter "always-ask" (--permission-policy): the session goes on in "always-ask"; change ' +
      "the mode in your client to choose another",
    ]);
    // The transcript says what the session now runs in.
    await t.agent.request("session/close", { sessionId });
    const last = (await Deno.readTextFile(path)).trim().split("\n").map((l) => JSON.parse(l))
      .findLast((r) => r.type === "settings");
    assertEquals(last?.mode, "always-ask");
  });
});
