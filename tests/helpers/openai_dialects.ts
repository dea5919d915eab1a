/**
 * How four servers stream the same reply: some reasoning, a sentence, and one call of
 * `fs_read` on notes.txt, then usage. Each dialect's chunks follow what that server sends (field
 * names, where the call's pieces are split, which finish reason, where usage goes), so a test
 * per dialect pins what the backend must read. `textReply` is the plain answer after the call.
 */

export type Dialect = "llama-server" | "ollama" | "lm-studio" | "vllm";
export const DIALECTS: readonly Dialect[] = ["llama-server", "ollama", "lm-studio", "vllm"];

export const THOUGHT = "The user wants the notes.";
export const SENTENCE = "Reading the notes.";
export const CALL_ARGUMENTS = { file_path: "notes.txt" };
export const USAGE = { prompt_tokens: 120, completion_tokens: 18, total_tokens: 138 };

function chunk(model: string, delta: object, finish: string | null = null, extra: object = {}) {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1764547200,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  };
}

/** A thought, a sentence, then one `fs_read` call, as `dialect` streams it. */
export function toolCallReply(dialect: Dialect): object[] {
  switch (dialect) {
    case "llama-server":
      // reasoning_content; the call's arguments cut mid-key; usage (and timings) alone at the end.
      return [
        chunk("smol", { role: "assistant", content: null }),
        chunk("smol", { reasoning_content: "The user wants " }),
        chunk("smol", { reasoning_content: "the notes." }),
        chunk("smol", { content: "Reading " }),
        chunk("smol", { content: "the notes." }),
        chunk("smol", {
          tool_calls: [{
            index: 0,
            id: "Zk3b",
            type: "function",
            function: { name: "fs_read", arguments: '{"file_' },
          }],
        }),
        chunk("smol", { tool_calls: [{ index: 0, function: { arguments: 'path": "notes' } }] }),
        chunk("smol", { tool_calls: [{ index: 0, function: { arguments: '.txt"}' } }] }),
        chunk("smol", {}, "tool_calls"),
        {
          id: "chatcmpl-fake",
          object: "chat.completion.chunk",
          created: 1764547200,
          model: "smol",
          choices: [],
          usage: USAGE,
          timings: { prompt_n: 120, predicted_n: 18 },
        },
      ];
    case "ollama":
      // `reasoning`; the whole call in one chunk; finish_reason "stop" although it called a tool.
      return [
        chunk("qwen3:8b", { role: "assistant", content: "", reasoning: THOUGHT }),
        chunk("qwen3:8b", { role: "assistant", content: SENTENCE }),
        chunk("qwen3:8b", {
          role: "assistant",
          content: "",
          tool_calls: [{
            id: "call_qvx1",
            index: 0,
            type: "function",
            function: { name: "fs_read", arguments: JSON.stringify(CALL_ARGUMENTS) },
          }],
        }),
        chunk("qwen3:8b", { role: "assistant", content: "" }, "stop"),
        {
          id: "chatcmpl-fake",
          object: "chat.completion.chunk",
          created: 1764547200,
          model: "qwen3:8b",
          system_fingerprint: "fp_ollama",
          choices: [],
          usage: USAGE,
        },
      ];
    case "lm-studio":
      // reasoning_content; the name in its own chunk, then arguments token by token; usage
      // beside the last choice.
      return [
        chunk("qwen/qwen3-8b", { role: "assistant", reasoning_content: THOUGHT }),
        chunk("qwen/qwen3-8b", { content: SENTENCE }),
        chunk("qwen/qwen3-8b", {
          tool_calls: [{
            index: 0,
            id: "365174485",
            type: "function",
            function: { name: "fs_read", arguments: "" },
          }],
        }),
        ...['{"', "file", "_path", '":"', "notes", ".txt", '"}'].map((piece) =>
          chunk("qwen/qwen3-8b", { tool_calls: [{ index: 0, function: { arguments: piece } }] })
        ),
        chunk("qwen/qwen3-8b", {}, "tool_calls", { usage: USAGE }),
      ];
    case "vllm":
      // reasoning_content; `usage: null` on every chunk but the last, which has no choices and
      // reports cached prompt tokens.
      return [
        chunk("Qwen/Qwen3-8B", { role: "assistant", content: "" }, null, { usage: null }),
        chunk("Qwen/Qwen3-8B", { reasoning_content: THOUGHT }, null, { usage: null }),
        chunk("Qwen/Qwen3-8B", { content: SENTENCE }, null, { usage: null }),
        chunk(
          "Qwen/Qwen3-8B",
          {
            tool_calls: [{
              id: "chatcmpl-tool-4f1d",
              type: "function",
              index: 0,
              function: { name: "fs_read" },
            }],
          },
          null,
          { usage: null },
        ),
        chunk(
          "Qwen/Qwen3-8B",
          {
            tool_calls: [{ index: 0, function: { arguments: '{"file_path": ' } }],
          },
          null,
          { usage: null },
        ),
        chunk(
          "Qwen/Qwen3-8B",
          {
            tool_calls: [{ index: 0, function: { arguments: '"notes.txt"}' } }],
          },
          null,
          { usage: null },
        ),
        chunk("Qwen/Qwen3-8B", { content: "" }, "tool_calls", { usage: null }),
        {
          id: "chatcmpl-fake",
          object: "chat.completion.chunk",
          created: 1764547200,
          model: "Qwen/Qwen3-8B",
          choices: [],
          usage: { ...USAGE, prompt_tokens_details: { cached_tokens: 100 } },
        },
      ];
    default:
      return dialect satisfies never;
  }
}

/** A plain answer of `text` in two pieces, ending with "stop" and usage. */
export function textReply(text: string, model = "fake-model"): object[] {
  const half = Math.ceil(text.length / 2);
  return [
    chunk(model, { role: "assistant", content: text.slice(0, half) }),
    chunk(model, { content: text.slice(half) }),
    chunk(model, {}, "stop"),
    { ...chunk(model, {}), choices: [], usage: { prompt_tokens: 50, completion_tokens: 7 } },
  ];
}
