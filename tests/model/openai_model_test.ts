import {
  assert,
  assertEquals,
  assertRejectsWith,
  assertStringIncludes,
} from "../helpers/assert.ts";
import { textReply } from "../helpers/openai_dialects.ts";
import { type FakeServer, startFakeServer } from "../helpers/openai_fake_server.ts";
import { openEndpointModel } from "../../src/model/openai/openai_model.ts";
import type { GenerateRequest, Model } from "../../src/model/model.ts";
import { AgentError } from "../../src/error.ts";
import { VERDICT_SCHEMA } from "../../src/acp/model_evaluator.ts";

const noEnv = () => undefined;

async function withServer(
  run: (server: FakeServer) => Promise<void>,
  options?: Parameters<typeof startFakeServer>[0],
): Promise<void> {
  const server = startFakeServer(options);
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

function ask(text: string, extra: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    conversation: [{ role: "user", text }],
    tools: [],
    signal: new AbortController().signal,
    onTextChunk: () => {},
    onThoughtChunk: () => {},
    ...extra,
  };
}

async function generateError(model: Model, request: GenerateRequest): Promise<AgentError> {
  const session = await model.openSession();
  return await assertRejectsWith(() => session.generate(request), AgentError);
}

Deno.test("without --model the first model the server lists is used, and named in the request", async () => {
  await withServer(async (server) => {
    server.reply({ kind: "stream", chunks: textReply("hi", "b") });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    // The id alone: a transcript's `model` must not carry the URL.
    assertEquals(model.displayName, "first");
    await (await model.openSession()).generate(ask("hello"));
    assertEquals(server.requests[0]!.model, "first");
  }, { models: [{ id: "first" }, { id: "second" }] });
});

Deno.test("a model the server does not list is refused with the ones it serves", async () => {
  await withServer(async (server) => {
    const error = await assertRejectsWith(
      () => openEndpointModel({ baseUrl: server.baseUrl, model: "llama3", env: noEnv }),
      AgentError,
    );
    assertEquals(error.code, "MODEL_UNAVAILABLE");
    assertStringIncludes(error.message, `has no model "llama3"; it serves "qwen3:8b", "gemma3"`);
  }, { models: [{ id: "qwen3:8b" }, { id: "gemma3" }] });
});

Deno.test("the listed context size plans the session's tool results", async () => {
  await withServer(async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    assertEquals((await model.openSession()).contextSize, 32768);
  }, { models: [{ id: "Qwen/Qwen3-8B", max_model_len: 32768 }] });
});

Deno.test("the key is sent from the variable --api-key-env names, and no key otherwise comes from OPENAI_API_KEY", async () => {
  await withServer(async (server) => {
    const env = (name: string) =>
      ({ MY_KEY: "sk-secret", OPENAI_API_KEY: "sk-other" } as Record<string, string>)[name];
    await openEndpointModel({ baseUrl: server.baseUrl, apiKeyEnv: "MY_KEY", env });
    const original = Deno.env.get("OPENAI_API_KEY");
    Deno.env.set("OPENAI_API_KEY", "sk-from-process");
    try {
      await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    } finally {
      if (original === undefined) Deno.env.delete("OPENAI_API_KEY");
      else Deno.env.set("OPENAI_API_KEY", original);
    }
    const listings = server.received.filter((request) => request.path === "/v1/models");
    assertEquals(listings.map((request) => request.headers.get("authorization")), [
      "Bearer sk-secret",
      "Bearer none",
    ]);
    // The server's own paths (asked for its context) get the same key, and no other.
    const probes = server.received.filter((request) => !request.path.startsWith("/v1/"));
    assertEquals(
      new Set(probes.map((request) => request.headers.get("authorization"))),
      new Set(["Bearer sk-secret", null]),
    );
  });
});

Deno.test("a 401 says which variable's key was refused, never the key", async () => {
  await withServer(async (server) => {
    const error = await assertRejectsWith(
      () =>
        openEndpointModel({
          baseUrl: server.baseUrl,
          apiKeyEnv: "MY_KEY",
          env: (name) => (name === "MY_KEY" ? "sk-wrong-key" : undefined),
        }),
      AgentError,
    );
    assertStringIncludes(error.message, "refused the request (401)");
    assertStringIncludes(error.message, "The key in $MY_KEY was refused");
    assert(!error.message.includes("sk-wrong-key"));
  }, { modelsStatus: 401 });
});

