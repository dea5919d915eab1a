import { assertEquals } from "../helpers/assert.ts";
import {
  CALL_ARGUMENTS,
  DIALECTS,
  SENTENCE,
  textReply,
  THOUGHT,
  toolCallReply,
} from "../helpers/openai_dialects.ts";
import { startFakeServer } from "../helpers/openai_fake_server.ts";
import { openEndpointModel } from "../../src/model/openai/openai_model.ts";
import type { ConversationItem, GenerateRequest } from "../../src/model/model.ts";

const READ_TOOL = {
  name: "fs_read",
  description: "Read a file",
  inputSchema: {
    type: "object",
    properties: { file_path: { type: "string" } },
    required: ["file_path"],
  },
};

function request(conversation: ConversationItem[], chunks: { text: string[]; thought: string[] }) {
  return {
    conversation,
    tools: [READ_TOOL],
    signal: new AbortController().signal,
    onTextChunk: (text: string) => void chunks.text.push(text),
    onThoughtChunk: (text: string) => void chunks.thought.push(text),
  } satisfies GenerateRequest;
}

for (const dialect of DIALECTS) {
  Deno.test(`${dialect}: reasoning, text and a tool call split across chunks come out whole`, async () => {
    const server = startFakeServer();
    try {
      server.reply({ kind: "stream", chunks: toolCallReply(dialect) });
      const model = await openEndpointModel({ baseUrl: server.baseUrl, env: () => undefined });
      const session = await model.openSession();
      const chunks = { text: [] as string[], thought: [] as string[] };
      const result = await session.generate(
        request([{ role: "user", text: "Read notes.txt" }], chunks),
      );
      assertEquals(result.text, SENTENCE);
      assertEquals(result.thought, THOUGHT);
      assertEquals(chunks.text.join(""), SENTENCE);
      assertEquals(chunks.thought.join(""), THOUGHT);
      assertEquals(result.toolCalls, [{ name: "fs_read", input: CALL_ARGUMENTS }]);
      assertEquals(result.stop, "tool_calls");
      assertEquals(result.tokens.prompt, 120);
      assertEquals(result.tokens.generated, 18);
      // Only vLLM reports the prompt tokens it had cached.
      assertEquals(result.tokens.evaluated, dialect === "vllm" ? 20 : 120);
    } finally {
      await server.close();
    }
  });
}

Deno.test("the call and its result go back as an assistant tool_calls message and a tool message", async () => {
  const server = startFakeServer();
  try {
    server.reply({ kind: "stream", chunks: textReply("The notes say hi.") });
    const model = await openEndpointModel({ baseUrl: server.baseUrl, env: () => undefined });
    const session = await model.openSession();
    const chunks = { text: [] as string[], thought: [] as string[] };
    const result = await session.generate(request([
      { role: "system", text: "Be brief." },
      { role: "user", text: "Read notes.txt" },
      {
        role: "assistant",
        segments: [
          { type: "thought", text: "They want the notes." },
          { type: "text", text: SENTENCE },
          { type: "tool_call", name: "fs_read", input: CALL_ARGUMENTS, result: "hi" },
        ],
      },
    ], chunks));
    assertEquals(result.text, "The notes say hi.");
    assertEquals(result.stop, "end");
    const sent = server.requests[0]!;
    assertEquals(sent.model, "fake-model");
    assertEquals(sent.stream, true);
    assertEquals(sent.stream_options, { include_usage: true });
    assertEquals(sent.messages, [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Read notes.txt" },
      {
        role: "assistant",
        content: SENTENCE,
        tool_calls: [{
          id: "call_2_0",
          type: "function",
          function: { name: "fs_read", arguments: JSON.stringify(CALL_ARGUMENTS) },
        }],
      },
      { role: "tool", tool_call_id: "call_2_0", content: "hi" },
    ]);
    assertEquals(sent.tools, [{
      type: "function",
      function: {
        name: "fs_read",
        description: "Read a file",
        parameters: READ_TOOL.inputSchema,
      },
    }]);
  } finally {
    await server.close();
  }
});
