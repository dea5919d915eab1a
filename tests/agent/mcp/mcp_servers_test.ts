/**
 * A session's MCP servers against the real fixture server (its own process, over stdio and over
 * Streamable HTTP on loopback): what the model is offered, what a call returns, and every way a
 * server can fail without taking the session with it.
 */
import { McpServers, type McpServersOptions } from "../../../src/agent/mcp/mcp_servers.ts";
import { mcpToolName } from "../../../src/agent/mcp/mcp_tool_name.ts";
import type { McpServer } from "@agentclientprotocol/sdk";
import { assert, assertEquals, assertLess, assertStringIncludes } from "../../helpers/assert.ts";
import { livingPidsMatching } from "../../hooks/process_probe.ts";
import { FIXTURE_TOOL_NAMES, startHttpFixture, stdioFixture } from "../../mcp/fixture_servers.ts";
import { RAW_SERVER_PATH } from "../../mcp/raw_server.ts";

const NEVER = new AbortController().signal;

async function withServers(
  specs: readonly McpServer[],
  fn: (servers: McpServers, logs: string[]) => Promise<void>,
  limits: Partial<McpServersOptions> = {},
): Promise<void> {
  const logs: string[] = [];
  const servers = McpServers.start(specs, {
    cwd: Deno.cwd(),
    env: Deno.env.toObject(),
    startTimeoutMs: 20_000,
    callTimeoutMs: 20_000,
    killGraceMs: 500,
    clientVersion: "0.0.0-test",
    log: (line) => logs.push(line),
    ...limits,
  });
  try {
    await servers.ready();
    await fn(servers, logs);
  } finally {
    await servers.close();
  }
}

