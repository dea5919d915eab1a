/**
 * The context of a model on a server: from `--ctx-size`, else from what each server says (vLLM's
 * listing, llama-server's /props, Ollama's /api/ps and /api/show, LM Studio's /api/v0/models),
 * else assumed with a notice. The probes never hold the start up, never leave the origin, and
 * carry the key only there.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  type FakeServer,
  type FakeServerOptions,
  llamaServerProps,
  lmStudioModels,
  ollamaPs,
  ollamaShow,
  startFakeServer,
} from "../helpers/openai_fake_server.ts";
import { openEndpointModel } from "../../src/model/openai/openai_model.ts";
import { serverRoot } from "../../src/model/openai/endpoint_context.ts";
import type { Model } from "../../src/model/model.ts";

const KEY = "sk-context-probe-key";
const env = (name: string) => (name === "MY_KEY" ? KEY : undefined);

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

async function contextOf(model: Model) {
  const session = await model.openSession();
  return {
    size: session.contextSize,
    source: session.contextSource,
    notice: model.contextNotice,
  };
}

/** The paths the agent asked for besides the listing and chat. */
function probed(server: FakeServer): string[] {
  return server.received
    .map((request) => `${request.method} ${request.path}`)
    .filter((line) => !line.endsWith("/v1/models") && !line.endsWith("/v1/chat/completions"));
}

Deno.test("vLLM: max_model_len in the listing is the context, and nothing else is asked", async () => {
  await withServer({ models: [{ id: "Qwen/Qwen3-8B", max_model_len: 4096 }] }, async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env });
    assertEquals(await contextOf(model), { size: 4096, source: "server", notice: undefined });
    assertEquals(probed(server), []);
  });
});

Deno.test("llama-server: n_ctx from GET /props at the server's root, asked with the key", async () => {
  await withServer({
    models: [{ id: "smol", owned_by: "llamacpp" }],
    routes: { "GET /props": llamaServerProps(4096) },
  }, async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, apiKeyEnv: "MY_KEY", env });
    assertEquals(await contextOf(model), { size: 4096, source: "server", notice: undefined });
    const props = server.received.find((request) => request.path.startsWith("/props"));
    assertEquals(props?.path, "/props?model=smol&autoload=false");
    assertEquals(props?.headers.get("authorization"), `Bearer ${KEY}`);
  });
});

Deno.test("Ollama: a loaded model's context is what /api/ps says it runs with", async () => {
  await withServer({
    models: [{ id: "qwen3:8b", owned_by: "library" }],
    routes: {
      "POST /api/show": ollamaShow("qwen3", 40960),
      "GET /api/ps": ollamaPs("qwen3:8b", 8192),
      "GET /api/version": { version: "0.12.3" },
    },
  }, async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env });
    assertEquals(await contextOf(model), { size: 8192, source: "server", notice: undefined });
    const show = server.received.find((request) => request.path === "/api/show");
    assertEquals(JSON.parse(show?.body ?? "null"), { model: "qwen3:8b" });
  });
});

Deno.test("Ollama: a model not loaded runs with its Modelfile's num_ctx", async () => {
  await withServer({
    models: [{ id: "llama3" }],
    routes: {
      "POST /api/show": ollamaShow("llama", 8192, 6144),
      "GET /api/ps": { models: [] },
    },
  }, async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env });
    assertEquals(await contextOf(model), { size: 6144, source: "server", notice: undefined });
  });
});

Deno.test("Ollama: without num_ctx and not loaded, its model's maximum is not taken: the default of its version is assumed, with a notice", async () => {
  for (
    const [version, maximum, assumed] of [
      ["0.12.3", 40960, 4096],
      ["0.6.2", 40960, 2048],
      [undefined, 40960, 2048],
      ["0.12.3", 2048, 2048],
    ] as const
  ) {
    await withServer({
      models: [{ id: "qwen3:8b" }],
      routes: {
        "POST /api/show": ollamaShow("qwen3", maximum),
        "GET /api/ps": ollamaPs("gemma3:4b", 32768),
        ...(version === undefined ? {} : { "GET /api/version": { version } }),
      },
    }, async (server) => {
      const model = await openEndpointModel({ baseUrl: server.baseUrl, env });
      const context = await contextOf(model);
      assertEquals([context.size, context.source], [assumed, "assumed"], `${version}`);
      assertStringIncludes(context.notice ?? "", `Assuming ${assumed} tokens`);
      assertStringIncludes(context.notice ?? "", "OLLAMA_CONTEXT_LENGTH");
      assertStringIncludes(context.notice ?? "", "pass --ctx-size");
    });
  }
});

