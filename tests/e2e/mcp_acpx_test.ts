/**
 * MCP through an independent ACP client: acpx reads the fixture server from `--mcp-config`
 * (`{"mcpServers": [<ACP McpServer>...]}`), passes it in `session/new`, and the agent on the real
 * llama path calls its tool. The fixture's `--log` says the call ran; `ps` says nothing of the
 * server is left once acpx has exited.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  acpxAgentRequests,
  acpxAgentText,
  acpxStopReason,
  acpxToolCallUpdates,
  assertNoAcpxProtocolErrors,
  describeAcpxRun,
  findNode,
  runAcpx,
} from "../helpers/acpx.ts";
import { isObject } from "../helpers/json_object.ts";
import { LAUNCHER } from "../helpers/run_cli.ts";
import { writeToolCallModel } from "../helpers/test_models.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { stdioFixture } from "../mcp/fixture_servers.ts";
import { withE2eProject } from "./e2e_project.ts";
import { waitUntil } from "../helpers/wait_until.ts";

const ignore = findNode() === undefined; // acpx runs on Node; the README says to install it

const ECHO = {
  toolName: "mcp__fixture__echo",
  params: { text: "hello through acpx" },
  answer: "acpx saw the echo.",
};

Deno.test(
  {
    name: "acpx --mcp-config: the server reaches session/new and the model's MCP call completes",
    ignore,
  },
  async () => {
    await withE2eProject({}, async (p) => {
      const marker = `mcp-acpx-${crypto.randomUUID()}`;
      const log = `${p.cwd}/calls.jsonl`;
      const server = stdioFixture({ args: ["--log", log, "--child", "--marker", marker] });
      await Deno.writeTextFile(`${p.cwd}/mcp.json`, JSON.stringify({ mcpServers: [server] }));
      const model = await writeToolCallModel(p.models, ECHO);
      const run = await runAcpx({
        agentCommand: [LAUNCHER, "acp", "--model", model, "--threads", "1", "--gpu", "off"],
        cwd: p.cwd,
        home: p.home,
        prompt: "echo something",
        flags: ["--approve-all", "--mcp-config", `${p.cwd}/mcp.json`],
      });
      assertNoAcpxProtocolErrors(run);
      assertEquals(run.code, 0, describeAcpxRun(run));

      const sessionNew = run.messages.find(({ from, message }) =>
        from === "client" && message.method === "session/new"
      );
      assert(sessionNew, describeAcpxRun(run));
      const params = sessionNew.message.params;
      assertEquals(isObject(params) ? params.mcpServers : undefined, [server]);

      const updates = acpxToolCallUpdates(run);
      const announced = updates[0];
      assertEquals(announced?.sessionUpdate, "tool_call", JSON.stringify(updates));
      assertEquals(announced?.kind, "other");
      assertEquals(announced?._meta, { tool_name: "mcp__fixture__echo" });
      assertEquals(acpxAgentRequests(run, "session/request_permission").length, 1);
      const final = updates.at(-1);
      assertEquals(final?.toolCallId, announced?.toolCallId);
      assertEquals(final?.status, "completed");
      assertStringIncludes(JSON.stringify(final?.content), "echo: hello through acpx");
      assertEquals(acpxAgentText(run), ECHO.answer);
      assertEquals(acpxStopReason(run), "end_turn");

      const logged = (await Deno.readTextFile(log)).split("\n").filter((line) => line !== "");
      assertEquals(logged.map((line) => JSON.parse(line)), [
        { tool: "echo", arguments: ECHO.params },
      ]);

      await waitUntil(
        async () => (await livingPidsMatching(marker)).length === 0,
        "the server's processes to end",
        10_000,
      ).catch(() => {});
      assertEquals(await livingPidsMatching(marker), [], "no server process survives acpx");
    });
  },
);
