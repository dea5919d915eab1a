import { encodeGguf, type GgufFile } from "../../src/model/scripted/gguf_writer.ts";
import {
  type BigramScript,
  jsonDumps,
  scriptedGguf,
  writeScriptedModel,
} from "../../src/model/scripted/scripted_gguf.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { readGgufHeader } from "./gguf_reader.ts";

/**
 * Runs the bigram model on paper: the state is the last token, the logits are the output
 * matrix's column for it plus the bias column, and greedy decoding follows the maximum.
 */
function follow(file: GgufFile, start: string, steps = 40): string[] {
  const tokens = file.metadata["tokenizer.ggml.tokens"];
  assert(tokens?.type === "array" && tokens.itemType === "string");
  const vocab = tokens.value;
  const output = file.tensors.find((t) => t.name === "output.weight");
  const data = [...(output?.data() ?? [])][0];
  assert(output && data instanceof Float32Array);
  const [nEmbd = 0, nVocab = 0] = output.shape;
  let current = vocab.indexOf(start);
  assert(current >= 0, `no token ${JSON.stringify(start)}`);
  const path: string[] = [];
  for (let step = 0; step < steps; step++) {
    let best = -1;
    let bestLogit = -Infinity;
    for (let v = 0; v < nVocab; v++) {
      const logit = (data[v * nEmbd + current] ?? 0) + (data[v * nEmbd + nVocab] ?? 0);
      if (logit > bestLogit) [best, bestLogit] = [v, logit];
    }
    const text = vocab[best] ?? "";
    path.push(text);
    if (text === "<|im_end|>") break;
    current = best;
  }
  return path;
}

Deno.test("a reply chain starts at the assistant prefix and ends the turn", () => {
  const file = scriptedGguf({ kind: "reply", text: "Hello from the scripted model." });
  const path = follow(file, "assistant\n");
  assertEquals(path, ["Hello", " from", " the", " scripted", " model.", "<|im_end|>"]);
  // Any other context ends the turn at once.
  assertEquals(follow(file, "<0x0A>"), ["<|im_end|>"]);
});

Deno.test("a tool-call model: the prefix starts the call, the result's newline the answer", () => {
  const params = { file_path: "notes.txt" };
  const file = scriptedGguf({ kind: "tool_call", toolName: "fs_read", params, answer: "Done." });
  assertEquals(follow(file, "assistant\n"), [
    "||call: ",
    "fs_read",
    "(",
    '{"file_path": "notes.txt"}',
    ")",
    "<|im_end|>",
  ]);
  assertEquals(follow(file, "<0x0A>"), ["Done.", "<|im_end|>"]);
});

Deno.test("words are user-defined tokens of their own that leave the chains as they were", () => {
  const script: BigramScript = {
    kind: "tool_call",
    toolName: "fs_read",
    params: { file_path: "notes.txt" },
    answer: "Done.",
  };
  const plain = scriptedGguf(script);
  const file = scriptedGguf(script, { words: ["function", " function", "fs_read", "a", "Done."] });
  const tokens = file.metadata["tokenizer.ggml.tokens"];
  const types = file.metadata["tokenizer.ggml.token_type"];
  assert(tokens?.type === "array" && tokens.itemType === "string");
  assert(types?.type === "array" && types.itemType === "i32");
  const plainTokens = plain.metadata["tokenizer.ggml.tokens"];
  assert(plainTokens?.type === "array" && plainTokens.itemType === "string");
  // Only the new words are added, after the script's pieces; one letter, or a piece, is not.
  assertEquals(tokens.value.slice(plainTokens.value.length), ["function", " function"]);
  assertEquals(types.value[types.value.length - 1], 4, "user-defined");
  for (const start of ["assistant\n", "<0x0A>"]) {
    assertEquals(follow(file, start), follow(plain, start));
  }
  assertEquals(follow(file, "function"), ["<|im_end|>"], "no chain goes on from a word");
});

Deno.test("an endless model cycles and never ends", () => {
  const path = follow(scriptedGguf({ kind: "endless" }), "assistant\n", 6);
  assertEquals(path, [" tick", " tock", " tick", " tock", " tick", " tock"]);
});

Deno.test("repeated words merge so that every chain token has one successor", () => {
  const text = "go go go, a b the the end";
  const file = scriptedGguf({ kind: "reply", text });
  const path = follow(file, "assistant\n");
  assertEquals(path.at(-1), "<|im_end|>");
  assertEquals(path.slice(0, -1).join(""), text);
  assertEquals(new Set(path).size, path.length);
  // The answer may repeat a word of the call: pieces stay unique across chains.
  const toolFile = scriptedGguf({
    kind: "tool_call",
    toolName: "shell",
    params: {},
    answer: "shell",
  });
  assertEquals(follow(toolFile, "<0x0A>").join(""), "shell<|im_end|>");
});

Deno.test("the tokenizer metadata: sentencepiece, bytes, ChatML, user-defined pieces", () => {
  const read = readGgufHeader(encodeGguf(scriptedGguf({ kind: "reply", text: "Hi there" })));
  const get = (key: string) => read.metadata.get(key)?.value;
  const tokens = get("tokenizer.ggml.tokens");
  const types = get("tokenizer.ggml.token_type");
  assert(Array.isArray(tokens) && Array.isArray(types));
  const typeOf = (text: string) => types[tokens.indexOf(text)];
  assertEquals(get("tokenizer.ggml.model"), "llama");
  assertEquals(tokens.slice(0, 4), ["<unk>", "<s>", "</s>", "<0x00>"]);
  assertEquals([typeOf("<unk>"), typeOf("<|im_start|>"), typeOf("<0x0A>"), typeOf("a")], [
    2,
    3,
    6,
    1,
  ]);
  assertEquals([typeOf("\u2581"), typeOf("assistant\n"), typeOf("Hi"), typeOf(" there")], [
    1,
    4,
    4,
    4,
  ]);
  assertEquals(get("tokenizer.ggml.eos_token_id"), tokens.indexOf("<|im_end|>"));
  assertEquals(get("tokenizer.ggml.add_space_prefix"), false);
  assert(String(get("tokenizer.chat_template")).includes("<|im_start|>assistant\\n"));
  assertEquals(get("llama.block_count"), 1);
  const embedding = get("llama.embedding_length");
  assert(typeof embedding === "number" && embedding > tokens.length && embedding % 64 === 0);
});

Deno.test("special tokens cannot be scripted", () => {
  for (
    const script of [
      { kind: "reply", text: "a <|im_end|> b" },
      { kind: "endless", pieces: [] },
    ] satisfies BigramScript[]
  ) {
    let threw = false;
    try {
      scriptedGguf(script);
    } catch {
      threw = true;
    }
    assert(threw, JSON.stringify(script));
  }
});

Deno.test("jsonDumps spaces JSON as node-llama-cpp's wrapper renders params", () => {
  assertEquals(jsonDumps({ a: 1, b: ["x", { c: null }] }), '{"a": 1, "b": ["x", {"c": null}]}');
  assertEquals(jsonDumps({ content: "line\n" }), '{"content": "line\\n"}');
});

Deno.test("a scripted model writes in well under a second", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const started = performance.now();
    await writeScriptedModel(`${dir}/m.gguf`, {
      kind: "tool_call",
      toolName: "fs_read",
      params: { file_path: "notes.txt" },
      answer: "I read it.",
    });
    const elapsed = performance.now() - started;
    assert(elapsed < 500, `${elapsed} ms`);
    const size = (await Deno.stat(`${dir}/m.gguf`)).size;
    assert(size < 8_000_000, `${size} bytes`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
