/**
 * Requests are handled in the order they arrive: what follows `initialize` waits for its answer,
 * however the client's writes are cut. When stdin ends, every request already read is answered
 * (a running prompt with `cancelled`) before the agent exits. Real stdio, real process.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { type AcpResponse, type CloseResult, isObject } from "../helpers/acp_harness.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import {
  answers,
  answerTo,
  INITIALIZE_PARAMS,
  request,
  type ScriptedAgent,
  withScriptedAgent,
  writeTogether,
} from "./scripted_agent.ts";

Deno.test("initialize and session/new in one write: both succeed, answered in order", async () => {
  await withScriptedAgent({}, async ({ agent, project }) => {
    await writeTogether(agent, [
      request(1, "initialize", INITIALIZE_PARAMS),
      request(2, "session/new", { cwd: project, mcpServers: [] }),
    ]);
    const created = await answerTo(agent, 2);
    assert(isObject(created.result), JSON.stringify(created));
    assertEquals(typeof created.result.sessionId, "string");
    assertEquals(answers(agent).map((answer) => [answer.id, "result" in answer]), [
      [1, true],
      [2, true],
    ]);
    const { code } = await agent.close();
    assertEquals(code, 0);
  });
});

Deno.test("initialize and then at once EOF: initialize is answered, then the agent exits 0", async () => {
  await withTempProject(
    { "home/.keep": "", "project/script.json": '{"turns":[]}' },
    async (dir) => {
      const line = JSON.stringify(request(1, "initialize", INITIALIZE_PARAMS));
      // With and without a line ending: the last line of a stream needs none.
      for (const stdin of [line, `${line}\n`]) {
        const run = await runCli(["acp", "--model", "scripted:script.json"], {
          cwd: `${dir}/project`,
          home: `${dir}/home`,
          stdin,
        });
        assertEquals(run.code, 0, run.stderr);
        const lines = run.stdout.split("\n").filter((text) => text !== "");
        assertEquals(lines.length, 1, run.stdout);
        const answer = JSON.parse(lines[0]!);
        assertEquals([answer.id, answer.result?.protocolVersion], [1, 1]);
      }
    },
  );
});

Deno.test("several requests and then EOF: every one is answered before the agent exits", async () => {
  await withScriptedAgent({}, async ({ agent, project }) => {
    await writeTogether(agent, [
      request(1, "initialize", INITIALIZE_PARAMS),
      request(2, "session/new", { cwd: project, mcpServers: [] }),
      request(3, "session/list", {}),
      request("four", "no/such_method", {}),
      request(5, "session/new", { cwd: "relative", mcpServers: [] }),
    ]);
    const { code } = await agent.close();
    assertEquals(code, 0);
    const byId = new Map(answers(agent).map((answer) => [answer.id, answer]));
    assert(isObject(byId.get(1)?.result), "initialize");
    assert(isObject(byId.get(2)?.result), "session/new");
    assert(isObject(byId.get(3)?.result), "session/list");
    assertEquals(isObject(byId.get("four")?.error) && byId.get("four")?.error, {
      code: -32601,
      message: '"Method not found": no/such_method',
      data: { method: "no/such_method" },
    });
    const invalid = byId.get(5)?.error;
    assertEquals(isObject(invalid) && invalid.code, -32602);
    assertEquals(byId.size, 5);
  });
});

const SLEEP_TURN = { toolCalls: [{ name: "shell", input: { command: "sleep 30" } }] };
/** An agent whose model runs `sleep 30` in the shell, allowed without asking. */
const SLEEPING_AGENT = {
  turns: [SLEEP_TURN],
  args: ["--rules", "rules.json"],
  files: { "rules.json": JSON.stringify({ rules: [{ tool: "shell", decision: "allow" }] }) },
};

/** Initializes, opens a session and sends the prompt whose turn is `SLEEP_TURN`. */
async function sendSleepPrompt(
  { agent, project }: ScriptedAgent,
): Promise<{ sessionId: string; prompt: Promise<AcpResponse> }> {
  await agent.call("initialize", INITIALIZE_PARAMS);
  const { sessionId } = await agent.call("session/new", { cwd: project, mcpServers: [] }) as {
    sessionId: string;
  };
  const prompt = agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "sleep" }],
  });
  return { sessionId, prompt };
}

/** Sends the prompt; resolves once its `sleep 30` runs. */
async function promptUntilTheShellRuns(
  scripted: ScriptedAgent,
): Promise<{ prompt: Promise<AcpResponse> }> {
  const { agent } = scripted;
  const { sessionId, prompt } = await sendSleepPrompt(scripted);
  await agent.waitFor(
    () => agent.toolCallUpdates(sessionId).some((update) => update.status === "in_progress"),
    { what: "the shell call to run" },
  );
  return { prompt };
}

/** The prompt was answered `cancelled`, and the agent then exited 0. */
async function assertCancelledAndExited(
  answer: AcpResponse,
  closed: Promise<CloseResult>,
): Promise<void> {
  assertEquals(
    isObject(answer.result) && answer.result.stopReason,
    "cancelled",
    JSON.stringify(answer),
  );
  const { code } = await closed;
  assertEquals(code, 0);
}

Deno.test("a prompt running a tool when stdin ends is answered cancelled, and the agent exits 0", async () => {
  await withScriptedAgent(SLEEPING_AGENT, async (scripted) => {
    const { agent } = scripted;
    const { prompt } = await promptUntilTheShellRuns(scripted);
    const closed = agent.close({ timeoutMs: 10_000 });
    const answer = await prompt;
    await assertCancelledAndExited(answer, closed);
  });
});

Deno.test("SIGTERM while a prompt runs ends the agent at once, its stdin still open", async () => {
  await withScriptedAgent(SLEEPING_AGENT, async (scripted) => {
    const { agent, model } = scripted;
    const prompt = (await promptUntilTheShellRuns(scripted)).prompt.catch((error: Error) => error);
    const [pid, ...others] = await livingPidsMatching(`--model ${model}`);
    assert(pid !== undefined && others.length === 0, "exactly one agent process");
    Deno.kill(pid, "SIGTERM");
    // The signal, not EOF, ends it: the harness learns of the exit before it closes stdin.
    assert((await prompt) instanceof Error, "the prompt is not answered");
    const { code, signal } = await agent.close();
    assertEquals([code, signal], [0, null]);
  });
});

Deno.test("a prompt waiting for a permission answer when stdin ends is answered cancelled", async () => {
  await withScriptedAgent({ turns: [SLEEP_TURN] }, async (scripted) => {
    const { agent } = scripted;
    const asked = Promise.withResolvers<void>();
    const answerLater = Promise.withResolvers<void>();
    agent.onRequest("session/request_permission", async () => {
      asked.resolve();
      await answerLater.promise;
      return { outcome: { outcome: "cancelled" } };
    });
    const { prompt } = await sendSleepPrompt(scripted);
    await asked.promise;
    // The SDK withdraws the permission request with `$/cancel_request`: close() fails on any
    // message that breaks the protocol, that one included.
    const closed = agent.close({ timeoutMs: 10_000 });
    const answer = await prompt.finally(() => answerLater.resolve());
    await assertCancelledAndExited(answer, closed);
    assert(
      agent.messages.some((logged) => logged.line.includes('"$/cancel_request"')),
      "the permission request is withdrawn",
    );
  });
});
