/**
 * A client may write `session/load` (or `session/resume`) and the requests for that session in
 * one go: they wait for the session to be open. Real stdio, real processes, the session made by
 * an earlier agent process.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { AcpHarness, isObject } from "../helpers/acp_harness.ts";
import { withTempProject } from "../helpers/run_cli.ts";
import { answerTo, INITIALIZE_PARAMS, request, writeTogether } from "./scripted_agent.ts";

const SCRIPT = JSON.stringify({ turns: [{ text: "first" }, { text: "second" }] });

Deno.test("session/load, set_mode and session/prompt in one write: all succeed, in the loaded session", async () => {
  await withTempProject({ "home/.keep": "", "project/script.json": SCRIPT }, async (dir) => {
    const start = () =>
      AcpHarness.start({
        cwd: `${dir}/project`,
        home: `${dir}/home`,
        args: ["--model", "scripted:script.json"],
      });
    const first = await start();
    await first.call("initialize", INITIALIZE_PARAMS);
    const created = await first.call("session/new", { cwd: `${dir}/project`, mcpServers: [] });
    assert(isObject(created) && typeof created.sessionId === "string", JSON.stringify(created));
    const sessionId = created.sessionId;
    await first.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] });
    await first.close();

    for (const method of ["session/load", "session/resume"]) {
      const second = await start();
      await writeTogether(second, [
        request(1, "initialize", INITIALIZE_PARAMS),
        request(2, method, { sessionId, cwd: `${dir}/project`, mcpServers: [] }),
        request(3, "session/set_mode", { sessionId, modeId: "always-ask" }),
        request(4, "session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] }),
      ]);
      for (const id of [2, 3, 4]) {
        const answer = await answerTo(second, id);
        assert(isObject(answer.result), `${method}: answer ${id}: ${JSON.stringify(answer)}`);
      }
      const prompted = await answerTo(second, 4);
      assertEquals(isObject(prompted.result) && prompted.result.stopReason, "end_turn", method);
      await second.close();
    }
  });
});
