/**
 * An endpoint whose context nobody says (no --ctx-size, nothing from the server) is assumed, and
 * the agent says so on stderr at start, naming the flag to pass; a known context says nothing.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { llamaServerProps, startFakeServer } from "../helpers/openai_fake_server.ts";
import { modelLoaderOf, type ModelSetup } from "../../src/cli/options/acp_model_flags.ts";

async function startupLog(routes: Record<string, object>, contextSize?: number): Promise<string[]> {
  const server = startFakeServer({ models: [{ id: "smol" }], routes });
  try {
    const setup: ModelSetup = {
      kind: "endpoint",
      endpoint: { baseUrl: server.baseUrl, env: () => undefined, contextSize },
    };
    const log: string[] = [];
    const load = modelLoaderOf(setup, { endpoint: server.baseUrl, contextSize }, {
      env: () => undefined,
      progress: () => {},
      log: (line) => log.push(line),
    });
    const model = await load(new AbortController().signal, () => {});
    await model.dispose();
    return log;
  } finally {
    await server.close();
  }
}

Deno.test("an endpoint whose context is assumed is said at start, with the flag to pass", async () => {
  const log = await startupLog({});
  assertEquals(log.length, 1, log.join("\n"));
  assertStringIncludes(log[0]!, 'does not say the context of model "smol"');
  assertStringIncludes(log[0]!, "Assuming 8192 tokens");
  assertStringIncludes(log[0]!, "pass --ctx-size");
});

Deno.test("an endpoint whose context the server says, or --ctx-size gives, starts without a notice", async () => {
  assertEquals(await startupLog({ "GET /props": llamaServerProps(4096) }), []);
  assertEquals(await startupLog({}, 4096), []);
});
