/**
 * The real agent over real stdio with `--endpoint` at a loopback fake server: the turn loop,
 * tools, prompt hooks and cancel work on the OpenAI-compatible backend as on the llama one.
 * (The same on a real server: endpoint_server_test.ts.)
 */
import { assert, assertEquals, assertLess, assertStringIncludes } from "../helpers/assert.ts";
import { AcpHarness, type JsonObject } from "../helpers/acp_harness.ts";
import { textReply, toolCallReply } from "../helpers/openai_dialects.ts";
import { type FakeServer, startFakeServer } from "../helpers/openai_fake_server.ts";
import { type E2eProject, textPrompt as text, withE2eProject } from "./e2e_project.ts";
import { waitUntil } from "../helpers/wait_until.ts";

async function withEndpoint(
  files: Record<string, string>,
  fn: (p: E2eProject, server: FakeServer) => Promise<void>,
): Promise<void> {
  const server = startFakeServer({ models: [{ id: "served-model" }] });
  try {
    await withE2eProject(files, (p) => fn(p, server));
  } finally {
    await server.close();
  }
}

function startOn(p: E2eProject, server: FakeServer, extra: string[] = []) {
  return p.startAgent("served-model", ["--endpoint", server.baseUrl, ...extra]);
}

Deno.test("--endpoint: a text turn streams the server's reply and reports its usage as tokens", async () => {
  await withEndpoint({}, async (p, server) => {
    server.reply({ kind: "stream", chunks: textReply("Hello from the server.") });
    const agent = await startOn(p, server);
    const sessionId = await p.newSession(agent);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("hi"),
    }) as JsonObject;
    assertEquals(result.stopReason, "end_turn");
    assertEquals(agent.agentText(sessionId), "Hello from the server.");
    assertEquals((result._meta as { tokens: Record<string, number> }).tokens, {
      prompt: 50,
      evaluated: 50,
      generated: 7,
    });
    const messages = server.requests[0]!.messages as { role: string; content: string }[];
    assertEquals(messages.at(-1), { role: "user", content: "hi" });
    assertEquals(messages[0]!.role, "system");
    assertEquals((await agent.close()).code, 0);
  });
});

Deno.test("--endpoint: the server's tool call runs fs_read, and the result goes back as a tool message", async () => {
  await withEndpoint({ "project/notes.txt": "buy milk\n" }, async (p, server) => {
    server.reply(
      { kind: "stream", chunks: toolCallReply("vllm") },
      { kind: "stream", chunks: textReply("You need milk.") },
    );
    const agent = await startOn(p, server);
    const sessionId = await p.newSession(agent);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("read my notes"),
    }) as JsonObject;
    assertEquals(result.stopReason, "end_turn");
    const calls = agent.toolCallUpdates(sessionId);
    assertEquals(calls.at(-1)!.status, "completed");
    assertEquals(calls[0]!._meta, { tool_name: "fs_read" });
    const second = server.requests[1]!.messages as JsonObject[];
    const toolMessage = second.find((message) => message.role === "tool")!;
    assertStringIncludes(String(toolMessage.content), "buy milk");
    assertEquals(agent.agentText(sessionId), "Reading the notes.You need milk.");
    const tools = (server.requests[0]!.tools as { function: { name: string } }[])
      .map((tool) => tool.function.name);
    assertEquals(tools.includes("fs_read") && tools.includes("shell"), true);
    await agent.close();
  });
});

Deno.test("--endpoint: a prompt hook is answered through json_schema and its refusal blocks the prompt", async () => {
  const settings = JSON.stringify({
    hooks: {
      UserPromptSubmit: [{ hooks: [{ type: "prompt", prompt: "May this run? $ARGUMENTS" }] }],
    },
  });
  await withEndpoint({ "project/.claude/settings.json": settings }, async (p, server) => {
    server.reply({ kind: "stream", chunks: textReply('{"ok": false, "reason": "frozen"}') });
    const agent = await startOn(p, server);
    const sessionId = await p.newSession(agent);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("deploy"),
    }) as JsonObject;
    assertEquals(result.stopReason, "refusal");
    assertStringIncludes(agent.agentText(sessionId), "frozen");
    assertEquals(server.requests.length, 1);
    const format = server.requests[0]!.response_format as { type: string; json_schema: JsonObject };
    assertEquals(format.type, "json_schema");
    assertEquals(JSON.stringify(format.json_schema.schema).includes('"ok"'), true);
    await agent.close();
  });
});

Deno.test("--endpoint: cancel mid-stream answers cancelled and drops the server's request", async () => {
  await withEndpoint({}, async (p, server) => {
    server.reply({
      kind: "stream",
      chunks: textReply("Some words and more").slice(0, 1),
      hang: true,
    });
    const agent = await startOn(p, server);
    const sessionId = await p.newSession(agent);
    const prompt = agent.request("session/prompt", { sessionId, prompt: text("talk") });
    await waitUntil(() => agent.agentText(sessionId).length > 0, "streamed text");
    await agent.notify("session/cancel", { sessionId });
    const response = await prompt;
    assertEquals((response.result as JsonObject).stopReason, "cancelled");
    await server.disconnected;
    await agent.close();
  });
});

