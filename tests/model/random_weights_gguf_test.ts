import { ggufChunks } from "../../src/model/scripted/gguf_writer.ts";
import {
  randomWeightsGguf,
  SMOLLM2_135M_SHAPE,
} from "../../src/model/scripted/random_weights_gguf.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { readGgufHeader } from "./gguf_reader.ts";

Deno.test("the random model has SmolLM2-135M's shape and size", () => {
  const file = randomWeightsGguf();
  // The header is the first chunk: no weights are generated to read it.
  const header = readGgufHeader(ggufChunks(file).next().value ?? new Uint8Array());
  const get = (key: string) => header.metadata.get(key)?.value;
  assertEquals(
    [get("llama.embedding_length"), get("llama.block_count"), get("llama.attention.head_count")],
    [576, 30, 9],
  );
  assertEquals([get("llama.attention.head_count_kv"), get("llama.feed_forward_length")], [3, 1536]);
  const tokens = get("tokenizer.ggml.tokens");
  assert(Array.isArray(tokens));
  assertEquals(tokens.length, SMOLLM2_135M_SHAPE.vocabulary);
  assertEquals(new Set(tokens).size, tokens.length);
  const shapes = new Map(header.tensors.map((t) => [t.name, t.shape]));
  assertEquals(shapes.get("token_embd.weight"), [576, 49152]);
  assertEquals(shapes.get("blk.29.attn_k.weight"), [576, 192]);
  assertEquals(shapes.get("blk.29.ffn_down.weight"), [1536, 576]);
  assertEquals(shapes.has("output.weight"), false); // tied to the embeddings, as SmolLM2
  const bytes = file.tensors.reduce(
    (sum, t) => sum + t.shape.reduce((a, b) => a * b, 1) * (t.type === "f16" ? 2 : 4),
    0,
  );
  assert(bytes > 265e6 && bytes < 275e6, `${bytes} bytes`);
});

Deno.test("weights are seeded, small, and zero for control tokens", () => {
  const first = (seed: number) => {
    const embd = randomWeightsGguf({ layers: 1, seed }).tensors[0];
    const chunk = embd?.data()[Symbol.iterator]().next().value;
    assert(chunk instanceof Uint16Array);
    return chunk;
  };
  const a = first(1);
  assertEquals(a.slice(0, 576 * 5).every((bits) => bits === 0), true); // five control tokens
  assertEquals(a.slice(4000, 4010), first(1).slice(4000, 4010));
  assert(a.slice(4000, 4010).some((bits, i) => bits !== first(2)[4000 + i]));
  // Exponent 6..9: magnitudes in [2^-9, 2^-5).
  for (const bits of a.slice(576 * 5, 576 * 5 + 1000)) {
    const exponent = (bits >> 10) & 0x1f;
    assert(exponent >= 6 && exponent <= 9, `exponent ${exponent}`);
  }
});
