/**
 * Nothing a model server sends grows the agent without bound: each request asks for at most the
 * answer cap's tokens, and a reply that goes on past it anyway (a loop, a server that ignores
 * `max_tokens`) is cut at its characters, its request dropped, and the turn ended as `max_tokens`
 * with a notice that says so.
 */
import { assert, assertEquals, assertLess, assertStringIncludes } from "../helpers/assert.ts";
import { textReply } from "../helpers/openai_dialects.ts";
import { type FakeServer, startFakeServer } from "../helpers/openai_fake_server.ts";
import { openEndpointModel } from "../../src/model/openai/openai_model.ts";
import type { GenerateRequest } from "../../src/model/model.ts";
import { answerTokenCap, contextForPrompt, replyCharCap } from "../../src/model/answer_cap.ts";

const noEnv = () => undefined;

async function withServer(fn: (server: FakeServer) => Promise<void>): Promise<void> {
  const server = startFakeServer();
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

function delta(delta: object): object {
  return { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta }] };
}

Deno.test("the answer cap is a quarter of the context, and at least 512 tokens", () => {
  assertEquals([answerTokenCap(1024), answerTokenCap(8192), answerTokenCap(32768)], [
    512,
    2048,
    8192,
  ]);
});

Deno.test("the context a prompt needs holds it and the answer cap of that context, and no smaller one does", () => {
  for (const setting of [undefined, 300, 4000]) {
    for (const prompt of [1, 900, 1536, 3348, 3349, 20000]) {
      const size = contextForPrompt(prompt, setting);
      assert(prompt + answerTokenCap(size, setting) <= size, `${prompt} in ${size}`);
      assert(prompt + answerTokenCap(size - 1, setting) > size - 1, `${prompt} in ${size - 1}`);
    }
  }
  // A 3,348-token prompt at 4096 has a 1,024-token cap, but 4,372 has a 1,093-token one.
  assertEquals(contextForPrompt(3348), 4463);
});

Deno.test("every request asks for max_tokens: the answer cap of the context, or what the caller asked", async () => {
  await withServer(async (server) => {
    server.reply(
      { kind: "stream", chunks: textReply("a") },
      { kind: "stream", chunks: textReply("b") },
      { kind: "stream", chunks: textReply("c") },
    );
    for (const contextSize of [1024, 8192]) {
      const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv, contextSize });
      await (await model.openSession()).generate(ask());
    }
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    await (await model.openSession()).generate(ask({ maxTokens: 64 }));
    assertEquals(server.requests.map((body) => body.max_tokens), [512, 2048, 64]);
  });
});

Deno.test("a reply that never ends is cut at the answer cap: max_tokens, a notice, and the request dropped", async () => {
  await withServer(async (server) => {
    server.reply({ kind: "stream", chunks: [], forever: delta({ content: "and on " }) });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    let streamed = 0;
    const result = await (await model.openSession()).generate(
      ask({ onTextChunk: (text) => (streamed += text.length) }),
    );
    await server.disconnected;
    const cap = replyCharCap(answerTokenCap(8192));
    assertEquals(result.stop, "max_tokens");
    assertEquals(streamed, result.text.length);
    assert(result.text.length > cap / 2, `only ${result.text.length} characters came`);
    assertLess(result.text.length, cap + 1);
    assertStringIncludes(
      result.notice ?? "",
      `sent more than ${cap} characters in one reply, though it was asked for at most 2048 ` +
        "tokens: the reply was cut there",
    );
  });
});

Deno.test("endless reasoning, tool-call arguments, or empty chunks are cut the same way", async () => {
  const endless = [
    delta({ reasoning_content: "thinking " }),
    delta({ tool_calls: [{ index: 0, function: { arguments: '"more' } }] }),
    delta({}),
  ];
  for (const forever of endless) {
    await withServer(async (server) => {
      server.reply({
        kind: "stream",
        chunks: [delta({ tool_calls: [{ index: 0, id: "a", function: { name: "shell" } }] })],
        forever,
      });
      const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
      const tool = { name: "shell", description: "Run", inputSchema: { type: "object" } };
      const result = await (await model.openSession()).generate(ask({ tools: [tool] }));
      await server.disconnected;
      assertEquals([result.stop, result.toolCalls], ["max_tokens", []]);
      assertLess(result.thought.length, replyCharCap(2048) + 1);
    });
  }
});

Deno.test("a reply that ends within the cap is not cut and has no notice", async () => {
  await withServer(async (server) => {
    server.reply({ kind: "stream", chunks: textReply("short and done") });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const result = await (await model.openSession()).generate(ask());
    assertEquals([result.text, result.stop, result.notice], ["short and done", "end", undefined]);
  });
});
