/**
 * The agent with `--endpoint` against a real OpenAI-compatible server nobody here wrote:
 * llama-cpp-python's `llama_cpp.server` on loopback, serving SmolLM2-135M-Instruct (both from
 * PyPI, installed by tools/install_test_parts.sh), over real stdio.
 *
 * Two of its setups: the model's own chat template, which streams (text, prompt hooks, cancel),
 * and `chatml-function-calling`, whose grammar makes the model pick a tool or a message and
 * constrains the call; it cannot stream a call, so the agent's first tool request there comes
 * back empty and the backend sends tool requests whole from then on.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { AcpHarness, JsonObject } from "../helpers/acp_harness.ts";
import {
  type RunningServer,
  type ServerOptions,
  startLlamaCppServer,
} from "../helpers/llama_cpp_server.ts";
import { testOnParts, type TestParts } from "../helpers/test_parts.ts";
import {
  assertCancelledMidStream,
  assertPromptRefused,
  assertTextTurn,
  REFUSING_PROMPT_HOOK,
} from "./real_model_turns.ts";
import {
  acpxAgentText,
  acpxStopReason,
  assertNoAcpxProtocolErrors,
  describeAcpxRun,
  findNode,
  runAcpx,
} from "../helpers/acpx.ts";
import { LAUNCHER } from "../helpers/run_cli.ts";
import { type E2eProject, textPrompt as text, withE2eProject } from "./e2e_project.ts";

async function withServer(
  parts: TestParts,
  options: ServerOptions,
  files: Record<string, string>,
  fn: (p: E2eProject, agent: AcpHarness, server: RunningServer) => Promise<void>,
): Promise<void> {
  const server = await startLlamaCppServer(parts, { contextSize: 4096, ...options });
  try {
    await withE2eProject(files, async (p) => {
      const agent = await p.startAgent(server.alias, [
        "--endpoint",
        server.baseUrl,
        "--max-tool-rounds",
        "2",
      ]);
      try {
        await fn(p, agent, server);
      } finally {
        await agent.close();
      }
    });
  } catch (error) {
    throw new Error(`${error}\n--- server log ---\n${server.output().slice(-3000)}`);
  } finally {
    await server.stop();
  }
}

function tokensOf(result: JsonObject): Record<string, number> {
  return (result._meta as { tokens: Record<string, number> }).tokens;
}

testOnParts("llama_cpp.server: a text turn streams the model's words and ends", async (parts) => {
  await withServer(parts, {}, {}, async (p, agent) => {
    const result = await assertTextTurn(agent, await p.newSession(agent));
    // llama-cpp-python 0.3.36 sends no usage in a stream (it ignores stream_options), so the
    // turn's token counts stay 0 here; the fake's dialects pin how usage is read.
    assertEquals(tokensOf(result), { prompt: 0, evaluated: 0, generated: 0 });
  });
});

testOnParts(
  "llama_cpp.server (chatml-function-calling): the model's tool call runs fs_read in the project",
  async (parts) => {
    await withServer(
      parts,
      { chatFormat: "chatml-function-calling" },
      { "project/notes.txt": "buy milk\n" },
      async (p, agent) => {
        const sessionId = await p.newSession(agent);
        await agent.call("session/prompt", {
          sessionId,
          prompt: text("Use the fs_read tool to read the file notes.txt."),
        });
        const calls = agent.toolCallUpdates(sessionId);
        const started = calls.filter((update) => update.sessionUpdate === "tool_call");
        assert(started.length > 0, "the model made no tool call");
        // The grammar makes the call well-formed; which file a 135M model names is its own
        // choice (notes.txt in most runs), so what is pinned is that the call ran to its end.
        assertEquals(started[0]!._meta, { tool_name: "fs_read" });
        const input = started[0]!.rawInput as { file_path?: unknown };
        assertEquals(typeof input.file_path, "string");
        const ended = calls.find((update) =>
          update.toolCallId === started[0]!.toolCallId &&
          (update.status === "completed" || update.status === "failed")
        );
        assert(ended !== undefined, JSON.stringify(calls));
        if (input.file_path === "notes.txt") {
          assertStringIncludes(JSON.stringify(ended.content), "buy milk");
        }
      },
    );
  },
);

testOnParts(
  "llama_cpp.server: a prompt hook's verdict comes through the server's JSON grammar and blocks the prompt",
  async (parts) => {
    await withServer(parts, {}, REFUSING_PROMPT_HOOK, async (p, agent) => {
      await assertPromptRefused(agent, await p.newSession(agent));
    });
  },
);

testOnParts("llama_cpp.server: cancel mid-stream answers cancelled", async (parts) => {
  await withServer(parts, {}, {}, async (p, agent) => {
    await assertCancelledMidStream(agent, await p.newSession(agent));
  });
});

testOnParts(
  "acpx with --endpoint on llama_cpp.server: an independent client gets a whole turn",
  async (parts) => {
    if (findNode() === undefined) throw new Error("acpx needs Node.js on PATH");
    const server = await startLlamaCppServer(parts, { contextSize: 4096 });
    try {
      await withE2eProject({}, async (p) => {
        const run = await runAcpx({
          agentCommand: [LAUNCHER, "acp", "--endpoint", server.baseUrl, "--max-tool-rounds", "1"],
          cwd: p.cwd,
          home: p.home,
          prompt: "Say hello in one short sentence.",
          flags: ["--approve-all"],
        });
        assertNoAcpxProtocolErrors(run);
        assertEquals(run.code, 0, describeAcpxRun(run));
        assert(acpxAgentText(run).trim().length > 0, describeAcpxRun(run));
        assert(
          ["end_turn", "max_tokens"].includes(String(acpxStopReason(run))),
          describeAcpxRun(run),
        );
      });
    } finally {
      await server.stop();
    }
  },
);
