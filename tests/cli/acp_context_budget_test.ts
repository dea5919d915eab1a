/**
 * The context budget settings reach the agent. Through the real launcher, with `--endpoint` at a
 * loopback fake server whose model lists a 32768-token context: a tool result the model is sent
 * is cut to the share `--tool-output-share` allows, and the conversation is compacted before a
 * request that passes `--compact-threshold` (from the flag, its variable or the config file).
 */
import { assert, assertEquals, assertLess } from "../helpers/assert.ts";
import { AcpHarness, type JsonObject } from "../helpers/acp_harness.ts";
import { textReply, toolCallReply } from "../helpers/openai_dialects.ts";
import { type FakeReply, startFakeServer } from "../helpers/openai_fake_server.ts";
import { withTempProject } from "../helpers/run_cli.ts";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/acp/compaction/conversation_summary.ts";

const CONFIG = ".config/llama-agent/config.json";
const CONTEXT = 32768;
/** Far more than any share of the context. */
const NOTES = Array.from({ length: 12000 }, (_, i) => `note ${i + 1}: buy milk\n`).join("");

interface Setup {
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
  /** The config file's text. */
  readonly config?: string;
}

/**
 * The chat requests the server got in a session whose prompts are `prompts`, the first of which
 * reads notes.txt; `replies` answer them in order.
 */
async function requestsOf(
  setup: Setup,
  prompts: readonly string[],
  replies: readonly FakeReply[],
): Promise<JsonObject[]> {
  const server = startFakeServer({ models: [{ id: "served-model", max_model_len: CONTEXT }] });
  try {
    return await withTempProject({
      "work/notes.txt": NOTES,
      [`home/${CONFIG}`]: setup.config ?? "{}",
    }, async (root) => {
      const [home, work] = [`${root}/home`, `${root}/work`];
      server.reply(...replies);
      const agent = await AcpHarness.start({
        cwd: work,
        home,
        args: ["--endpoint", server.baseUrl, "--model", "served-model", ...setup.args ?? []],
        env: setup.env,
      });
      await agent.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await agent.call("session/new", { cwd: work, mcpServers: [] }) as {
        sessionId: string;
      };
      for (const text of prompts) {
        const result = await agent.call("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text }],
        }) as JsonObject;
        assertEquals(result.stopReason, "end_turn", agent.agentText(sessionId));
      }
      assertEquals((await agent.close()).code, 0);
      return server.requests as JsonObject[];
    });
  } finally {
    await server.close();
  }
}

const READ_NOTES: readonly FakeReply[] = [
  { kind: "stream", chunks: toolCallReply("vllm") },
  { kind: "stream", chunks: textReply("Noted.") },
];

/** The length of the tool result the model was sent after reading notes.txt. */
async function toolResultLength(setup: Setup): Promise<number> {
  const requests = await requestsOf(setup, ["read my notes"], READ_NOTES);
  const messages = requests[1]!.messages as JsonObject[];
  const tool = messages.find((message) => message.role === "tool");
  assert(tool !== undefined, "the tool result went back to the model");
  return String(tool.content).length;
}

function isSummaryRequest(request: JsonObject): boolean {
  const [first] = request.messages as JsonObject[];
  return first?.role === "system" && first.content === SUMMARY_SYSTEM_PROMPT;
}

Deno.test("--tool-output-share, its variable and the config file set how much of the context one tool result takes", async () => {
  const small = await toolResultLength({ args: ["--tool-output-share", "10%"] });
  const quarter = await toolResultLength({ args: ["--tool-output-share", "0.25"] });
  const byDefault = await toolResultLength({});
  assertLess(small * 2, quarter);
  assertLess(quarter * 1.5, byDefault);
  assertLess(byDefault, NOTES.length);
  // The same share from the variable or the file gives the same cut.
  assertEquals(await toolResultLength({ env: { LLAMA_AGENT_TOOL_OUTPUT_SHARE: "0.1" } }), small);
  assertEquals(await toolResultLength({ config: '{ "toolOutputShare": 0.1 }' }), small);
});

Deno.test("--compact-threshold, its variable and the config file set when the conversation is compacted", async () => {
  // The first turn's tool result takes half of what is free: under the default threshold the
  // next turn still fits, under a fifth of the context it is compacted first.
  const prompts = ["read my notes", "thanks"];
  const thanks: FakeReply = { kind: "stream", chunks: textReply("You are welcome.") };
  const summary: FakeReply = { kind: "stream", chunks: textReply("The user had notes read.") };
  const byDefault = await requestsOf({}, prompts, [...READ_NOTES, thanks]);
  assertEquals(byDefault.filter(isSummaryRequest).length, 0);
  for (
    const setup of [
      { args: ["--compact-threshold", "20%"] },
      { env: { LLAMA_AGENT_COMPACT_THRESHOLD: "0.2" } },
      { config: '{ "compactThreshold": "20%" }' },
    ]
  ) {
    const requests = await requestsOf(setup, prompts, [...READ_NOTES, summary, thanks]);
    assertEquals(
      requests.map(isSummaryRequest),
      [false, false, true, false],
      JSON.stringify(setup),
    );
    const last = JSON.stringify(requests.at(-1));
    assert(last.includes("The user had notes read."), "the model sees the summary");
    assert(!last.includes("note 1: buy milk"), "the notes are summarised away");
  }
});
