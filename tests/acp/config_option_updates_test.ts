import { assertEquals } from "../helpers/assert.ts";
import type { ClientCapabilities } from "@agentclientprotocol/sdk";
import { type InMemoryAgent, withInMemoryAgent } from "./in_memory_agent.ts";

/** The mode ids that `current_mode_update`s and `config_option_update`s carried, in order. */
function announced(t: InMemoryAgent, sessionId: string): string[] {
  return t.updates.filter((u) => u.sessionId === sessionId).flatMap(({ update }) => {
    if (update.sessionUpdate === "current_mode_update") return [`mode ${update.currentModeId}`];
    if (update.sessionUpdate !== "config_option_update") return [];
    const mode = update.configOptions.find((o) => o.id === "mode");
    return [`config ${mode?.currentValue}`];
  });
}

/** Lets the updates sent after a response arrive. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

Deno.test("set_mode from a client that never spoke of config options announces the mode alone (an older SDK rejects config_option_update)", async () => {
  await withInMemoryAgent({}, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/set_mode", { sessionId, modeId: "always-ask" });
    await settle();
    assertEquals(announced(t, sessionId), ["mode always-ask"]);
  });
});

Deno.test("set_mode from a client that advertised config option capabilities also announces the options", async () => {
  const clientCapabilities: ClientCapabilities = { session: { configOptions: {} } };
  await withInMemoryAgent({ clientCapabilities }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/set_mode", { sessionId, modeId: "always-ask" });
    await settle();
    assertEquals(announced(t, sessionId), ["mode always-ask", "config always-ask"]);
  });
});

Deno.test("once a client has set a config option, a later set_mode announces the options too", async () => {
  await withInMemoryAgent({}, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/set_config_option", {
      sessionId,
      configId: "mode",
      value: "rule-based",
    });
    await t.agent.request("session/set_mode", { sessionId, modeId: "always-ask" });
    await settle();
    assertEquals(announced(t, sessionId), [
      "mode rule-based",
      "mode always-ask",
      "config always-ask",
    ]);
  });
});
