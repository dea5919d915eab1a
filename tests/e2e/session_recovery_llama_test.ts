/**
 * Sessions across agent processes on the real path: the agent killed mid-command, and the
 * permission mode carried from one process to the next, through our raw harness and through
 * acpx.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import {
  acpxAgentRequests,
  assertNoAcpxProtocolErrors,
  describeAcpxRun,
  findNode,
} from "../helpers/acpx.ts";
import { LAUNCHER } from "../helpers/run_cli.ts";
import { READ_NOTES, writeToolCallModel } from "../helpers/test_models.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { withAcpxSessions } from "./acpx_sessions.ts";
import { allowAndRecord, textPrompt as text, withE2eProject } from "./e2e_project.ts";
import { waitUntil } from "../helpers/wait_until.ts";

const INTERRUPTED = "interrupted: the agent stopped before it finished";

function optionValue(answer: JsonObject, id: string): unknown {
  const options = answer.configOptions as { id: string; currentValue: unknown }[];
  return options.find((o) => o.id === id)?.currentValue;
}

Deno.test("an agent killed with -9 mid-command: the next agent process replays the call as failed", async () => {
  const command = `sleep 27.${Math.floor(Math.random() * 1e6)}`;
  await withE2eProject({}, async (p) => {
    const model = await writeToolCallModel(p.models, {
      toolName: "shell",
      params: { command },
      answer: "done",
    });
    const first = await p.startAgent(model);
    allowAndRecord(first);
    const sessionId = await p.newSession(first);
    const transcript = transcriptPathFor(sessionId, (name) => name === "HOME" ? p.home : undefined);
    first.request("session/prompt", { sessionId, prompt: text("wait") }).catch(() => {});
    try {
      await waitUntil(
        async () => (await livingPidsMatching(command)).length > 0,
        "the command to start",
        60_000,
      );
      await waitUntil(
        async () => (await Deno.readTextFile(transcript)).includes('"status":"in_progress"'),
        "the transcript to say the call runs",
      );
      const agents = await livingPidsMatching(`main.ts acp --model ${model}`);
      assertEquals(agents.length, 1, "one agent process");
      Deno.kill(agents[0]!, "SIGKILL");
      await first.close({ allowViolations: true });
    } finally {
      // Nothing ran in the agent after SIGKILL to end the command: this test does.
      for (const pid of await livingPidsMatching(command)) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch {
          // It exited meanwhile.
        }
      }
      await first.close({ allowViolations: true });
    }

    const second = await p.startAgent(model);
    await second.call("session/load", { sessionId, cwd: p.cwd, mcpServers: [] });
    const calls = second.toolCallUpdates(sessionId);
    assertEquals(calls.map((u) => [u.sessionUpdate, u.status]), [
      ["tool_call", "pending"],
      ["tool_call_update", "in_progress"],
      ["tool_call_update", "failed"],
    ]);
    assertStringIncludes(JSON.stringify(calls.at(-1)!.content), INTERRUPTED);
    await second.close();
  });
});

Deno.test("always-ask set in one agent process holds in the next, on resume and on load: the read asks", async () => {
  await withE2eProject({ "project/notes.txt": "buy milk\n" }, async (p) => {
    const model = await writeToolCallModel(p.models, READ_NOTES);
    // A client that takes boolean options, so the Stop option is offered and answered back.
    const booleans = { session: { configOptions: { boolean: {} } } };
    const first = await p.startAgent(model, [], booleans);
    const sessionId = await p.newSession(first);
    await first.call("session/set_mode", { sessionId, modeId: "always-ask" });
    await first.call("session/set_config_option", {
      sessionId,
      configId: "stop_hooks_continue",
      type: "boolean",
      value: true,
    });
    await first.close();

    for (const method of ["session/resume", "session/load"]) {
      const next = await p.startAgent(model, [], booleans);
      const asked = allowAndRecord(next);
      const answer = await next.call(method, {
        sessionId,
        cwd: p.cwd,
        mcpServers: [],
      }) as JsonObject;
      assertEquals((answer.modes as JsonObject).currentModeId, "always-ask", method);
      assertEquals(optionValue(answer, "mode"), "always-ask", method);
      assertEquals(optionValue(answer, "stop_hooks_continue"), true, method);
      await next.call("session/prompt", { sessionId, prompt: text("read my notes") });
      assertEquals(asked.get(sessionId)?.length, 1, `${method}: the fs_read asked first`);
      await next.close();
    }
  });
});

Deno.test("a session saved in auto-approve-reads, loaded by an agent started with --permission-policy always-ask, asks", async () => {
  await withE2eProject({ "project/notes.txt": "buy milk\n" }, async (p) => {
    const model = await writeToolCallModel(p.models, READ_NOTES);
    const first = await p.startAgent(model);
    const sessionId = await p.newSession(first);
    await first.close();

    const strict = await p.startAgent(model, ["--permission-policy", "always-ask"]);
    const asked = allowAndRecord(strict);
    const answer = await strict.call("session/load", {
      sessionId,
      cwd: p.cwd,
      mcpServers: [],
    }) as JsonObject;
    assertEquals((answer.modes as JsonObject).currentModeId, "always-ask");
    await strict.call("session/prompt", { sessionId, prompt: text("read my notes") });
    assertEquals(asked.get(sessionId)?.length, 1, "the fs_read asked first");
    await strict.close();
  });
});

Deno.test({
  name: "acpx: a mode set with set-mode holds in the agent process of the next prompt",
  ignore: findNode() === undefined,
  fn: async () => {
    await withE2eProject({ "project/notes.txt": "buy milk\n" }, async (p) => {
      const model = await writeToolCallModel(p.models, READ_NOTES);
      const agentCommand = [LAUNCHER, "acp", "--model", model, "--threads", "1", "--gpu", "off"];
      await withAcpxSessions({ agentCommand, cwd: p.cwd, home: p.home }, async (acpx) => {
        const created = await acpx.run(["sessions", "new"]);
        assertEquals(created.code, 0, describeAcpxRun(created));
        const set = await acpx.run(["set-mode", "always-ask"]);
        assertEquals(set.code, 0, describeAcpxRun(set));
        // acpx approves reads itself: what matters is that the agent asks.
        const prompted = await acpx.run(["--approve-reads", "prompt", "read my notes"]);
        assertNoAcpxProtocolErrors(prompted);
        assertEquals(prompted.code, 0, describeAcpxRun(prompted));
        const restored = prompted.messages.find(({ from, message }) =>
          from === "agent" && typeof message.result === "object" && message.result !== null &&
          "modes" in message.result
        );
        assert(restored, `no resume or load answer: ${describeAcpxRun(prompted)}`);
        const result = restored.message.result as JsonObject;
        assertEquals((result.modes as JsonObject).currentModeId, "always-ask");
        const asked = acpxAgentRequests(prompted, "session/request_permission");
        assertEquals(asked.length, 1, describeAcpxRun(prompted));
        assertEquals(((asked[0]!.params as JsonObject).toolCall as JsonObject).kind, "read");
      });
    });
  },
});
