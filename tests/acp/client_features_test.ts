/**
 * What a client's capabilities change in what it is sent (client_features.ts), and how a notice
 * reads as ACP's `notice` update: its first line the title, the rest the description.
 */
import { assertEquals } from "../helpers/assert.ts";
import { clientFeatures } from "../../src/acp/client_features.ts";
import { printing, settings } from "./hook_fixtures.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

Deno.test("a capability is advertised by an object: omitted and null are not", () => {
  assertEquals(clientFeatures({}), { booleanConfigOptions: false, notices: false });
  assertEquals(clientFeatures({ session: null }), { booleanConfigOptions: false, notices: false });
  assertEquals(
    clientFeatures({ session: { configOptions: { boolean: null }, notices: null } }),
    { booleanConfigOptions: false, notices: false },
  );
  assertEquals(
    clientFeatures({ session: { configOptions: { boolean: {} }, notices: {} } }),
    { booleanConfigOptions: true, notices: true },
  );
});

Deno.test("a notice of several lines is a notice update titled by its first line, the rest its description", async () => {
  const message = "Remember the tests\nthey live in tests/\n";
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        UserPromptSubmit: [[null, printing({ systemMessage: message })]],
      }),
    },
    script: { turns: [{ text: "ok" }] },
    clientCapabilities: { session: { notices: {} } },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    const notices = t.updates.filter((u) => u.sessionId === sessionId)
      .map((u) => u.update).filter((u) => u.sessionUpdate === "notice");
    assertEquals(notices.slice(-1), [{
      sessionUpdate: "notice",
      severity: "info",
      title: "UserPromptSubmit says: Remember the tests",
      description: "they live in tests/",
    }]);
    assertEquals(t.text(sessionId), "ok", "no notice as agent text");
  });
});
