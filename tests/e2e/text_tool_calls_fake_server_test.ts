/**
 * Over real stdio with `--endpoint` at a loopback fake server that streams what a small model
 * sends when it writes its call as text: a `<tool_call>` tag with the arguments as a JSON string,
 * in small pieces. The agent runs the call, tells the user so, and sends it back to the server as
 * a call, not as the text.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import { textReply } from "../helpers/openai_dialects.ts";
import { startFakeServer } from "../helpers/openai_fake_server.ts";
import { textPrompt, withE2eProject } from "./e2e_project.ts";

/** `text` as a server streams it: a few characters per chunk, then "stop". */
function streamedText(text: string): object[] {
  const chunk = (delta: object, finish: string | null = null) => ({
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1764547200,
    model: "served-model",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const pieces: object[] = [chunk({ role: "assistant", content: "" })];
  for (let at = 0; at < text.length; at += 5) {
    pieces.push(chunk({ content: text.slice(at, at + 5) }));
  }
  return [...pieces, chunk({}, "stop")];
}

Deno.test("--endpoint: a <tool_call> streamed as text runs, and goes back to the server as a call", async () => {
  const server = startFakeServer({ models: [{ id: "served-model" }] });
  try {
    await withE2eProject({ "project/notes.txt": "buy milk\n" }, async (p) => {
      const written = "<tool_call>\n" +
        '{"name": "fs_read", "arguments": "{\\"file_path\\": \\"notes.txt\\"}"}\n</tool_call>';
      server.reply(
        { kind: "stream", chunks: streamedText(written) },
        { kind: "stream", chunks: textReply("You need milk.") },
      );
      const agent = await p.startAgent("served-model", ["--endpoint", server.baseUrl]);
      const sessionId = await p.newSession(agent);
      const result = await agent.call("session/prompt", {
        sessionId,
        prompt: textPrompt("read my notes"),
      }) as JsonObject;
      assertEquals(result.stopReason, "end_turn");
      const calls = agent.toolCallUpdates(sessionId);
      assertEquals(calls[0]!._meta, {
        tool_name: "fs_read",
        "llama-agent/repair": {
          emittedName: "fs_read",
          fromText: "tool_call_tag",
          renamed: false,
          decodedArguments: true,
          toolName: "fs_read",
        },
      });
      assertEquals(calls.at(-1)!.status, "completed");
      // The user saw the text as it came, then was told it ran as a call.
      const shown = agent.agentText(sessionId);
      assertStringIncludes(shown, written);
      assertStringIncludes(
        shown,
        "The model wrote its tool call as text: it runs as a call to fs_read",
      );
      assertStringIncludes(shown, "You need milk.");
      // The server reads the call as a call with its result, never the call's text.
      assertEquals(server.requests.length, 2);
      const messages = server.requests[1]!.messages as JsonObject[];
      const assistant = messages.filter((message) => message.role === "assistant");
      assertEquals(assistant.length, 1);
      const toolCalls = assistant[0]!.tool_calls as {
        function: { name: string; arguments: string };
      }[];
      assertEquals(
        toolCalls.map((call) => [call.function.name, JSON.parse(call.function.arguments)]),
        [["fs_read", { file_path: "notes.txt" }]],
      );
      assertEquals(JSON.stringify(messages).includes("<tool_call>"), false);
      const toolMessage = messages.find((message) => message.role === "tool")!;
      assertStringIncludes(String(toolMessage.content), "buy milk");
      assertEquals((await agent.close()).code, 0);
    });
  } finally {
    await server.close();
  }
});
