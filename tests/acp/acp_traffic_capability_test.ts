/**
 * The traffic monitor's capability check (acp_traffic.ts): what the ACP schema lets an agent send
 * only to a client that advertised it is a `capability` violation when the client did not. Every
 * test over the harness or acpx runs this check on what the real agent sends.
 */
import { assertEquals } from "../helpers/assert.ts";
import { TrafficMonitor } from "../helpers/acp_traffic.ts";

const BOOLEAN_OPTION = {
  id: "stop_hooks_continue",
  name: "Stop hooks continue the turn",
  type: "boolean",
  currentValue: false,
};

/** The violations of a session whose client advertised `session`, and was sent `sent`. */
function violationsOf(session: unknown, sent: readonly unknown[]): string[] {
  const monitor = new TrafficMonitor();
  monitor.clientSent({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: session === undefined ? {} : { session } },
  });
  monitor.agentSent({ jsonrpc: "2.0", id: 0, result: { protocolVersion: 1 } });
  monitor.clientSent({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/p" } });
  monitor.agentSent({
    jsonrpc: "2.0",
    id: 1,
    result: { sessionId: "s", configOptions: [BOOLEAN_OPTION] },
  });
  for (const update of sent) {
    monitor.agentSent({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update },
    });
  }
  return monitor.violations.filter((v) => v.kind === "capability").map((v) => v.message);
}

const NOTICE = { sessionUpdate: "notice", severity: "info", title: "Hello" };
const CONFIG_UPDATE = { sessionUpdate: "config_option_update", configOptions: [BOOLEAN_OPTION] };

Deno.test("a boolean config option and a notice to a client that advertised neither are capability violations", () => {
  assertEquals(violationsOf(undefined, [NOTICE, CONFIG_UPDATE]), [
    'the boolean config option "stop_hooks_continue" in session/new, but the client did not ' +
    "advertise session.configOptions.boolean",
    'a notice update in session "s", but the client did not advertise session.notices',
    'the boolean config option "stop_hooks_continue" in config_option_update, but the client ' +
    "did not advertise session.configOptions.boolean",
  ]);
  // Config options without the boolean one are not enough.
  assertEquals(violationsOf({ configOptions: {}, notices: null }, [NOTICE]).length, 2);
});

Deno.test("a client that advertised boolean options and notices may be sent both", () => {
  assertEquals(
    violationsOf({ configOptions: { boolean: {} }, notices: {} }, [NOTICE, CONFIG_UPDATE]),
    [],
  );
});

Deno.test("compaction updates need session.compaction", () => {
  const update = { sessionUpdate: "compaction_update", compactionId: "c", status: "started" };
  assertEquals(violationsOf({ configOptions: { boolean: {} } }, [update]), [
    'a compaction_update in session "s", but the client did not advertise session.compaction',
  ]);
  assertEquals(violationsOf({ configOptions: { boolean: {} }, compaction: {} }, [update]), []);
});
