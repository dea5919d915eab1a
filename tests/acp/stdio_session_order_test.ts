/**
 * Messages written right behind a `session/load` or `session/resume` of the same session reach
 * the agent once the session is open; other sessions' messages do not wait.
 */
import { assertEquals } from "../helpers/assert.ts";
import { connect, initialize, line, request, sleep, testAgent } from "./stdio_pipes.ts";

/**
 * An agent that knows a session only once its load (or resume) has finished, as the real one
 * does: a prompt for it before that is refused. Loads of "slow" take until `release`.
 */
function loadingAgent(release: Promise<void>) {
  const open = new Set<string>();
  const seen: string[] = [];
  const opened = async (sessionId: string) => {
    if (sessionId === "slow") await release;
    await sleep(5);
    open.add(sessionId);
    return {};
  };
  const app = testAgent()
    .onRequest("session/load", ({ params }) => opened(params.sessionId))
    .onRequest("session/resume", ({ params }) => opened(params.sessionId))
    .onRequest("session/prompt", ({ params }) => {
      seen.push(`prompt ${params.sessionId}`);
      if (!open.has(params.sessionId)) throw new Error(`No session "${params.sessionId}"`);
      return { stopReason: "end_turn" as const };
    })
    .onRequest("session/set_mode", ({ params }) => {
      seen.push(`set_mode ${params.sessionId}`);
      if (!open.has(params.sessionId)) throw new Error(`No session "${params.sessionId}"`);
      return {};
    });
  return { app, seen };
}

const load = (id: number, sessionId: string, method = "session/load") =>
  request(id, method, { sessionId, cwd: "/", mcpServers: [] });
const prompt = (id: number, sessionId: string) =>
  request(id, "session/prompt", { sessionId, prompt: [] });

Deno.test("a prompt written right after session/load of its session waits for the load", async () => {
  for (const method of ["session/load", "session/resume"]) {
    const { app, seen } = loadingAgent(Promise.resolve());
    const pipes = connect(app);
    await pipes.write(
      initialize() + load(2, "s1", method) + prompt(3, "s1") +
        request(4, "session/set_mode", { sessionId: "s1", modeId: "always-ask" }),
    );
    assertEquals((await pipes.answer(3)).result, { stopReason: "end_turn" }, method);
    assertEquals((await pipes.answer(4)).result, {}, method);
    assertEquals(seen, ["prompt s1", "set_mode s1"], method);
    assertEquals(pipes.out.map((message) => message.id), [1, 2, 3, 4], method);
    await pipes.end();
    await pipes.closed;
  }
});

Deno.test("another session's messages do not wait for a slow load", async () => {
  const release = Promise.withResolvers<void>();
  const { app } = loadingAgent(release.promise);
  const pipes = connect(app);
  await pipes.write(initialize() + load(2, "slow") + prompt(3, "slow") + load(4, "fast"));
  await pipes.write(prompt(5, "fast"));
  assertEquals((await pipes.answer(5)).result, { stopReason: "end_turn" });
  assertEquals(pipes.out.some((message) => message.id === 3), false);
  release.resolve();
  assertEquals((await pipes.answer(3)).result, { stopReason: "end_turn" });
  await pipes.end();
  await pipes.closed;
});

Deno.test("a prompt held behind a load when stdin ends is cancelled and answered", async () => {
  const release = Promise.withResolvers<void>();
  const cancel = Promise.withResolvers<void>();
  // A prompt that runs until it is cancelled, once its session's load has finished.
  const app = testAgent()
    .onRequest("session/load", async () => {
      await release.promise;
      return {};
    })
    .onRequest("session/prompt", async () => {
      await cancel.promise;
      return { stopReason: "cancelled" as const };
    })
    .onNotification("session/cancel", ({ params }) => {
      if (params.sessionId === "slow") cancel.resolve();
    });
  const pipes = connect(app);
  await pipes.write(initialize() + load(2, "slow") + prompt(3, "slow"));
  await pipes.end();
  await sleep(10);
  release.resolve();
  assertEquals((await pipes.answer(3)).result, { stopReason: "cancelled" });
  await pipes.closed;
});

Deno.test("a request held for a load that is never answered is answered at the EOF limit", async () => {
  const { app } = loadingAgent(new Promise(() => {}));
  const pipes = connect(app, { answerLimitMs: 50 });
  await pipes.write(
    initialize() + load(2, "slow") + prompt(3, "slow") +
      line({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "slow" } }),
  );
  await pipes.end();
  for (const id of [2, 3]) {
    const answer = await pipes.answer(id);
    assertEquals((answer.error as { code?: number } | undefined)?.code, -32603, `id ${id}`);
  }
  await pipes.closed;
});
