/**
 * MCP servers end to end: the real agent over real stdio (the raw NDJSON harness), the fixture
 * MCP server (tests/mcp/fixture_server.ts) in its own process over stdio or Streamable HTTP, and
 * real Claude Code hook scripts from each session cwd's `.claude/settings.json`.
 *
 * The first test runs on the real llama path (a generated GGUF model through node-llama-cpp that
 * calls `mcp__fixture__echo`); the others need several different turns in one session, so they
 * play a scripted model back. What ran is what the fixture logged (`--log`), what the model read
 * is in the transcript, and what survives is what `ps` still shows.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { AcpHarness, JsonObject } from "../helpers/acp_harness.ts";
import { writeToolCallModel } from "../helpers/test_models.ts";
import { livingGroupMembers, livingPids, livingPidsMatching } from "../hooks/process_probe.ts";
import { startHttpFixture, stdioFixture } from "../mcp/fixture_servers.ts";
import { allowAndRecord, reminder, textPrompt as text } from "./e2e_project.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import {
  finalUpdateOf,
  group,
  hook,
  hookCommand,
  modelTextOf,
  noticesOf,
  readTranscript,
  runsOf,
  toolCallRecord,
  withHookProject,
} from "./hook_project.ts";

const ECHO = {
  toolName: "mcp__fixture__echo",
  params: { text: "hello over mcp" },
  answer: "The server echoed.",
};
const ECHOED = "echo: hello over mcp";

/** `session/new` in `cwd` with these MCP servers; returns the session id. */
async function newSessionWith(
  agent: AcpHarness,
  cwd: string,
  mcpServers: readonly unknown[],
): Promise<string> {
  const created = await agent.call("session/new", { cwd, mcpServers });
  return (created as { sessionId: string }).sessionId;
}

