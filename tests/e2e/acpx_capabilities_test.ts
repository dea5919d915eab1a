/**
 * acpx, a real ACP client, advertises neither boolean config options nor notices (fs, terminal
 * and elicitation only): the agent offers it no boolean option, tells it things as agent text and
 * sends it the session's title. acpx's transcript is checked by the traffic monitor, which fails
 * on anything sent past what it advertised.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  acpxAgentText,
  acpxSessionUpdates,
  assertNoAcpxProtocolErrors,
  describeAcpxRun,
  findNode,
  runAcpx,
} from "../helpers/acpx.ts";
import { isObject } from "../helpers/json_object.ts";
import { LAUNCHER, withTempProject } from "../helpers/run_cli.ts";
import { stopBlockIgnoredNotice } from "../../src/acp/turn/stop_continuation.ts";

const ignore = findNode() === undefined; // acpx runs on Node; the README says to install it

const STOP_BLOCKS_ONCE = {
  hooks: {
    Stop: [{
      hooks: [{
        type: "command",
        command: `grep -q '"stop_hook_active":false' && ` +
          `printf '%s' '{"decision":"block","reason":"run the tests first"}'; exit 0`,
      }],
    }],
  },
};

Deno.test({
  name:
    "through acpx: no boolean option, the session's title, and an ignored Stop block said as agent text",
  ignore,
}, async () => {
  await withTempProject({
    "home/.keep": "",
    "project/.claude/settings.json": JSON.stringify(STOP_BLOCKS_ONCE),
    "project/script.json": JSON.stringify({ turns: [{ text: "Done." }, { text: "Again." }] }),
  }, async (dir) => {
    const run = await runAcpx({
      agentCommand: [LAUNCHER, "acp", "--model", "scripted:script.json"],
      cwd: `${dir}/project`,
      home: `${dir}/home`,
      prompt: "Fix the failing test",
      flags: ["--approve-all"],
    });
    assertNoAcpxProtocolErrors(run);
    assertEquals(run.code, 0, describeAcpxRun(run));

    const created = run.messages.find(({ from, message }) =>
      from === "agent" && isObject(message.result) && typeof message.result.sessionId === "string"
    )?.message.result;
    assert(isObject(created) && Array.isArray(created.configOptions), describeAcpxRun(run));
    assertEquals(
      created.configOptions.map((option) => isObject(option) ? option.type : undefined),
      ["select", "select"],
      "mode and model, and no boolean",
    );

    const updates = acpxSessionUpdates(run);
    assertEquals(updates.filter((u) => u.sessionUpdate === "session_info_update"), [
      { sessionUpdate: "session_info_update", title: "Fix the failing test" },
    ]);
    assertEquals(updates.filter((u) => u.sessionUpdate === "notice"), []);
    assertStringIncludes(acpxAgentText(run), `Done.\n\n${stopBlockIgnoredNotice(undefined)}`);
  });
});