Deno.test("an endpoint nobody listens on says so and how --endpoint should look", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const error = await assertRejectsWith(
    () => openEndpointModel({ baseUrl: `http://127.0.0.1:${port}/v1`, env: noEnv }),
    AgentError,
  );
  assertEquals(error.code, "MODEL_UNAVAILABLE");
  assertStringIncludes(
    error.message,
    `Cannot reach the model server at http://127.0.0.1:${port}/v1`,
  );
  assertStringIncludes(error.message, "Is it running");
});

Deno.test("tools sent to llama-server without --jinja: the error says to pass --jinja", async () => {
  await withServer(async (server) => {
    server.reply({
      kind: "error",
      status: 500,
      body: {
        error: { code: 500, message: "tools param requires --jinja flag", type: "server_error" },
      },
    });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const tool = { name: "shell", description: "Run", inputSchema: { type: "object" } };
    const error = await generateError(model, ask("hi", { tools: [tool] }));
    assertEquals(error.code, "MODEL_SERVER");
    assertStringIncludes(error.message, "does not take tool calls");
    assertStringIncludes(error.message, "llama-server with --jinja");
    assertStringIncludes(error.message, "--enable-auto-tool-choice");
  });
});

Deno.test("vLLM's auto tool choice refusal names its two flags", async () => {
  await withServer(async (server) => {
    server.reply({
      kind: "error",
      status: 400,
      body: {
        object: "error",
        message:
          '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        type: "BadRequestError",
        code: 400,
      },
    });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const error = await generateError(model, ask("hi"));
    assertStringIncludes(error.message, "--tool-call-parser");
  });
});

Deno.test("a context overflow is CONTEXT_FULL and says how to give the server more", async () => {
  await withServer(async (server) => {
    server.reply({
      kind: "error",
      status: 400,
      body: {
        error: {
          code: 400,
          message: "the request exceeds the available context size, try increasing it",
          type: "exceed_context_size_error",
        },
      },
    });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const error = await generateError(model, ask("a long prompt"));
    assertEquals(error.code, "CONTEXT_FULL");
    assertStringIncludes(error.message, "does not fit in the context");
    assertStringIncludes(error.message, "llama-server -c");
  });
});

Deno.test("an error in the middle of the stream fails the generation with the server's words", async () => {
  await withServer(async (server) => {
    server.reply({
      kind: "stream",
      chunks: [
        textReply("partial answer")[0]!,
        { error: { code: 500, message: "slot unavailable", type: "server_error" } },
      ],
    });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const error = await generateError(model, ask("hi"));
    assertStringIncludes(error.message, "slot unavailable");
  });
});

Deno.test("a stream that ends without a finish reason or [DONE] still ends the reply", async () => {
  await withServer(async (server) => {
    server.reply({ kind: "stream", chunks: textReply("cut short").slice(0, 2), noDone: true });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const result = await (await model.openSession()).generate(ask("hi"));
    assertEquals(result.text, "cut short");
    assertEquals(result.stop, "end");
  });
});

Deno.test("cancel mid-stream returns what came, and the server sees the request go", async () => {
  await withServer(async (server) => {
    server.reply({ kind: "stream", chunks: textReply("first words").slice(0, 1), hang: true });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const controller = new AbortController();
    const got: string[] = [];
    const generating = (await model.openSession()).generate(ask("hi", {
      signal: controller.signal,
      onTextChunk: (text) => {
        got.push(text);
        controller.abort();
      },
    }));
    const result = await generating;
    await server.disconnected;
    assertEquals(result.stop, "cancelled");
    assertEquals(result.text, got.join(""));
    assert(got.length > 0);
  });
});

Deno.test("a response schema is asked as json_schema; a server that refuses it gets json_object with the schema from then on", async () => {
  await withServer(async (server) => {
    server.reply(
      {
        kind: "error",
        status: 400,
        body: { error: { message: "response_format type json_schema is not supported" } },
      },
      { kind: "stream", chunks: textReply('{"ok": true}') },
      { kind: "stream", chunks: textReply('{"ok": false, "reason": "no"}') },
    );
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const session = await model.openSession();
    const first = await session.generate(ask("judge", { responseSchema: VERDICT_SCHEMA }));
    const second = await session.generate(ask("judge", { responseSchema: VERDICT_SCHEMA }));
    assertEquals([first.text, second.text], ['{"ok": true}', '{"ok": false, "reason": "no"}']);
    assertEquals(server.requests.map((body) => body.response_format), [
      {
        type: "json_schema",
        json_schema: { name: "answer", schema: VERDICT_SCHEMA, strict: false },
      },
      { type: "json_object", schema: VERDICT_SCHEMA },
      { type: "json_object", schema: VERDICT_SCHEMA },
    ]);
  });
});