/** The tool calls the fixture logged to `path` ([] when it logged none). */
async function loggedCalls(path: string): Promise<JsonObject[]> {
  let logged: string;
  try {
    logged = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return logged.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** Waits for a notice containing `part` in the session, and returns it. */
function noticeContaining(agent: AcpHarness, sessionId: string, part: string): Promise<string> {
  return agent.waitFor(() => noticesOf(agent, sessionId).find((n) => n.includes(part)), {
    what: `a notice containing ${JSON.stringify(part)}`,
    timeoutMs: 60_000,
  });
}

/** The first `tool_call` update of a call. */
function announcementOf(agent: AcpHarness, sessionId: string, toolCallId: string): JsonObject {
  const update = agent.toolCallUpdates(sessionId).find((u) =>
    u.sessionUpdate === "tool_call" && u.toolCallId === toolCallId
  );
  if (!update) throw new Error(`No tool_call for "${toolCallId}"`);
  return update;
}

function uniqueMarker(): string {
  return `mcp-e2e-${crypto.randomUUID()}`;
}

/**
 * The fixture's own pid for a marker (the server is its group's leader, so this is also the
 * group's id): the process whose command line runs fixture_server.ts with that marker.
 */
async function fixturePid(marker: string): Promise<number> {
  let pids: number[] = [];
  await waitUntil(
    async () => {
      pids = await livingPidsMatching(`fixture_server.ts --child --marker ${marker}`);
      return pids.length === 1;
    },
    `the fixture server with marker ${marker}`,
    60_000,
  );
  return pids[0]!;
}

/** Waits until nothing carrying `marker` and nothing of group `pgid` is alive. */
async function assertAllGone(marker: string, pgid: number): Promise<void> {
  const gone = async () =>
    (await livingPidsMatching(marker)).length === 0 &&
    (await livingGroupMembers(pgid)).length === 0;
  await waitUntil(gone, `the processes of ${marker} to end`, 10_000).catch(() => {});
  assertEquals(await livingPidsMatching(marker), [], `processes carrying ${marker}`);
  assertEquals(await livingGroupMembers(pgid), [], `members of the server's group ${pgid}`);
}

Deno.test("llama: an MCP tool call passes the one tool seam: permission, PreToolUse deny, PostToolUse context, stdio and HTTP", async (t) => {
  await withHookProject(async (p) => {
    const plain = await p.sessionDir("plain", {});
    const denied = await p.sessionDir("denied", {
      settings: { hooks: { PreToolUse: [group("mcp__fixture__.*", hook("pre_deny"))] } },
      replies: { pre_deny: { err: "no echoing in this project", code: 2 } },
    });
    const context = await p.sessionDir("context", {
      settings: { hooks: { PostToolUse: [group("mcp__fixture__echo", hook("post_ctx"))] } },
      replies: {
        post_ctx: {
          out: {
            hookSpecificOutput: {
              hookEventName: "PostToolUse",
              additionalContext: "the echo server is a test double",
            },
          },
        },
      },
    });
    const remote = await p.sessionDir("remote", {});
    const agent = await p.startAgent(await writeToolCallModel(p.models, ECHO));
    const asked = allowAndRecord(agent);
    const fixture = (dir: string) => stdioFixture({ args: ["--log", `${dir}/calls.jsonl`] });

    const plainId = await newSessionWith(agent, plain, [fixture(plain)]);
    const plainResult = await agent.call("session/prompt", {
      sessionId: plainId,
      prompt: text("echo something"),
    }) as JsonObject;
    await t.step(
      "the model's mcp__fixture__echo call is shown as an MCP tool call and asks permission",
      () => {
        const call = announcementOf(agent, plainId, "call_1");
        assertEquals(call.kind, "other");
        assertEquals(call.title, "echo (MCP: fixture)");
        assertEquals(call._meta, { tool_name: "mcp__fixture__echo" });
        assertEquals(call.rawInput, ECHO.params);
        assertEquals(asked.get(plainId), ["call_1"], "the default mode asks for MCP tools");
      },
    );
    await t.step("the server runs the call once and its answer completes the call", async () => {
      assertEquals(await loggedCalls(`${plain}/calls.jsonl`), [
        { tool: "echo", arguments: ECHO.params },
      ]);
      const final = finalUpdateOf(agent, plainId, "call_1");
      assertEquals(final.status, "completed");
      assertEquals(final.content, [{ type: "content", content: { type: "text", text: ECHOED } }]);
      assertEquals(final.rawOutput, { content: [{ type: "text", text: ECHOED }] });
    });
    await t.step("the model reads the server's answer and goes on to its reply", async () => {
      const records = await readTranscript(p.home, plainId);
      assertEquals(toolCallRecord(records, "call_1").result, ECHOED);
      assertEquals(plainResult.stopReason, "end_turn");
      assertEquals(modelTextOf(agent, plainId), ECHO.answer);
      assertEquals(noticesOf(agent, plainId), []);
    });
    await agent.call("session/close", { sessionId: plainId });

    const deniedId = await newSessionWith(agent, denied, [fixture(denied)]);
    const deniedResult = await agent.call("session/prompt", {
      sessionId: deniedId,
      prompt: text("echo something"),
    }) as JsonObject;
    const reason = `[${hookCommand("pre_deny")}]: no echoing in this project`;
    await t.step(
      "a PreToolUse hook matching mcp__fixture__.* denies the call before the server sees it",
      async () => {
        assertEquals(await loggedCalls(`${denied}/calls.jsonl`), []);
        const final = finalUpdateOf(agent, deniedId, "call_1");
        assertEquals(final.status, "failed");
        assertEquals(final._meta, {
          "llama-agent/hook": { event: "PreToolUse", decision: "deny", reason },
        });
        assertEquals(asked.get(deniedId), undefined, "a denied call asks nobody");
        const [run] = await runsOf(denied, "pre_deny");
        assertEquals(run?.payload.tool_name, "mcp__fixture__echo");
        assertEquals(run?.payload.tool_input, ECHO.params);
      },
    );
    await t.step("the model reads the hook's reason as the call's result", async () => {
      const records = await readTranscript(p.home, deniedId);
      assertEquals(
        toolCallRecord(records, "call_1").result,
        `PreToolUse:mcp__fixture__echo hook error: ${reason}`,
      );
      assertEquals(deniedResult.stopReason, "end_turn");
      assertEquals(modelTextOf(agent, deniedId), ECHO.answer);
    });
    await agent.call("session/close", { sessionId: deniedId });

    const contextId = await newSessionWith(agent, context, [fixture(context)]);
    const contextResult = await agent.call("session/prompt", {
      sessionId: contextId,
      prompt: text("echo something"),
    }) as JsonObject;
    await t.step(
      "PostToolUse additionalContext reaches the model after the MCP tool's answer",
      async () => {
        assertEquals(contextResult.stopReason, "end_turn");
        assertEquals((await loggedCalls(`${context}/calls.jsonl`)).length, 1);
        const records = await readTranscript(p.home, contextId);
        assertEquals(
          toolCallRecord(records, "call_1").result,
          ECHOED + "\n\n" +
            reminder(
              "PostToolUse:mcp__fixture__echo hook additional context: " +
                "the echo server is a test double",
            ),
        );
        const [run] = await runsOf(context, "post_ctx");
        assertEquals(run?.payload.hook_event_name, "PostToolUse");
        assertEquals(run?.payload.tool_name, "mcp__fixture__echo");
        assertEquals(run?.payload.tool_response, { content: [{ type: "text", text: ECHOED }] });
      },
    );
    await agent.call("session/close", { sessionId: contextId });

    await using http = await startHttpFixture([
      "--require-header",
      "X-Token:secret",
      "--log",
      `${remote}/calls.jsonl`,
    ]);
    const remoteId = await newSessionWith(agent, remote, [
      http.entry({ headers: { "X-Token": "secret" } }),
      http.entry({ name: "locked" }),
    ]);
    const remoteResult = await agent.call("session/prompt", {
      sessionId: remoteId,
      prompt: text("echo something"),
    }) as JsonObject;
    await t.step(
      "over Streamable HTTP, the entry's headers are sent and the call runs",
      async () => {
        assertEquals(await loggedCalls(`${remote}/calls.jsonl`), [
          { tool: "echo", arguments: ECHO.params },
        ]);
        assertEquals(finalUpdateOf(agent, remoteId, "call_1").status, "completed");
        assertEquals(
          toolCallRecord(await readTranscript(p.home, remoteId), "call_1").result,
          ECHOED,
        );
      },
    );
    await t.step(
      "an HTTP server that refuses the connection is a notice, and the session lives on",
      async () => {
        const notice = await noticeContaining(agent, remoteId, 'MCP server "locked"');
        assert(notice.startsWith('MCP server "locked" failed to start: '), notice);
        assertStringIncludes(notice, "401");
        assertEquals(noticesOf(agent, remoteId).length, 1, "one notice, for the one problem");
        assertEquals(remoteResult.stopReason, "end_turn");
        assertEquals(modelTextOf(agent, remoteId), ECHO.answer);
      },
    );
    await agent.close();
  });
});

Deno.test("an MCP server that fails to start or crashes mid-session leaves the session alive: notices, failed calls, and the next prompt works", async (t) => {
  await withHookProject(async (p) => {
    const log = `${p.cwd}/calls.jsonl`;
    await Deno.writeTextFile(
      `${p.cwd}/rules.json`,
      JSON.stringify({ rules: [{ tool: "mcp__fixture__.*", decision: "allow" }] }),
    );
    const model = await p.scriptedModel([
      { toolCalls: [{ name: "mcp__fixture__crash", input: {} }] },
      { text: "The server crashed." },
      { toolCalls: [{ name: "mcp__fixture__echo", input: { text: "still there?" } }] },
      { text: "Carrying on without it." },
    ]);
    // No permission handler: a request would be answered -32601 and fail the call, so the
    // rules file is what lets the calls run.
    const agent = await p.startAgent(model, [
      "--permission-policy",
      "rule-based",
      "--rules",
      "rules.json",
    ]);
    const sessionId = await newSessionWith(agent, p.cwd, [
      stdioFixture({ args: ["--log", log] }),
      stdioFixture({ name: "broken", args: ["--exit-at-start"] }),
    ]);

    await t.step("a server that exits at start is shown as a notice with its reason", async () => {
      const notice = await noticeContaining(agent, sessionId, 'MCP server "broken"');
      assert(notice.startsWith('MCP server "broken" failed to start: '), notice);
      assertStringIncludes(notice, "exit code 3");
      assertStringIncludes(notice, "told to exit at start");
    });

    const crashed = await agent.call("session/prompt", {
      sessionId,
      prompt: text("crash it"),
    }) as JsonObject;
    await t.step(
      "the call that crashes its server fails, and the turn still ends normally",
      async () => {
        assertEquals(await loggedCalls(log), [{ tool: "crash", arguments: {} }]);
        const final = finalUpdateOf(agent, sessionId, "call_1");
        assertEquals(final.status, "failed");
        assertStringIncludes(JSON.stringify(final.content), 'MCP server \\"fixture\\"');
        assertEquals(crashed.stopReason, "end_turn");
        assertEquals(modelTextOf(agent, sessionId), "The server crashed.");
      },
    );
    const lost = await noticeContaining(agent, sessionId, 'MCP server "fixture" stopped');
    await t.step("the user is told the server stopped and why", () => {
      assertStringIncludes(lost, "exit code 7");
      assertStringIncludes(lost, "crashing on purpose");
      assertStringIncludes(lost, "unavailable for the rest of the session");
    });

    const after = await agent.call("session/prompt", {
      sessionId,
      prompt: text("try again"),
    }) as JsonObject;
    await t.step(
      "the next prompt runs: a call to the lost server fails with the reason, and the model answers",
      async () => {
        assertEquals(after.stopReason, "end_turn");
        assertEquals(modelTextOf(agent, sessionId), "The server crashed.Carrying on without it.");
        assertEquals(finalUpdateOf(agent, sessionId, "call_2").status, "failed");
        const records = await readTranscript(p.home, sessionId);
        assertEquals(toolCallRecord(records, "call_2").result, lost);
        assertEquals((await loggedCalls(log)).length, 1, "nothing reached a server");
      },
    );
    await agent.close();
  });
});

Deno.test("no MCP server process outlives its session: session/close and the agent's exit end each server's whole process group", async (t) => {
  await withHookProject(async (p) => {
    const [first, second] = [uniqueMarker(), uniqueMarker()];
    const model = await p.scriptedModel([
      { toolCalls: [{ name: "mcp__fixture__echo", input: { text: "are you there?" } }] },
      { text: "It is there." },
    ]);
    const agent = await p.startAgent(model);
    allowAndRecord(agent);
    const server = (marker: string) => stdioFixture({ args: ["--child", "--marker", marker] });
    const firstId = await newSessionWith(agent, p.cwd, [server(first)]);
    const secondId = await newSessionWith(agent, p.cwd, [server(second)]);
    for (const sessionId of [firstId, secondId]) {
      const result = await agent.call("session/prompt", { sessionId, prompt: text("ping") });
      assertEquals((result as JsonObject).stopReason, "end_turn");
      assertEquals(finalUpdateOf(agent, sessionId, "call_1").status, "completed");
    }
    const [firstPid, secondPid] = [await fixturePid(first), await fixturePid(second)];
    assertEquals((await livingPidsMatching(first)).length, 2, "the server and its child shell");

    await agent.call("session/close", { sessionId: firstId });
    await t.step("session/close ends the server, its child and its whole group", async () => {
      await assertAllGone(first, firstPid);
    });
    await t.step("closing one session leaves another session's server running", async () => {
      assertEquals((await livingPidsMatching(second)).length, 2);
    });

    const closed = await agent.close();
    await t.step(
      "the agent exiting (its stdin closed) ends the servers of open sessions",
      async () => {
        assertEquals(closed.code, 0);
        await assertAllGone(second, secondPid);
      },
    );
  });
});

Deno.test("SIGTERM to the agent ends the process groups of its MCP servers", async () => {
  await withHookProject(async (p) => {
    const marker = uniqueMarker();
    // A model file name of its own, so that `ps` finds this agent and no other.
    const model = await p.scriptedModel([], `model-${crypto.randomUUID()}.json`);
    const agent = await p.startAgent(model);
    await newSessionWith(agent, p.cwd, [stdioFixture({ args: ["--child", "--marker", marker] })]);
    const serverPid = await fixturePid(marker);
    await waitUntil(
      async () => (await livingPidsMatching(marker)).length === 2,
      "the server's child shell",
      60_000,
    );
    const [agentPid, ...others] = await livingPidsMatching(`--model ${model}`);
    assert(agentPid !== undefined && others.length === 0, "exactly one agent process");
    Deno.kill(agentPid, "SIGTERM");
    // Gone before its stdin closes: the signal, not the harness, ended it.
    await waitUntil(async () => (await livingPids([agentPid])).length === 0, "the agent to exit");
    const closed = await agent.close();
    assertEquals([closed.code, closed.signal], [0, null], "the agent exits by itself");
    await assertAllGone(marker, serverPid);
  });
});
