/**
 * The agent's stdin closing while a request is stuck opening a session: the stdio stream
 * answers it with an error after its wait, and the shutdown that follows waits for that session
 * only a while, so the agent exits instead of waiting forever on what never answers (a read that
 * never ends made the real agent ignore EOF).
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { createAgentApp } from "../../src/acp/agent_app.ts";
import type { AgentConfig } from "../../src/acp/agent_config.ts";
import type { ModelCatalog } from "../../src/acp/model_catalog.ts";
import { createModelProvider } from "../../src/acp/model_provider.ts";
import { createHandlerRunner } from "../../src/hooks/handlers/handler_dispatch.ts";
import { scriptedModel } from "../../src/model/scripted/scripted_model.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { connect, initialize, request } from "./stdio_pipes.ts";

/** A catalog whose listing (awaited while a session is made) answers only when released. */
function stuckCatalog(): { catalog: ModelCatalog; release: () => void } {
  const gate = Promise.withResolvers<void>();
  const choice = { id: "scripted", name: "scripted" };
  const catalog: ModelCatalog = {
    defaultId: choice.id,
    choices: [choice],
    refresh: async () => {
      await gate.promise;
      return [choice];
    },
    offers: (id) => id === choice.id,
    mayOffer: (id) => id === choice.id,
    acquire: () => {
      throw new Error("not in this test");
    },
    dispose: () => Promise.resolve(),
  };
  return { catalog, release: () => gate.resolve() };
}

Deno.test("stdin closing while session/new is stuck: it is answered with an error, and the shutdown waits for it only shutdownWaitMs", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "stuck_shutdown_" }));
  const models = createModelProvider(() => Promise.resolve(scriptedModel({ turns: [] })));
  const { catalog, release } = stuckCatalog();
  const logs: string[] = [];
  const config: AgentConfig = {
    models,
    modelCatalog: catalog,
    launchCwd: root,
    home: root,
    env: (name) => (name === "HOME" ? root : undefined),
    defaultMode: "auto-approve-reads",
    rules: [],
    maxToolRounds: 4,
    profile: compatProfile("llama"),
    hookRunner: () => createHandlerRunner(),
    version: "0.0.0-test",
    shutdownWaitMs: 300,
    log: (line) => logs.push(line),
  };
  const handle = createAgentApp(config);
  const pipes = connect(handle.app, { answerLimitMs: 200 });
  try {
    await pipes.write(initialize(1));
    await pipes.answer(1);
    await pipes.write(request(2, "session/new", { cwd: root, mcpServers: [] }));
    await pipes.end();
    await pipes.closed;
    const answer = pipes.out.find((message) => message.id === 2);
    assertStringIncludes(JSON.stringify(answer), "stdin ended and the agent is exiting");

    const started = performance.now();
    await handle.shutdown();
    const tookMs = performance.now() - started;
    assert(tookMs < 2_000, `the shutdown took ${Math.round(tookMs)} ms`);
    assertEquals(logs.filter((line) => line.startsWith("Stopped waiting")), [
      "Stopped waiting for 1 session(s) still being opened 300 ms after the agent began " +
      "shutting down: exiting without them",
    ]);
  } finally {
    // The stuck session finishes, finds the agent shut down and closes itself; a second
    // shutdown waits for that.
    release();
    await handle.shutdown();
    await models.dispose();
    await Deno.remove(root, { recursive: true });
  }
});
