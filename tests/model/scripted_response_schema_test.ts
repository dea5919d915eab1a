/**
 * The scripted backend with a response schema: the script author writes the JSON, and it is
 * played back as written (so `hooks test` scenarios can script hook verdicts).
 */
import { AgentError } from "../../src/error.ts";
import type { GenerateRequest } from "../../src/model/model.ts";
import { scriptedModel } from "../../src/model/scripted/scripted_model.ts";
import { assertEquals, assertRejectsWith, assertStringIncludes } from "../helpers/assert.ts";

const SCHEMA = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };

function request(chunks: string[], thoughts: string[]): GenerateRequest {
  return {
    conversation: [{ role: "user", text: "Is it safe?" }],
    tools: [],
    signal: new AbortController().signal,
    responseSchema: SCHEMA,
    onTextChunk: (text) => chunks.push(text),
    onThoughtChunk: (text) => thoughts.push(text),
  };
}

Deno.test("with a response schema a scripted turn's text comes back as written", async () => {
  // Not checked against the schema: the caller validates, as it must for any model.
  for (const text of ['{"ok": false, "reason": "no"}', "not json at all"]) {
    const session = await scriptedModel({ turns: [{ thought: "Hmm, let me see.", text }] })
      .openSession();
    const chunks: string[] = [];
    const thoughts: string[] = [];
    const result = await session.generate(request(chunks, thoughts));
    assertEquals([result.text, result.stop, result.toolCalls], [text, "end", []]);
    assertEquals(chunks.join(""), text);
    // Thinking is dropped, as under a llama grammar.
    assertEquals([result.thought, thoughts], ["", []]);
    await session.dispose();
  }
});

Deno.test("a scripted turn with tool calls cannot answer a response schema", async () => {
  const session = await scriptedModel({
    turns: [{ text: "{}", toolCalls: [{ name: "fs_read", input: {} }] }, { text: '{"ok": true}' }],
  }).openSession();
  const error = await assertRejectsWith(() => session.generate(request([], [])), AgentError);
  assertStringIncludes(
    error.message,
    'Invalid model script: turn 1 has "toolCalls", but this model call asks for a JSON answer',
  );
  // The turn is not consumed: a call without a schema still gets it.
  const { toolCalls } = await session.generate({ ...request([], []), responseSchema: undefined });
  assertEquals(toolCalls, [{ name: "fs_read", input: {} }]);
});