function toolOf(servers: McpServers, name: string) {
  const found = servers.lookup(name);
  if (found.kind !== "tool") throw new Error(`${name} is not on offer: ${JSON.stringify(found)}`);
  return found.tool;
}

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 5000) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Not so after ${timeoutMs} ms: ${what}`);
}

function marker(): string {
  return `mcp-test-${crypto.randomUUID()}`;
}

Deno.test("a server's tools are offered as mcp__<server>__<tool> with their JSON schemas", async () => {
  await withServers([stdioFixture()], (servers) => {
    const definitions = servers.definitions();
    assertEquals(definitions.map((d) => d.name), FIXTURE_TOOL_NAMES);
    const echo = definitions[0]!;
    assertEquals(echo.description, "Echoes the text back");
    assertEquals((echo.inputSchema as { required?: string[] }).required, ["text"]);
    return Promise.resolve();
  });
});

Deno.test("names a model cannot emit are reduced to letters, digits, _ and -", () => {
  assertEquals(mcpToolName("my server.v2", "read/file"), "mcp__my_server_v2__read_file");
});

Deno.test("a call answers with the server's result, and the server's own result as rawOutput", async () => {
  await withServers([stdioFixture()], async (servers) => {
    const result = await servers.call(toolOf(servers, "mcp__fixture__echo"), { text: "hi" }, NEVER);
    assertEquals(result.status, "completed");
    assertEquals(result.modelText, "echo: hi");
    assertEquals(result.rawOutput, { content: [{ type: "text", text: "echo: hi" }] });
    assertEquals(result.content, [{
      type: "content",
      content: { type: "text", text: "echo: hi" },
    }]);
  });
});

Deno.test("an isError result is a failed call carrying the server's message", async () => {
  await withServers([stdioFixture()], async (servers) => {
    const result = await servers.call(
      toolOf(servers, "mcp__fixture__fail"),
      { message: "nope" },
      NEVER,
    );
    assertEquals(result.status, "failed");
    assertEquals(result.modelText, "nope");
    assertEquals(result.interrupted, false);
  });
});

Deno.test("input that is not an object is refused before it reaches the server", async () => {
  await withServers([stdioFixture()], async (servers) => {
    const result = await servers.call(toolOf(servers, "mcp__fixture__echo"), "hi", NEVER);
    assertEquals(result.status, "failed");
    assertStringIncludes(result.modelText, "must be a JSON object");
    // Text that is not JSON is called so, with where it broke.
    assertStringIncludes(result.modelText, "not valid JSON: Unexpected token 'h'");
    assertStringIncludes(result.modelText, "(at position 0, line 1 column 1)");
  });
});

Deno.test("the server's refusal of bad arguments is a failed call naming the tool", async () => {
  await withServers([stdioFixture()], async (servers) => {
    const result = await servers.call(toolOf(servers, "mcp__fixture__echo"), { text: 42 }, NEVER);
    assertEquals(result.status, "failed");
    assertStringIncludes(result.modelText.toLowerCase(), "text");
  });
});

Deno.test("an unknown server or tool is unavailable with a message that lists what there is", async () => {
  await withServers([stdioFixture()], (servers) => {
    const noServer = servers.lookup("mcp__github__create_issue");
    assertEquals(noServer.kind, "unavailable");
    if (noServer.kind === "unavailable") {
      assertStringIncludes(noServer.message, `no MCP server "github"`);
      assertStringIncludes(noServer.message, `"fixture"`);
    }
    const noTool = servers.lookup("mcp__fixture__nope");
    assertEquals(noTool.kind, "unavailable");
    if (noTool.kind === "unavailable") assertStringIncludes(noTool.message, "mcp__fixture__echo");
    assertEquals(servers.lookup("shell").kind, "none");
    return Promise.resolve();
  });
});

Deno.test("a command that does not exist fails to start with the OS's reason", async () => {
  const bad: McpServer = { name: "bad", command: "/nonexistent/mcp-server", args: [], env: [] };
  await withServers([bad, stdioFixture()], (servers, logs) => {
    const status = servers.statuses.find((s) => s.name === "bad")!.status;
    assertEquals(status.kind, "failed");
    if (status.kind === "failed") {
      assertStringIncludes(status.message, `MCP server "bad" failed to start`);
      assertStringIncludes(status.message, `cannot run "/nonexistent/mcp-server"`);
      assertStringIncludes(status.message, "No such file or directory");
    }
    assert(logs.some((line) => line.includes(`"bad" failed to start`)), "the log says why");
    // The other server is not held back by the bad one.
    assertEquals(servers.statuses.find((s) => s.name === "fixture")!.status.kind, "ready");
    return Promise.resolve();
  });
});

Deno.test("a server that exits before it is ready is reported with its exit code and stderr", async () => {
  await withServers([stdioFixture({ args: ["--exit-at-start"] })], (servers) => {
    const problems: string[] = [];
    servers.watch((problem) => problems.push(problem));
    assertEquals(problems.length, 1, "a watcher hears of earlier problems");
    assertStringIncludes(problems[0]!, "exit code 3");
    assertStringIncludes(problems[0]!, "fixture: told to exit at start");
    assertEquals(servers.definitions(), []);
    return Promise.resolve();
  });
});

Deno.test("a server that never answers times out, and its whole process group is ended", async () => {
  const word = marker();
  const started = performance.now();
  await withServers(
    [stdioFixture({ args: ["--hang", "--child", "--marker", word] })],
    async (servers) => {
      assertLess(performance.now() - started, 10_000);
      const status = servers.statuses[0]!.status;
      assertEquals(status.kind, "failed");
      if (status.kind === "failed") assertStringIncludes(status.message, "did not answer within");
      await eventually(
        async () => (await livingPidsMatching(word)).length === 0,
        "the hung server and its child are gone",
      );
    },
    { startTimeoutMs: 1_500 },
  );
});

Deno.test("a server that crashes mid-call fails that call, and its tools are gone, not the others'", async () => {
  await withServers([stdioFixture(), stdioFixture({ name: "other" })], async (servers) => {
    const problems: string[] = [];
    servers.watch((problem) => problems.push(problem));
    const result = await servers.call(toolOf(servers, "mcp__fixture__crash"), {}, NEVER);
    assertEquals(result.status, "failed");
    assertStringIncludes(result.modelText, `MCP server "fixture" stopped during the session`);
    assertStringIncludes(result.modelText, "exit code 7");
    assertStringIncludes(result.modelText, "fixture: crashing on purpose");
    assertEquals(problems.length, 1, "the user is told once");
    const after = servers.lookup("mcp__fixture__echo");
    assertEquals(after.kind, "unavailable");
    assert(servers.definitions().every((d) => d.name.startsWith("mcp__other__")));
    const other = await servers.call(toolOf(servers, "mcp__other__echo"), { text: "ok" }, NEVER);
    assertEquals(other.modelText, "echo: ok");
  });
});

Deno.test("a cancelled call ends at once as interrupted, and the server lives on", async () => {
  await withServers([stdioFixture()], async (servers) => {
    const controller = new AbortController();
    const started = performance.now();
    const call = servers.call(
      toolOf(servers, "mcp__fixture__slow"),
      { ms: 30_000 },
      controller.signal,
    );
    setTimeout(() => controller.abort(), 100);
    const result = await call;
    assertLess(performance.now() - started, 5_000);
    assertEquals(result.status, "failed");
    assertEquals(result.interrupted, true);
    const next = await servers.call(
      toolOf(servers, "mcp__fixture__echo"),
      { text: "still" },
      NEVER,
    );
    assertEquals(next.modelText, "echo: still");
  });
});

Deno.test("a call that outlives its timeout fails with how long it was given", async () => {
  await withServers([stdioFixture()], async (servers) => {
    const result = await servers.call(toolOf(servers, "mcp__fixture__slow"), { ms: 30_000 }, NEVER);
    assertEquals(result.status, "failed");
    assertEquals(result.interrupted, false);
    assertStringIncludes(result.modelText, "did not answer mcp__fixture__slow within 0.5 s");
  }, { callTimeoutMs: 500 });
});

Deno.test("a tool list change is picked up: the new tool is offered and runs", async () => {
  await withServers([stdioFixture()], async (servers) => {
    assertEquals(servers.lookup("mcp__fixture__late").kind, "unavailable");
    await servers.call(toolOf(servers, "mcp__fixture__grow"), {}, NEVER);
    await eventually(
      () => Promise.resolve(servers.definitions().some((d) => d.name === "mcp__fixture__late")),
      "the late tool is offered",
    );
    const late = await servers.call(toolOf(servers, "mcp__fixture__late"), {}, NEVER);
    assertEquals(late.modelText, "late tool ran");
  });
});

Deno.test("closing ends a stdio server's whole process group", async () => {
  const word = marker();
  await withServers([stdioFixture({ args: ["--child", "--marker", word] })], async () => {
    await eventually(
      async () => (await livingPidsMatching(word)).length >= 2,
      "the server and its child run",
    );
  });
  await eventually(
    async () => (await livingPidsMatching(word)).length === 0,
    "nothing of the server is left",
  );
});

Deno.test("two servers of one name: the second is not used, and the user is told why", async () => {
  await withServers([stdioFixture(), stdioFixture()], (servers) => {
    const problems: string[] = [];
    servers.watch((problem) => problems.push(problem));
    assertEquals(servers.statuses.length, 1);
    assertStringIncludes(problems[0] ?? "", 'also named "fixture"');
    return Promise.resolve();
  });
});

Deno.test("an SSE server is refused with what is supported", async () => {
  const sse: McpServer = { type: "sse", name: "old", url: "http://127.0.0.1:9/sse", headers: [] };
  await withServers([sse], (servers) => {
    const status = servers.statuses[0]!.status;
    assertEquals(status.kind, "failed");
    if (status.kind === "failed") assertStringIncludes(status.message, "stdio and Streamable HTTP");
    return Promise.resolve();
  });
});

Deno.test("Streamable HTTP: headers are sent, tools are listed and called", async () => {
  await using http = await startHttpFixture(["--require-header", "X-Token:secret"]);
  await withServers([http.entry({ headers: { "X-Token": "secret" } })], async (servers) => {
    const result = await servers.call(
      toolOf(servers, "mcp__fixture__echo"),
      { text: "web" },
      NEVER,
    );
    assertEquals(result.modelText, "echo: web");
  });
});

Deno.test("Streamable HTTP: a server that refuses us fails to start with the HTTP status", async () => {
  await using http = await startHttpFixture(["--require-header", "X-Token:secret"]);
  await withServers([http.entry()], (servers) => {
    const status = servers.statuses[0]!.status;
    assertEquals(status.kind, "failed");
    if (status.kind === "failed") assertStringIncludes(status.message, "401");
    return Promise.resolve();
  });
});

Deno.test("Streamable HTTP: nothing listening is a failed start, not a hang", async () => {
  const closed: McpServer = {
    type: "http",
    name: "gone",
    url: "http://127.0.0.1:9/mcp",
    headers: [],
  };
  const started = performance.now();
  await withServers([closed], (servers) => {
    assertLess(performance.now() - started, 10_000);
    assertEquals(servers.statuses[0]!.status.kind, "failed");
    return Promise.resolve();
  });
});

Deno.test("Streamable HTTP: a bad URL fails to start with the URL named", async () => {
  const bad: McpServer = { type: "http", name: "typo", url: "not a url", headers: [] };
  await withServers([bad], (servers) => {
    const status = servers.statuses[0]!.status;
    assertEquals(status.kind, "failed");
    if (status.kind === "failed") assertStringIncludes(status.message, `"not a url"`);
    return Promise.resolve();
  });
});

function rawServer(mode: string, arg?: string, name = "raw"): McpServer {
  return {
    name,
    command: Deno.execPath(),
    args: ["run", RAW_SERVER_PATH, mode, ...(arg === undefined ? [] : [arg])],
    env: [],
  };
}

Deno.test("a long answer arrives whole; a message past the limit ends the server, saying why", async () => {
  await withServers([stdioFixture()], async (servers) => {
    const big = toolOf(servers, "mcp__fixture__big");
    const whole = await servers.call(big, { chars: 3_000_000 }, NEVER);
    assertEquals(whole.status, "completed");
    assertEquals(whole.modelText.length, 3_000_000);
    const over = await servers.call(big, { chars: 5_000_000 }, NEVER);
    assertEquals(over.status, "failed");
    assertStringIncludes(over.modelText, `MCP server "fixture" stopped during the session`);
    assertStringIncludes(over.modelText, "it wrote a message longer than 4 MiB");
  }, { maxMessageBytes: 4 * 2 ** 20 });
});

Deno.test("a server that writes one endless line is ended at the limit, not buffered forever", async () => {
  await withServers([rawServer("endless-line")], (servers) => {
    const status = servers.statuses[0]!.status;
    assert(status.kind === "failed" || status.kind === "lost", JSON.stringify(status));
    assertStringIncludes(status.message, "it wrote a message longer than 1 MiB");
    return Promise.resolve();
  }, { maxMessageBytes: 2 ** 20 });
});

Deno.test("a server that refuses initialize is reported with its own reason", async () => {
  await withServers([rawServer("refuse-initialize", "license expired")], (servers) => {
    const status = servers.statuses[0]!.status;
    assertEquals(status.kind, "failed");
    if (status.kind === "failed") {
      assertStringIncludes(status.message, "license expired");
      assert(!status.message.includes("SIGTERM"), status.message);
    }
    return Promise.resolve();
  });
});

Deno.test("a start that times out says what the server wrote that was not JSON-RPC", async () => {
  await withServers([rawServer("garbage-stdout")], (servers) => {
    const status = servers.statuses[0]!.status;
    assertEquals(status.kind, "failed");
    if (status.kind === "failed") {
      assertStringIncludes(status.message, "did not answer within 1.5 s");
      assertStringIncludes(status.message, "not JSON-RPC");
    }
    return Promise.resolve();
  }, { startTimeoutMs: 1_500 });
});

Deno.test("an invalid tool list is reported as where and what, not a schema dump", async () => {
  await withServers([rawServer("bad-schema")], (servers) => {
    const status = servers.statuses[0]!.status;
    assertEquals(status.kind, "failed");
    if (status.kind === "failed") {
      assertStringIncludes(status.message, "tools.1.inputSchema.type");
      assert(!status.message.includes("\n"), `one line: ${status.message}`);
    }
    return Promise.resolve();
  });
});

Deno.test("a tool list change announced while connecting is read once the server is ready", async () => {
  await withServers([rawServer("change-during-connect")], async (servers) => {
    await eventually(
      () => Promise.resolve(servers.definitions().some((d) => d.name === "mcp__raw__late")),
      "the late tool is offered",
    );
  });
});

Deno.test("tools whose names become the same: the first is offered and called, the user is told", async () => {
  await withServers(
    [stdioFixture({ args: ["--extra-tool", "read.file", "--extra-tool", "read_file"] })],
    async (servers) => {
      const problems: string[] = [];
      servers.watch((problem) => problems.push(problem));
      const names = servers.definitions().map((d) => d.name);
      assertEquals(names.filter((n) => n === "mcp__fixture__read_file").length, 1);
      const result = await servers.call(toolOf(servers, "mcp__fixture__read_file"), {}, NEVER);
      assertEquals(result.modelText, "ran read.file");
      assertEquals(problems.length, 1);
      assertStringIncludes(problems[0]!, `"read.file" and "read_file" both become`);
    },
  );
});

Deno.test("a server name with __ (or nothing left after normalizing) is refused with why", async () => {
  await withServers(
    [stdioFixture({ name: "my__srv" }), stdioFixture({ name: "..." })],
    (servers) => {
      const problems: string[] = [];
      servers.watch((problem) => problems.push(problem));
      assertEquals(servers.statuses.length, 0);
      assertEquals(problems.length, 2);
      assertStringIncludes(problems[0]!, `MCP server "my__srv" is not used`);
      return Promise.resolve();
    },
  );
});