Deno.test("--endpoint: a server that is gone fails the prompt with a message that says so", async () => {
  await withEndpoint({}, async (p, server) => {
    const url = server.baseUrl;
    await server.close();
    const agent = await p.startAgent("served-model", ["--endpoint", url]);
    const sessionId = await p.newSession(agent);
    const response = await agent.request("session/prompt", { sessionId, prompt: text("hi") });
    assertStringIncludes(JSON.stringify(response.error), `Cannot reach the model server at ${url}`);
    await agent.close();
  });
});

Deno.test("--endpoint: the Model option lists the server's models, and a switch sends the next turn to the chosen one", async () => {
  const server = startFakeServer({ models: [{ id: "small" }, { id: "large" }] });
  try {
    await withE2eProject({}, async (p) => {
      server.reply(
        { kind: "stream", chunks: textReply("from small") },
        { kind: "stream", chunks: textReply("from large") },
      );
      const agent = await p.startAgent("small", ["--endpoint", server.baseUrl]);
      const created = await agent.call("session/new", { cwd: p.cwd, mcpServers: [] }) as JsonObject;
      const sessionId = String(created.sessionId);
      const option = (created.configOptions as JsonObject[]).find((o) => o.id === "model")!;
      assertEquals(option.category, "model");
      assertEquals(option.currentValue, "endpoint:small");
      assertEquals(
        (option.options as JsonObject[]).map((o) => o.value),
        ["endpoint:small", "endpoint:large"],
      );
      await agent.call("session/prompt", { sessionId, prompt: text("one") });
      await agent.call("session/set_config_option", {
        sessionId,
        configId: "model",
        value: "endpoint:large",
      });
      await agent.call("session/prompt", { sessionId, prompt: text("two") });
      assertEquals(server.requests.map((body) => body.model), ["small", "large"]);
      // The conversation goes with the switch: the large model sees the first turn.
      const seen = JSON.stringify(server.requests[1]!.messages);
      assertStringIncludes(seen, "from small");
      await agent.close();
    });
  } finally {
    await server.close();
  }
});

/** The agent on `server` with its key in $MY_KEY and a custom header, in the project `p`. */
async function startWithSecrets(p: E2eProject, server: FakeServer): Promise<AcpHarness> {
  const agent = await AcpHarness.start({
    cwd: p.cwd,
    home: p.home,
    args: ["--endpoint", server.baseUrl, "--api-key-env", "MY_KEY"],
    env: { MY_KEY: KEY, OPENAI_CUSTOM_HEADERS: `api-key: ${HEADER_SECRET}` },
  });
  await agent.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
  return agent;
}

const KEY = "sk-e2e-secret-0123456789";
const HEADER_SECRET = "header-secret-0123456789";

/** Every session transcript (raw.jsonl) under HOME, as text. */
async function transcripts(home: string): Promise<string> {
  const dir = `${home}/.local/state/llama-agent/sessions`;
  let text = "";
  for await (const session of Deno.readDir(dir)) {
    text += await Deno.readTextFile(`${dir}/${session.name}/raw.jsonl`);
  }
  return text;
}

Deno.test("--endpoint: a server that echoes the key in its error: the client's error, stderr and the transcript show it redacted", async () => {
  await withEndpoint({}, async (p, server) => {
    server.reply({ kind: "echo_headers", status: 400 });
    const agent = await startWithSecrets(p, server);
    const sessionId = await p.newSession(agent);
    const response = await agent.request("session/prompt", { sessionId, prompt: text("hi") });
    const error = JSON.stringify(response.error);
    assertStringIncludes(error, "authorization: Bearer [redacted]");
    assertStringIncludes(error, "api-key: [redacted]");
    await agent.close();
    const written = [error, agent.stderr, await transcripts(p.home)];
    assertStringIncludes(written[2]!, "Bearer [redacted]");
    for (const secret of [KEY, HEADER_SECRET]) {
      assert(written.every((text) => !text.includes(secret)), written.join("\n---\n"));
    }
    // It was sent, all the same: only what came back was redacted.
    assertEquals(server.authorizations.at(-1), `Bearer ${KEY}`);
  });
});

Deno.test("--endpoint: a server that streams forever: the turn ends as max_tokens with a notice, and the transcript stays small", async () => {
  await withEndpoint({}, async (p, server) => {
    // A call's arguments that never end: text that repeats itself is stopped sooner, at the
    // repetition (repetition_fake_server_test.ts).
    const call = (fn: object) => ({ choices: [{ index: 0, delta: { tool_calls: [fn] } }] });
    server.reply({
      kind: "stream",
      chunks: [call({ index: 0, id: "a", function: { name: "shell", arguments: '{"command":"' } })],
      forever: call({ index: 0, function: { arguments: "again " } }),
    });
    const agent = await startOn(p, server);
    const sessionId = await p.newSession(agent);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("talk"),
    }) as JsonObject;
    assertEquals(result.stopReason, "max_tokens");
    await server.disconnected;
    assertStringIncludes(agent.agentText(sessionId), "the reply was cut there");
    assertEquals(server.requests[0]!.max_tokens, 2048);
    await agent.close();
    // 2048 tokens of 12 characters at most, each streamed update a line of its own.
    assertLess((await transcripts(p.home)).length, 8 * 1024 * 1024);
  });
});
