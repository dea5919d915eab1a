/**
 * When `acp` opens a model on a server, what the server says of the model and tools is said on
 * stderr, once, without a generation: llama-server whose chat template takes no tools, an Ollama
 * model without the tools capability, and llama-cpp-python, whose default chat format drops them
 * silently. A server that says nothing, or says it takes them, gets no notice.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  llamaServerProps,
  ollamaPs,
  ollamaShow,
  startFakeServer,
} from "../helpers/openai_fake_server.ts";
import { modelLoaderOf, type ModelSetup } from "../../src/cli/options/acp_model_flags.ts";

async function startupLog(
  models: object[],
  routes: Record<string, object>,
): Promise<{ log: string[]; chats: number }> {
  const server = startFakeServer({ models, routes });
  try {
    const setup: ModelSetup = {
      kind: "endpoint",
      endpoint: { baseUrl: server.baseUrl, env: () => undefined, contextSize: 4096 },
    };
    const log: string[] = [];
    const load = modelLoaderOf(setup, { endpoint: server.baseUrl, contextSize: 4096 }, {
      env: () => undefined,
      progress: () => {},
      log: (line) => log.push(line),
    });
    const model = await load(new AbortController().signal, () => {});
    await model.dispose();
    return { log, chats: server.requests.length };
  } finally {
    await server.close();
  }
}

Deno.test("llama-server whose chat template takes no tools is said at start, with --jinja's fix", async () => {
  const props = {
    ...llamaServerProps(4096),
    chat_template_caps: { supports_tools: false, supports_tool_calls: false },
  };
  const { log, chats } = await startupLog([{ id: "smol" }], { "GET /props": props });
  assertEquals(log.length, 1, log.join("\n"));
  assertStringIncludes(log[0]!, 'will not use the agent\'s tools with model "smol"');
  assertStringIncludes(log[0]!, "chat_template_caps.supports_tools is false");
  assertStringIncludes(log[0]!, "start llama-server with --jinja");
  assertEquals(chats, 0, "no generation at start");
});

Deno.test("an Ollama model without the tools capability is said at start", async () => {
  const show = { ...ollamaShow("gemma3", 32768), capabilities: ["completion", "vision"] };
  const { log } = await startupLog([{ id: "gemma3:270m" }], {
    "POST /api/show": show,
    "GET /api/ps": ollamaPs("gemma3:270m", 4096),
  });
  assertEquals(log.length, 1, log.join("\n"));
  assertStringIncludes(log[0]!, 'Ollama lists its capabilities as "completion", "vision"');
  assertStringIncludes(log[0]!, 'ollama show gemma3:270m"');
});

Deno.test("llama-cpp-python is said at start: its default chat format drops tools", async () => {
  const { log, chats } = await startupLog(
    [{ id: "smol", object: "model", owned_by: "me", permissions: [] }],
    {},
  );
  assertEquals(log.length, 1, log.join("\n"));
  assertStringIncludes(log[0]!, "is llama-cpp-python, whose default chat format drops tools");
  assertStringIncludes(log[0]!, "--chat_format chatml-function-calling");
  assertStringIncludes(log[0]!, "llama-agent doctor --endpoint");
  assertEquals(chats, 0);
});

Deno.test("a server that says it takes tools, or says nothing of them, starts without a notice", async () => {
  const caps = {
    ...llamaServerProps(4096),
    chat_template_caps: { supports_tools: true, supports_tool_calls: true },
  };
  assertEquals((await startupLog([{ id: "smol" }], { "GET /props": caps })).log, []);
  assertEquals(
    (await startupLog([{ id: "smol" }], { "GET /props": llamaServerProps(4096) })).log,
    [],
  );
  assertEquals(
    (await startupLog([{ id: "qwen3:8b" }], { "POST /api/show": ollamaShow("qwen3", 40960) })).log,
    [],
  );
  assertEquals((await startupLog([{ id: "m", owned_by: "vllm" }], {})).log, []);
  assertEquals((await startupLog([{ id: "m" }], {})).log, []);
});