Deno.test("a prompt without a schema sends no response_format and no tools", async () => {
  await withServer(async (server) => {
    server.reply({ kind: "stream", chunks: textReply("hello") });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    await (await model.openSession()).generate(ask("hi", { maxTokens: 64 }));
    const body = server.requests[0]!;
    assertEquals(["response_format" in body, "tools" in body, body.max_tokens], [false, false, 64]);
  });
});

const READ = {
  name: "fs_read",
  description: "Read",
  inputSchema: { type: "object", properties: { file_path: { type: "string" } } },
};

Deno.test("tools are offered with tool_choice auto, which llama-cpp-python needs to offer any", async () => {
  await withServer(async (server) => {
    server.reply({ kind: "stream", chunks: textReply("ok") });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    await (await model.openSession()).generate(ask("hi", { tools: [READ] }));
    assertEquals(server.requests[0]!.tool_choice, "auto");
  });
});

Deno.test("a server that cannot stream tool calls (two empty streams in a row) gets its tool requests whole from then on", async () => {
  await withServer(async (server) => {
    const completion = {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "fake-model",
      choices: [{
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "call__0",
            type: "function",
            function: { name: "fs_read", arguments: '{"file_path": "notes.txt" }' },
          }],
        },
      }],
      usage: { prompt_tokens: 218, completion_tokens: 11, total_tokens: 229 },
    };
    server.reply(
      { kind: "stream", chunks: [], noDone: true },
      { kind: "completion", body: completion },
      { kind: "stream", chunks: [], noDone: true },
      { kind: "completion", body: completion },
      { kind: "completion", body: completion },
      { kind: "stream", chunks: textReply("streamed without tools") },
    );
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const session = await model.openSession();
    const first = await session.generate(ask("read", { tools: [READ] }));
    assertEquals(first.toolCalls, [{ name: "fs_read", input: { file_path: "notes.txt" } }]);
    assertEquals([first.stop, first.tokens.prompt, first.tokens.generated], [
      "tool_calls",
      218,
      11,
    ]);
    await session.generate(ask("again", { tools: [READ] }));
    await session.generate(ask("and again", { tools: [READ] }));
    const plain = await session.generate(ask("talk"));
    assertEquals(plain.text, "streamed without tools");
    assertEquals(
      server.requests.map((body) => body.stream ?? false),
      [true, false, true, false, false, true],
    );
  });
});

Deno.test("an empty stream without tools is an error that points at the server's log", async () => {
  await withServer(async (server) => {
    server.reply({ kind: "stream", chunks: [], noDone: true });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const error = await generateError(model, ask("hi"));
    assertStringIncludes(
      error.message,
      "ended its reply before sending anything: its log says why",
    );
  });
});

Deno.test("two hooks refused json_schema side by side both move to json_object, not past it", async () => {
  await withServer(async (server) => {
    const refusal = {
      kind: "error" as const,
      status: 500,
      body: {
        error: {
          // llama-cpp-python's words, as its server sends them.
          message: "1 validation error: {'type': 'literal_error', 'loc': ('body', " +
            "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}",
        },
      },
    };
    server.reply(
      refusal,
      refusal,
      { kind: "stream", chunks: textReply('{"ok": true}') },
      { kind: "stream", chunks: textReply('{"ok": true}') },
    );
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const judge = async () =>
      await (await model.openSession()).generate(ask("judge", { responseSchema: VERDICT_SCHEMA }));
    await Promise.all([judge(), judge()]);
    const formats = server.requests.map((body) => (body.response_format as { type: string }).type);
    assertEquals(formats.toSorted(), ["json_object", "json_object", "json_schema", "json_schema"]);
  });
});

Deno.test("a server without GET /models still serves a model named with --model", async () => {
  await withServer(async (server) => {
    server.reply({ kind: "stream", chunks: textReply("hi") });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, model: "mine", env: noEnv });
    const result = await (await model.openSession()).generate(ask("hello"));
    assertEquals([result.text, server.requests[0]!.model], ["hi", "mine"]);
  }, { modelsStatus: 404 });
});

Deno.test("a server that lists no context size gets tool results planned for 8192 tokens, or --ctx-size", async () => {
  await withServer(async (server) => {
    const assumed = await openEndpointModel({ baseUrl: server.baseUrl, env: noEnv });
    const given = await openEndpointModel({
      baseUrl: server.baseUrl,
      env: noEnv,
      contextSize: 32768,
    });
    assertEquals(
      [(await assumed.openSession()).contextSize, (await given.openSession()).contextSize],
      [8192, 32768],
    );
  });
});
