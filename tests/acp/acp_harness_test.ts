import {
  assert,
  assertEquals,
  AssertionError,
  assertRejects,
  assertStringIncludes,
} from "../helpers/assert.ts";
import { AcpHarness, isObject, RpcError, TrafficMonitor } from "../helpers/acp_harness.ts";
import { REPO_ROOT, withTempProject } from "../helpers/run_cli.ts";

const DENO = `${REPO_ROOT}/node_modules/deno/deno`;
const FAKE_AGENT = `${REPO_ROOT}/tests/acp/fixtures/fake_agent.ts`;

interface Fake {
  readonly agent: AcpHarness;
  readonly project: string;
}

/** Runs `fn` against the fake agent with the given scenario; always closes it. */
function withFakeAgent(scenario: string, fn: (fake: Fake) => Promise<void>): Promise<void> {
  return withTempProject({ "home/.keep": "", "project/hello.txt": "hello file\n" }, async (dir) => {
    const project = `${dir}/project`;
    const agent = await AcpHarness.start({
      command: [DENO, "run", "--quiet", "--no-config", "--allow-all", FAKE_AGENT],
      cwd: project,
      home: `${dir}/home`,
      env: { FAKE_AGENT_SCENARIO: scenario },
    });
    try {
      await fn({ agent, project });
    } finally {
      await agent.close({ allowViolations: true });
    }
  });
}

async function openSession(
  agent: AcpHarness,
  project: string,
  clientCapabilities: Record<string, unknown> = {},
): Promise<string> {
  await agent.call("initialize", { protocolVersion: 1, clientCapabilities });
  const created = await agent.call("session/new", { cwd: project, mcpServers: [] });
  assert(isObject(created) && typeof created.sessionId === "string", "session/new gave no id");
  return created.sessionId;
}