Deno.test("LM Studio: a loaded model's loaded_context_length; one not loaded is assumed at its default", async () => {
  await withServer({
    models: [{ id: "qwen/qwen3-8b", owned_by: "organization_owner" }],
    routes: { "GET /api/v0/models": lmStudioModels("qwen/qwen3-8b", 32768, 16384) },
  }, async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env });
    assertEquals(await contextOf(model), { size: 16384, source: "server", notice: undefined });
  });
  await withServer({
    models: [{ id: "qwen/qwen3-8b" }],
    routes: { "GET /api/v0/models": lmStudioModels("qwen/qwen3-8b", 32768) },
  }, async (server) => {
    const context = await contextOf(await openEndpointModel({ baseUrl: server.baseUrl, env }));
    assertEquals([context.size, context.source], [4096, "assumed"]);
    assertStringIncludes(context.notice ?? "", "LM Studio has not loaded it yet");
  });
});

Deno.test("--ctx-size wins over what the server says, and nothing is asked", async () => {
  await withServer({ routes: { "GET /props": llamaServerProps(4096) } }, async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env, contextSize: 2048 });
    assertEquals(await contextOf(model), { size: 2048, source: "flag", notice: undefined });
    assertEquals(probed(server), []);
  });
  await withServer({ models: [{ id: "m", max_model_len: 32768 }] }, async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env, contextSize: 2048 });
    assertEquals((await contextOf(model)).size, 2048);
  });
});

Deno.test("a server that says nothing (llama-cpp-python) is assumed to have 8192, and the notice says to pass --ctx-size", async () => {
  await withServer({ models: [{ id: "smol", owned_by: "me" }] }, async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env });
    const context = await contextOf(model);
    assertEquals([context.size, context.source], [8192, "assumed"]);
    assertEquals(
      context.notice,
      `The model server at ${server.baseUrl} does not say the context of model "smol": it says ` +
        "no context size (no max_model_len in /models, no /props, /api/show or /api/v0/models). " +
        "Assuming 8192 tokens; if it runs with another, pass --ctx-size with it (a smaller " +
        "server context refuses or cuts long conversations)",
    );
    // One request each, no retries.
    assertEquals(probed(server).sort(), [
      "GET /api/v0/models",
      "GET /props?model=smol&autoload=false",
      "POST /api/show",
    ]);
  });
});

Deno.test("a server that never answers /props holds the start up only for the probe's time", async () => {
  await withServer(
    { routes: { "GET /props": "hang", "POST /api/show": "hang" } },
    async (server) => {
      const started = performance.now();
      const model = await openEndpointModel({
        baseUrl: server.baseUrl,
        env,
        contextProbeTimeoutMs: 300,
      });
      const took = performance.now() - started;
      assertEquals((await contextOf(model)).source, "assumed");
      assert(took < 2000, `opened after ${took.toFixed(0)} ms`);
      console.error(`open with a hanging /props: ${took.toFixed(0)} ms (probe timeout 300 ms)`);
    },
  );
});

Deno.test("a probe redirected to another origin is not followed: the key stays with the endpoint", async () => {
  const other = startFakeServer({ routes: { "GET /props": llamaServerProps(65536) } });
  try {
    await withServer({
      routeRedirects: { "GET /props": `${other.origin}/props` },
    }, async (server) => {
      const model = await openEndpointModel({ baseUrl: server.baseUrl, apiKeyEnv: "MY_KEY", env });
      assertEquals((await contextOf(model)).source, "assumed");
      assertEquals(other.received, []);
    });
  } finally {
    await other.close();
  }
});

Deno.test("a probe's same-origin redirect is followed, as the API's are", async () => {
  await withServer({
    routeRedirects: { "GET /props": "/slot-props" },
    routes: { "GET /slot-props": llamaServerProps(3072) },
  }, async (server) => {
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env });
    assertEquals((await contextOf(model)).size, 3072);
  });
});

Deno.test("the server's own paths are at its root: the base URL's path without its last /v1", () => {
  assertEquals(serverRoot("http://localhost:11434/v1"), "http://localhost:11434");
  assertEquals(serverRoot("http://localhost:8080/v1/"), "http://localhost:8080");
  assertEquals(serverRoot("http://localhost:8080"), "http://localhost:8080");
  assertEquals(serverRoot("https://gpu.example/llama/v1"), "https://gpu.example/llama");
});
