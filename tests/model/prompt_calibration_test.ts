/**
 * An endpoint's prompt counts: the estimate, made exact by the server's reported usage for what
 * the server has seen, and never lowered for text it has not (a ratio learnt on prose would
 * count numbers short).
 */
import { assertEquals } from "../helpers/assert.ts";
import { type FakeServer, promptTokensOf, startFakeServer } from "../helpers/openai_fake_server.ts";
import { textReply } from "../helpers/openai_dialects.ts";
import { PromptCalibration } from "../../src/model/openai/prompt_calibration.ts";
import { estimatePromptTokens } from "../../src/model/token_estimate.ts";
import { openEndpointModel } from "../../src/model/openai/openai_model.ts";
import type { ConversationItem, ToolDefinition } from "../../src/model/model.ts";

const TOOLS: ToolDefinition[] = [{
  name: "fs_read",
  description: "Read a file",
  inputSchema: { type: "object", properties: { file_path: { type: "string" } } },
}];

const FIRST: ConversationItem[] = [
  { role: "system", text: "You are a careful assistant working in a repository." },
  { role: "user", text: "Read the notes and tell me what they say about deploys." },
];

const CALL: ConversationItem = {
  role: "assistant",
  segments: [{
    type: "tool_call",
    name: "fs_read",
    input: { file_path: "notes.txt" },
    result: "1024 2048 4096 8192 16384 32768",
  }],
};

Deno.test("before any report a count is the estimate", () => {
  const calibration = new PromptCalibration();
  assertEquals(calibration.count(FIRST, TOOLS), estimatePromptTokens(FIRST, TOOLS));
});

Deno.test("the request the server reported counts what it reported; one that extends it adds the estimate of what is new", () => {
  const calibration = new PromptCalibration();
  const estimate = estimatePromptTokens(FIRST, TOOLS);
  const reported = Math.round(estimate * 0.6);
  calibration.record(FIRST, TOOLS, reported);
  assertEquals(calibration.count(FIRST, TOOLS), reported);
  const longer = [...FIRST, CALL];
  const added = estimatePromptTokens(longer, TOOLS) - estimate;
  // The new (numeric) text is not scaled down by a ratio learnt on prose.
  assertEquals(calibration.count(longer, TOOLS), reported + added);
});

Deno.test("an assistant message continued with more segments still extends the reported request", () => {
  const calibration = new PromptCalibration();
  const withCall = [...FIRST, CALL];
  calibration.record(withCall, TOOLS, 100);
  const continued: ConversationItem[] = [...FIRST, {
    role: "assistant",
    segments: [...(CALL.role === "assistant" ? CALL.segments : []), {
      type: "text",
      text: "The notes say deploys are frozen.",
    }],
  }];
  const added = estimatePromptTokens(continued, TOOLS) - estimatePromptTokens(withCall, TOOLS);
  assertEquals(calibration.count(continued, TOOLS), 100 + added);
});

Deno.test("a conversation that does not extend the reported one (compacted, or other tools) counts its estimate", () => {
  const calibration = new PromptCalibration();
  calibration.record([...FIRST, CALL], TOOLS, 40);
  const compacted: ConversationItem[] = [FIRST[0]!, { role: "user", text: "Summary: notes read." }];
  assertEquals(calibration.count(compacted, TOOLS), estimatePromptTokens(compacted, TOOLS));
  assertEquals(calibration.count([...FIRST, CALL], []), estimatePromptTokens([...FIRST, CALL], []));
});

Deno.test("a server whose tokenizer takes more than the estimate raises every count by its ratio", () => {
  const calibration = new PromptCalibration();
  const estimate = estimatePromptTokens(FIRST, TOOLS);
  calibration.record(FIRST, TOOLS, estimate * 2);
  assertEquals(calibration.ratio, 2);
  const other: ConversationItem[] = [{ role: "user", text: "something else entirely" }];
  assertEquals(calibration.count(other, TOOLS), estimatePromptTokens(other, TOOLS) * 2);
  assertEquals(calibration.countText("three small words"), 2 * (2 + 2 + 2));
});

Deno.test("a report of no usage, of 0, or far below the estimate (a cached or cut count) is not learnt from", () => {
  const estimate = estimatePromptTokens(FIRST, TOOLS);
  for (const reported of [undefined, 0, Math.floor(estimate * 0.3), NaN]) {
    const calibration = new PromptCalibration();
    calibration.record(FIRST, TOOLS, reported);
    assertEquals(calibration.count(FIRST, TOOLS), estimate, String(reported));
    assertEquals(calibration.ratio, 1);
  }
});

async function withServer(
  options: Parameters<typeof startFakeServer>[0],
  run: (server: FakeServer) => Promise<void>,
) {
  const server = startFakeServer(options);
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

function ask(conversation: ConversationItem[]) {
  return {
    conversation,
    tools: TOOLS,
    signal: new AbortController().signal,
    onTextChunk: () => {},
    onThoughtChunk: () => {},
  };
}

Deno.test("an endpoint session's count of the request it sent is what the server reported", async () => {
  await withServer({ usage: { promptScale: 0.7 } }, async (server) => {
    server.reply({ kind: "stream", chunks: textReply("They are frozen.").slice(0, 3) });
    const session = await (await openEndpointModel({
      baseUrl: server.baseUrl,
      env: () => undefined,
    }))
      .openSession();
    await session.generate(ask(FIRST));
    const reported = Math.round(promptTokensOf(server.requests[0]!) * 0.7);
    assertEquals(await session.countPromptTokens!(FIRST, TOOLS), reported);
    const longer = [...FIRST, CALL];
    assertEquals(
      await session.countPromptTokens!(longer, TOOLS),
      reported + estimatePromptTokens(longer, TOOLS) - estimatePromptTokens(FIRST, TOOLS),
    );
    // Each session learns from its own requests.
    const other = await (await openEndpointModel({ baseUrl: server.baseUrl, env: () => undefined }))
      .openSession();
    assertEquals(await other.countPromptTokens!(FIRST, TOOLS), estimatePromptTokens(FIRST, TOOLS));
  });
});

Deno.test("a server that reports no usage (llama-cpp-python) leaves the count on the estimate", async () => {
  await withServer({}, async (server) => {
    server.reply({ kind: "stream", chunks: textReply("They are frozen.").slice(0, 3) });
    const session = await (await openEndpointModel({
      baseUrl: server.baseUrl,
      env: () => undefined,
    }))
      .openSession();
    await session.generate(ask(FIRST));
    assertEquals(
      await session.countPromptTokens!(FIRST, TOOLS),
      estimatePromptTokens(FIRST, TOOLS),
    );
  });
});

Deno.test("the fake's prompt count is never above the agent's estimate of the same conversation", async () => {
  await withServer({ usage: {} }, async (server) => {
    const conversation: ConversationItem[] = [...FIRST, {
      role: "assistant",
      segments: [
        { type: "thought", text: "I should read it." },
        ...(CALL.role === "assistant" ? CALL.segments : []),
        { type: "text", text: "Frozen." },
      ],
    }, { role: "user", text: "Thanks" }];
    server.reply({ kind: "stream", chunks: textReply("ok").slice(0, 3) });
    const session = await (await openEndpointModel({
      baseUrl: server.baseUrl,
      env: () => undefined,
    }))
      .openSession();
    await session.generate(ask(conversation));
    const counted = promptTokensOf(server.requests[0]!);
    const estimate = estimatePromptTokens(conversation, TOOLS);
    assertEquals(counted <= estimate, true, `fake ${counted} > estimate ${estimate}`);
  });
});
