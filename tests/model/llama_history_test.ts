import { toLlamaHistory } from "../../src/model/llama_history.ts";
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