function prompt(agent: AcpHarness, sessionId: string, text: string) {
  return agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

Deno.test("a clean turn: answers, text, the message log, a clean close", async () => {
  await withFakeAgent("", async ({ agent, project }) => {
    const initialized = await agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    assertEquals(initialized.id, 1);
    assert(isObject(initialized.result));
    assertEquals(initialized.result.protocolVersion, 1);
    const created = await agent.call("session/new", { cwd: project, mcpServers: [] });
    assertEquals(created, { sessionId: "fake-session-1" });
    const answer = await prompt(agent, "fake-session-1", "hi");
    assertEquals(answer, { id: 3, result: { stopReason: "end_turn" } });
    assertEquals(agent.agentText("fake-session-1"), "echo: hi");
    assertEquals(agent.agentText("another-session"), "");
    assertEquals(agent.sessionUpdates().map((update) => update.sessionUpdate), [
      "agent_message_chunk",
    ]);
    assertEquals(
      agent.messages.map((logged) => {
        const message = isObject(logged.message) ? logged.message : {};
        return `${logged.from} ${String(message.method ?? `#${String(message.id)}`)}`;
      }),
      [
        "client initialize",
        "agent #1",
        "client session/new",
        "agent #2",
        "client session/prompt",
        "agent session/update",
        "agent #3",
      ],
    );
    const times = agent.messages.map((logged) => logged.at);
    assertEquals(times, [...times].sort((a, b) => a - b));
    const closed = await agent.close();
    assertEquals(closed.code, 0);
    assertEquals(closed.signal, null);
    assertEquals(closed.violations, []);
    assertStringIncludes(closed.stderr, "fake_agent: received session/prompt");
  });
});

Deno.test("a stray stdout line is a stdout violation, and close() fails on it", async () => {
  await withFakeAgent("stray_stdout", async ({ agent, project }) => {
    const sessionId = await openSession(agent, project);
    await prompt(agent, sessionId, "hi");
    assertEquals(agent.stdoutViolations, [
      { kind: "stdout", message: 'A stdout line is not JSON: "stray log line"' },
    ]);
    const error = await assertRejects(() => agent.close());
    assert(error instanceof AssertionError);
    assertStringIncludes(error.message, "The agent broke the protocol 1 time(s):");
    assertStringIncludes(error.message, '[stdout] A stdout line is not JSON: "stray log line"');
    // The connection is closed all the same, and the result stays available.
    assertEquals((await agent.close({ allowViolations: true })).code, 0);
  });
});

Deno.test("a tool_call_update for an unannounced id is an ordering violation", async () => {
  await withFakeAgent("unannounced_update", async ({ agent, project }) => {
    const sessionId = await openSession(agent, project);
    await prompt(agent, sessionId, "hi");
    assertEquals(agent.orderingViolations, [{
      kind: "ordering",
      message: 'tool_call_update for toolCallId "ghost" in session "fake-session-1" before any ' +
        "tool_call announced it",
    }]);
    assertEquals(agent.schemaViolations, []);
  });
});

Deno.test("an update before the session/new answer is an ordering violation", async () => {
  await withFakeAgent("early_update", async ({ agent, project }) => {
    await openSession(agent, project);
    assertEquals(agent.orderingViolations.length, 1);
    assertStringIncludes(
      agent.orderingViolations[0]?.message ?? "",
      'session/update "available_commands_update" for session "fake-session-1", which no ' +
        "session/new answer has returned",
    );
  });
});

Deno.test("an invalid session/update is a schema violation", async () => {
  await withFakeAgent("bad_update", async ({ agent, project }) => {
    const sessionId = await openSession(agent, project);
    await prompt(agent, sessionId, "hi");
    assertEquals(agent.schemaViolations.length, 1);
    assertStringIncludes(
      agent.schemaViolations[0]?.message ?? "",
      'Missing required property "text" at /params/update/content in {"jsonrpc":"2.0"',
    );
    let thrown: unknown;
    try {
      agent.assertClean();
    } catch (error) {
      thrown = error;
    }
    assert(thrown instanceof AssertionError, "assertClean() did not fail");
  });
});

Deno.test("agent requests go to onRequest handlers; RpcError and unhandled ones are errors", async () => {
  await withFakeAgent("permission,fs,terminal", async ({ agent, project }) => {
    const asked: unknown[] = [];
    agent
      .onRequest("session/request_permission", (params) => {
        asked.push(params);
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      })
      .onRequest("fs/read_text_file", (params) => {
        throw new RpcError(-32002, "Resource not found", { params });
      });
    const sessionId = await openSession(agent, project, {
      fs: { readTextFile: true, writeTextFile: false },
      terminal: true,
    });
    assertEquals((await prompt(agent, sessionId, "go")).result, { stopReason: "end_turn" });
    assertEquals(asked.length, 1);
    const text = agent.agentText(sessionId);
    assertStringIncludes(text, "permission: allow_once");
    assertStringIncludes(text, '"code":-32002,"message":"Resource not found","data":{"params":');
    assertStringIncludes(
      text,
      'terminal: {"code":-32601,"message":"Method not found","data":{"method":"terminal/create"}}',
    );
    assertEquals(
      agent.toolCallUpdates(sessionId).map((update) => `${update.sessionUpdate} ${update.status}`),
      ["tool_call pending", "tool_call_update in_progress", "tool_call_update completed"],
    );
    assertEquals(agent.violations, []);
  });
});

Deno.test("a malformed line is answered with -32700 and id null, which is no violation", async () => {
  await withFakeAgent("", async ({ agent }) => {
    await agent.sendRaw("{not json");
    const answer = await agent.waitFor(
      () =>
        agent.messages.find((logged) =>
          logged.from === "agent" && isObject(logged.message) && logged.message.id === null
        ),
      { what: "the parse error", timeoutMs: 10_000 },
    );
    assert(isObject(answer.message) && isObject(answer.message.error));
    assertEquals(answer.message.error.code, -32700);
    assertEquals(agent.messages[0]?.line, "{not json");
    assertEquals(agent.messages[0]?.message, undefined);
    assertEquals(agent.violations, []);
  });
});

Deno.test("the agent exiting fails the pending request, with stderr in the message", async () => {
  await withFakeAgent("exit_on_prompt", async ({ agent, project }) => {
    const sessionId = await openSession(agent, project);
    const error = await assertRejects(() => prompt(agent, sessionId, "hi"));
    assert(error instanceof AssertionError);
    assertStringIncludes(
      error.message,
      'The agent exited (code 3) before answering request 3 "session/prompt"',
    );
    assertStringIncludes(error.message, "fake_agent: received session/prompt");
    await assertRejects(() => agent.request("session/prompt", {}), "A request after exit");
    assertEquals((await agent.close()).code, 3);
  });
});

Deno.test("close() fails on and kills an agent that does not exit when stdin closes", async () => {
  await withFakeAgent("linger", async ({ agent, project }) => {
    await openSession(agent, project);
    const error = await assertRejects(() => agent.close({ timeoutMs: 300 }));
    assert(error instanceof AssertionError);
    assertStringIncludes(
      error.message,
      "[lifecycle] The agent did not exit within 300 ms of its stdin closing",
    );
    const closed = await agent.close({ allowViolations: true });
    assertEquals(closed.signal, "SIGTERM");
  });
});

Deno.test("waitFor times out with the last messages in its error", async () => {
  await withFakeAgent("", async ({ agent, project }) => {
    await openSession(agent, project);
    const error = await assertRejects(() =>
      agent.waitFor(() => false, { timeoutMs: 50, what: "a miracle" })
    );
    assert(error instanceof AssertionError);
    assertStringIncludes(error.message, "Timed out after 50 ms waiting for a miracle");
    assertStringIncludes(error.message, '<- {"jsonrpc":"2.0","id":2,"result":{"sessionId"');
    const notified = agent.waitForNotification((notification) =>
      notification.method === "session/update"
    );
    await prompt(agent, "fake-session-1", "x");
    assertEquals((await notified).method, "session/update");
  });
});

Deno.test("TrafficMonitor.observe infers directions, also when both sides use an id", () => {
  const monitor = new TrafficMonitor();
  const update = (sessionUpdate: string) => ({
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: "s",
      update: { sessionUpdate, toolCallId: "c", title: "t", status: "pending" },
    },
  });
  const directions = [
    { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } },
    { jsonrpc: "2.0", id: 0, result: { protocolVersion: 1 } },
    { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/p", mcpServers: [] } },
    { jsonrpc: "2.0", id: 1, result: { sessionId: "s" } },
    { jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: "s", prompt: [] } },
    update("tool_call"),
    {
      jsonrpc: "2.0",
      id: 2,
      method: "session/request_permission",
      params: { sessionId: "s", toolCall: { toolCallId: "c" }, options: [] },
    },
    { jsonrpc: "2.0", id: 2, result: { outcome: { outcome: "cancelled" } } },
    update("tool_call_update"),
    { jsonrpc: "2.0", id: 2, result: { stopReason: "cancelled" } },
  ].map((message) => monitor.observe(message));
  assertEquals(directions, [
    "client",
    "agent",
    "client",
    "agent",
    "client",
    "agent",
    "agent",
    "client",
    "agent",
    "agent",
  ]);
  assertEquals(monitor.violations, []);
  monitor.observe({ jsonrpc: "2.0", id: 9, result: {} });
  assertEquals(monitor.violations, [{
    kind: "protocol",
    message: "Agent answered id 9, which no pending client request has",
  }]);
});
