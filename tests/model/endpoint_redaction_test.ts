/**
 * What a model server says reaches the user (the client's answer, stderr, the transcript) with
 * the key and custom header values redacted, and a server's own words cut to a few hundred
 * characters, whatever the server sends back.
 */
import {
  assert,
  assertEquals,
  assertLess,
  assertRejectsWith,
  assertStringIncludes,
} from "../helpers/assert.ts";
import { textReply } from "../helpers/openai_dialects.ts";
import { type FakeServer, startFakeServer } from "../helpers/openai_fake_server.ts";
import { openEndpointModel } from "../../src/model/openai/openai_model.ts";
import type { GenerateRequest } from "../../src/model/model.ts";
import { AgentError } from "../../src/error.ts";

const KEY = "sk-echo-test-0123456789";
const HEADER_SECRET = "custom-header-secret-42";
const env = (name: string): string | undefined => (name === "MY_KEY" ? KEY : undefined);

async function withServer(
  fn: (server: FakeServer) => Promise<void>,
  options?: Parameters<typeof startFakeServer>[0],
): Promise<void> {
  const server = startFakeServer(options);
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

function ask(extra: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    conversation: [{ role: "user", text: "hi" }],
    tools: [],
    signal: new AbortController().signal,
    onTextChunk: () => {},
    onThoughtChunk: () => {},
    ...extra,
  };
}

async function generateError(server: FakeServer, withEnv = env): Promise<AgentError> {
  const model = await openEndpointModel({
    baseUrl: server.baseUrl,
    apiKeyEnv: "MY_KEY",
    env: withEnv,
  });
  const session = await model.openSession();
  return await assertRejectsWith(() => session.generate(ask()), AgentError);
}

Deno.test("a server that echoes the request's headers in its error: the key is redacted from the message", async () => {
  await withServer(async (server) => {
    server.reply({ kind: "echo_headers", status: 400 });
    const error = await generateError(server);
    assertStringIncludes(error.message, "authorization: Bearer [redacted]");
    assert(!error.message.includes(KEY), error.message);
    // Nothing else keeps the server's words whole: the error has no cause to print.
    assertEquals(error.cause, undefined);
  });
});

Deno.test("a custom header's value (OPENAI_CUSTOM_HEADERS) echoed back is redacted too", async () => {
  const headers = `api-key: ${HEADER_SECRET}`;
  const before = Deno.env.get("OPENAI_CUSTOM_HEADERS");
  Deno.env.set("OPENAI_CUSTOM_HEADERS", headers);
  try {
    await withServer(async (server) => {
      server.reply({ kind: "echo_headers", status: 500 });
      const error = await generateError(
        server,
        (name) => (name === "OPENAI_CUSTOM_HEADERS" ? headers : env(name)),
      );
      assertStringIncludes(error.message, "api-key: [redacted]");
      assert(!error.message.includes(HEADER_SECRET) && !error.message.includes(KEY));
    });
  } finally {
    if (before === undefined) Deno.env.delete("OPENAI_CUSTOM_HEADERS");
    else Deno.env.set("OPENAI_CUSTOM_HEADERS", before);
  }
});

Deno.test("a 5 MB error body is quoted in a few hundred characters, with the count of the rest", async () => {
  await withServer(async (server) => {
    server.reply({
      kind: "error",
      status: 500,
      body: { error: { message: `overloaded ${KEY} ` + "x".repeat(5_000_000) } },
    });
    const error = await generateError(server);
    assertStringIncludes(error.message, 'failed (500): "overloaded [redacted] xxx');
    assertStringIncludes(error.message, "more characters)");
    assertLess(error.message.length, 600);
  });
});

Deno.test("an error event in the middle of a stream is redacted and cut as well", async () => {
  await withServer(async (server) => {
    server.reply({
      kind: "stream",
      chunks: [{ error: { message: `upstream refused ${KEY}: ` + "z".repeat(100_000) } }],
    });
    const error = await generateError(server);
    assertStringIncludes(error.message, "upstream refused [redacted]");
    assertLess(error.message.length, 600);
  });
});

Deno.test("streamed text that repeats the key is redacted, a key split across chunks included", async () => {
  await withServer(async (server) => {
    const chunks = textReply("x");
    const piece = (content: string) => ({
      ...(chunks[1] as object),
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    });
    server.reply({
      kind: "stream",
      chunks: [piece("your key is "), piece(KEY.slice(0, 9)), piece(KEY.slice(9) + ", keep it")],
    });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, apiKeyEnv: "MY_KEY", env });
    const streamed: string[] = [];
    const result = await (await model.openSession()).generate(
      ask({ onTextChunk: (text) => streamed.push(text) }),
    );
    assertEquals(result.text, "your key is [redacted], keep it");
    assertEquals(streamed.join(""), result.text);
  });
});

Deno.test("a listed model whose id repeats the key is left out, and never becomes the model", async () => {
  await withServer(async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, apiKeyEnv: "MY_KEY", env });
    assertEquals(model.displayName, "plain-model");
  }, { models: [{ id: `leak-${KEY}` }, { id: "plain-model" }] });
});
