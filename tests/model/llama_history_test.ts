import { toLlamaHistory } from "../../src/model/llama/llama_history.ts";
import { assertEquals } from "../helpers/assert.ts";

Deno.test("a conversation becomes chat history ending with the model's turn", () => {
  assertEquals(
    toLlamaHistory([
      { role: "system", text: "Be brief." },
      { role: "user", text: "Hi" },
    ]),
    [
      { type: "system", text: "Be brief." },
      { type: "user", text: "Hi" },
      { type: "model", response: [] },
    ],
  );
});

Deno.test("an assistant message keeps its segments in order and is continued", () => {
  assertEquals(
    toLlamaHistory([
      { role: "user", text: "Read it" },
      {
        role: "assistant",
        segments: [
          { type: "thought", text: "I should read." },
          { type: "text", text: "Reading." },
          { type: "tool_call", name: "fs_read", input: { file_path: "a" }, result: "abc" },
        ],
      },
    ]),
    [
      { type: "user", text: "Read it" },
      {
        type: "model",
        response: [
          { type: "segment", segmentType: "thought", text: "I should read.", ended: true },
          "Reading.",
          { type: "functionCall", name: "fs_read", params: { file_path: "a" }, result: "abc" },
        ],
      },
    ],
  );
});

Deno.test("a system prompt with a shared part is two system messages, the shared part first", () => {
  const text = "Shared rules.\n\nYou work in /p.";
  assertEquals(
    toLlamaHistory([{ role: "system", text, sharedLength: "Shared rules.".length }]),
    [
      { type: "system", text: "Shared rules." },
      { type: "system", text: "You work in /p." },
      { type: "model", response: [] },
    ],
  );
  // All of it shared, or nothing: one message, as without the mark.
  for (const sharedLength of [0, text.length]) {
    assertEquals(toLlamaHistory([{ role: "system", text, sharedLength }]), [
      { type: "system", text },
      { type: "model", response: [] },
    ]);
  }
});
