/**
 * One stdin line is one JSON-RPC message, and a line has a maximum length: a longer one is
 * discarded as it streams, answered with an error that names the limit, and the connection lives
 * on. Real stdio, real process.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { isObject } from "../helpers/acp_harness.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";
import {
  answerTo,
  INITIALIZE_PARAMS,
  request,
  type ScriptedAgent,
  withScriptedAgent,
} from "./scripted_agent.ts";

const MIB = 1024 * 1024;
const DEFAULT_LIMIT = 32 * MIB;

/** A `session/prompt` line of about `bytes` bytes, its id first or last. */
function promptLine(id: number, bytes: number, idAt: "start" | "end"): string {
  const text = "a".repeat(bytes);
  const params = JSON.stringify({ sessionId: "s", prompt: [{ type: "text", text }] });
  return idAt === "start"
    ? `{"jsonrpc":"2.0","id":${id},"method":"session/prompt","params":${params}}`
    : `{"jsonrpc":"2.0","method":"session/prompt","params":${params},"id":${id}}`;
}

async function assertStillServing({ agent, project }: ScriptedAgent): Promise<void> {
  await agent.call("initialize", INITIALIZE_PARAMS);
  const created = await agent.call("session/new", { cwd: project, mcpServers: [] });
  assert(isObject(created) && typeof created.sessionId === "string", JSON.stringify(created));
  const { code } = await agent.close();
  assertEquals(code, 0);
}

Deno.test("a line over 32 MiB is answered with an error naming the limit and its id; the agent serves on", async () => {
  await withScriptedAgent({}, async (scripted) => {
    const { agent } = scripted;
    await agent.sendRaw(promptLine(7, 33 * MIB, "start"));
    const answer = await answerTo(agent, 7);
    assert(isObject(answer.error), JSON.stringify(answer));
    assertEquals(answer.error.code, -32600);
    assertStringIncludes(String(answer.error.message), `${DEFAULT_LIMIT}`);
    assertEquals(isObject(answer.error.data) && answer.error.data.maxLineBytes, DEFAULT_LIMIT);
    assertStringIncludes(agent.stderr, `${DEFAULT_LIMIT}`);
    await assertStillServing(scripted);
  });
});

Deno.test("an over-long line whose id comes after its params is answered with id null", async () => {
  await withScriptedAgent({}, async (scripted) => {
    const { agent } = scripted;
    await agent.sendRaw(promptLine(8, 33 * MIB, "end"));
    const answer = await answerTo(agent, null);
    assert(isObject(answer.error), JSON.stringify(answer));
    assertEquals(answer.error.code, -32600);
    assertStringIncludes(String(answer.error.message), `${DEFAULT_LIMIT}`);
    await assertStillServing(scripted);
  });
});

Deno.test("a line of exactly 32 MiB is a message like any other", async () => {
  await withScriptedAgent({}, async ({ agent }) => {
    const head = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,` +
      `"clientCapabilities":{},"_meta":{"pad":"`;
    const tail = `"}}}`;
    const line = head + "p".repeat(DEFAULT_LIMIT - head.length - tail.length) + tail;
    assertEquals(new TextEncoder().encode(line).length, DEFAULT_LIMIT);
    await agent.sendRaw(line);
    const answer = await answerTo(agent, 1);
    assert(isObject(answer.result), JSON.stringify(answer).slice(0, 500));
    assertEquals(answer.result.protocolVersion, 1);
    const { code } = await agent.close();
    assertEquals(code, 0);
  });
});

Deno.test("--max-line-bytes sets the limit", async () => {
  await withScriptedAgent({ args: ["--max-line-bytes", "4096"] }, async (scripted) => {
    const { agent } = scripted;
    await agent.sendRaw(JSON.stringify(request(3, "initialize", INITIALIZE_PARAMS)));
    await answerTo(agent, 3);
    await agent.sendRaw(promptLine(4, 5000, "start"));
    const answer = await answerTo(agent, 4);
    assert(isObject(answer.error), JSON.stringify(answer));
    assertStringIncludes(String(answer.error.message), "4096");
    await assertStillServing(scripted);
  });
});

Deno.test("--max-line-bytes must be a whole number of bytes no larger than 256 MiB", async () => {
  await withTempProject({ "home/.keep": "" }, async (dir) => {
    const cases: [string, string][] = [
      ["0", "--max-line-bytes must be a positive integer"],
      ["1k", "--max-line-bytes must be a positive integer"],
      [`${256 * MIB + 1}`, `--max-line-bytes must be at most ${256 * MIB}`],
    ];
    for (const [value, message] of cases) {
      const result = await runCli(["acp", "--max-line-bytes", value], {
        cwd: dir,
        home: `${dir}/home`,
        stdin: "",
      });
      assertEquals(result.code, 2, `${value}: ${result.stderr}`);
      assertEquals(result.stdout, "");
      assertStringIncludes(result.stderr, message);
    }
  });
});
