/**
 * A request over a server's context, in each server's words, is `CONTEXT_FULL` with the numbers
 * the server gave: what the agent needs to compact and try again, never a dead session.
 */
import { assertEquals, assertRejectsWith, assertStringIncludes } from "../helpers/assert.ts";
import {
  type FakeServer,
  type FakeServerOptions,
  llamaServerProps,
  promptTokensOf,
  startFakeServer,
} from "../helpers/openai_fake_server.ts";
import { textReply } from "../helpers/openai_dialects.ts";
import { openEndpointModel } from "../../src/model/openai/openai_model.ts";
import { ContextFullError, contextOverflowOf } from "../../src/model/context_full_error.ts";
import type { GenerateRequest } from "../../src/model/model.ts";
import { AgentError } from "../../src/error.ts";

const noEnv = () => undefined;

async function withServer(
  options: FakeServerOptions,
  run: (server: FakeServer) => Promise<void>,
): Promise<void> {
  const server = startFakeServer(options);
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

function ask(text: string): GenerateRequest {
  return {
    conversation: [{ role: "user", text }],
    tools: [],
    signal: new AbortController().signal,
    onTextChunk: () => {},
    onThoughtChunk: () => {},
  };
}

/** The error a request gets from a server that answers `status` with `body`. */
async function overflowFrom(status: number, body: unknown): Promise<ContextFullError> {
  let error: ContextFullError | undefined;
  await withServer({}, async (server) => {
    server.reply({ kind: "error", status, body });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const session = await model.openSession();
    error = await assertRejectsWith(() => session.generate(ask("a long prompt")), ContextFullError);
  });
  return error!;
}

Deno.test("llama-server's exceed_context_size_error is CONTEXT_FULL with n_prompt_tokens and n_ctx", async () => {
  const error = await overflowFrom(400, {
    error: {
      code: 400,
      message: "the request exceeds the available context size, try increasing it",
      type: "exceed_context_size_error",
      n_prompt_tokens: 5120,
      n_ctx: 4096,
    },
  });
  assertEquals([error.code, error.overflow], ["CONTEXT_FULL", {
    promptTokens: 5120,
    contextSize: 4096,
  }]);
  assertStringIncludes(error.message, "llama-server -c");
});

Deno.test("vLLM's wordings of an overflow are CONTEXT_FULL with the numbers in them", async () => {
  const cases: [string, { promptTokens: number; contextSize: number }][] = [
    [
      "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens " +
      "(4000 in the messages, 1000 in the completion). Please reduce the length of the messages " +
      "or completion.",
      { promptTokens: 4000, contextSize: 4096 },
    ],
    [
      "This model's maximum context length is 1536 tokens. However, your request has 4176 input " +
      "tokens. Please reduce the length of the input messages.",
      { promptTokens: 4176, contextSize: 1536 },
    ],
    [
      "'max_tokens' or 'max_completion_tokens' is too large: 1024. This model's maximum context " +
      "length is 4096 tokens and your request has 3500 input tokens (1024 > 4096 - 3500).",
      { promptTokens: 3500, contextSize: 4096 },
    ],
    [
      "You passed 32,769 input tokens and requested 1024 output tokens. However, the model's " +
      "context length is only 32,768 tokens, resulting in a maximum input length of 31744 " +
      "tokens. Please reduce the length of the input prompt. (parameter=input_tokens, " +
      "value=32769)",
      { promptTokens: 32769, contextSize: 32768 },
    ],
  ];
  for (const [message, overflow] of cases) {
    const error = await overflowFrom(400, {
      error: { message, type: "BadRequestError", param: null, code: 400 },
    });
    assertEquals(error.overflow, overflow, message);
  }
});

Deno.test("an error object at the top level of the body (vLLM before 0.9) is read, not lost", async () => {
  const error = await overflowFrom(400, {
    object: "error",
    message: "This model's maximum context length is 2048 tokens. However, you requested 2600 " +
      "tokens (2400 in the messages, 200 in the completion).",
    type: "BadRequestError",
    param: null,
    code: 400,
  });
  assertEquals(error.overflow, { promptTokens: 2400, contextSize: 2048 });
  assertStringIncludes(error.message, "maximum context length is 2048 tokens");
});

Deno.test("Ollama's and LM Studio's overflows are CONTEXT_FULL, with the numbers where they give them", async () => {
  const ollama = await overflowFrom(400, {
    error: {
      message: "the input length exceeds the context length",
      type: "api_error",
      param: null,
      code: null,
    },
  });
  assertEquals(ollama.overflow, {});
  const lmStudio = await overflowFrom(400, {
    error: "Trying to keep the first 5000 tokens when context the overflows. However, the model " +
      "is loaded with context length of only 4096 tokens, which is not enough. Try to load the " +
      "model with a larger context length, or provide a shorter input",
  });
  assertEquals(lmStudio.overflow, { promptTokens: 5000, contextSize: 4096 });
  const exceeded = await overflowFrom(500, {
    error: { code: 500, message: "Context size has been exceeded.", type: "server_error" },
  });
  assertEquals(exceeded.code, "CONTEXT_FULL");
});

Deno.test("the fake refuses a prompt over its context as llama-server does, and keeps its reply for the request that fits", async () => {
  await withServer({ contextSize: 64 }, async (server) => {
    server.reply({ kind: "stream", chunks: textReply("fits now") });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const session = await model.openSession();
    const error = await assertRejectsWith(
      () => session.generate(ask("word ".repeat(200))),
      ContextFullError,
    );
    const refused = promptTokensOf(server.requests[0]!);
    assertEquals(error.overflow, { promptTokens: refused, contextSize: 64 });
    assertEquals((await session.generate(ask("short"))).text, "fits now");
  });
});

Deno.test("a refusal that names a context smaller than the one given makes it the context, and a larger one does not", async () => {
  await withServer({ contextSize: 64 }, async (server) => {
    const model = await openEndpointModel({
      baseUrl: server.baseUrl,
      contextSize: 4096,
      env: noEnv,
    });
    const session = await model.openSession();
    assertEquals([session.contextSize, session.contextSource], [4096, "flag"]);
    await assertRejectsWith(() => session.generate(ask("word ".repeat(200))), ContextFullError);
    assertEquals([session.contextSize, session.contextSource], [64, "server"]);
    const later = await model.openSession();
    assertEquals(later.contextSize, 64, "a session opened later starts from it too");
    server.reply({
      kind: "error",
      status: 400,
      body: { error: { type: "exceed_context_size_error", n_prompt_tokens: 9000, n_ctx: 8192 } },
    });
    await assertRejectsWith(() => session.generate(ask("hi")), ContextFullError);
    assertEquals(session.contextSize, 64);
  });
});

Deno.test("contextOverflowOf reads the numbers of any CONTEXT_FULL, and nothing of other errors", () => {
  assertEquals(
    contextOverflowOf(new ContextFullError("full", { promptTokens: 9, contextSize: 8 })),
    { promptTokens: 9, contextSize: 8 },
  );
  assertEquals(contextOverflowOf(new AgentError("CONTEXT_FULL", "full")), {});
  assertEquals(contextOverflowOf(new AgentError("MODEL_SERVER", "down")), undefined);
  assertEquals(contextOverflowOf(new Error("x")), undefined);
});

Deno.test("where the context is known, a request asks for no more answer than the room after its prompt, and a reply cut there ends context_full", async () => {
  await withServer({ routes: { "GET /props": llamaServerProps(1024) } }, async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const session = await model.openSession();
    const long = ask("word ".repeat(400));
    const counted = await session.countPromptTokens!(long.conversation, []);
    // The server stops at the max_tokens it was sent: "length".
    const [first] = textReply("and then");
    server.reply({
      kind: "stream",
      chunks: [first!, { choices: [{ index: 0, delta: {}, finish_reason: "length" }] }],
    });
    const result = await session.generate(long);
    assertEquals(server.requests[0]!.max_tokens, 1024 - counted);
    assertEquals(result.stop, "context_full");
    // A short prompt asks for the whole answer cap (a quarter of the context, at least 512).
    server.reply({ kind: "stream", chunks: textReply("ok") });
    await session.generate(ask("hi"));
    assertEquals(server.requests[1]!.max_tokens, 512);
  });
});

Deno.test("where the context is assumed, the answer cap is not cut to an assumed room", async () => {
  await withServer({}, async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    server.reply({ kind: "stream", chunks: textReply("ok") });
    await (await model.openSession()).generate(ask("word ".repeat(9000)));
    assertEquals(server.requests[0]!.max_tokens, 2048);
  });
});
