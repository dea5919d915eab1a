/**
 * A random-weights model of SmolLM2-135M's shape, for throughput benchmarks: the same tensor
 * sizes make llama.cpp do the same work per token as the real model, so tokens/s carry over, while
 * the file is generated (seeded, so every run gets the same model) instead of downloaded.
 *
 * F16 weights, tied embeddings (no output matrix, as SmolLM2), ~270 MB at 30 layers, streamed to
 * disk tensor by tensor. The vocabulary is sentencepiece-style (bytes, ASCII, lowercase n-grams)
 * rather than SmolLM2's BPE: only its size matters here. Control tokens have zero embeddings, so
 * the model never emits an end-of-turn token: benchmarks run to their token cap.
 */
import { type GgufFile, type GgufTensor, writeGguf } from "./gguf_writer.ts";

export interface RandomWeightsOptions {
  /** Transformer blocks; 30 is SmolLM2-135M, fewer make a quicker model of the same width. */
  readonly layers?: number;
  readonly seed?: number;
}

export const SMOLLM2_135M_SHAPE = {
  embedding: 576,
  layers: 30,
  heads: 9,
  kvHeads: 3,
  feedForward: 1536,
  vocabulary: 49152,
  contextLength: 8192,
} as const;

export async function writeRandomWeightsModel(
  path: string,
  options: RandomWeightsOptions = {},
): Promise<void> {
  await writeGguf(path, randomWeightsGguf(options));
}

const CONTROL_TOKENS = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"];
const CHATML_TEMPLATE = "{% for message in messages %}" +
  "{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}" +
  "{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
/** Elements per generated chunk (2 MB of F16). */
const CHUNK_ELEMENTS = 1 << 20;

export function randomWeightsGguf(options: RandomWeightsOptions = {}): GgufFile {
  const shape = SMOLLM2_135M_SHAPE;
  const layers = options.layers ?? shape.layers;
  const seed = options.seed ?? 1;
  const nEmbd = shape.embedding;
  const headDim = nEmbd / shape.heads;
  const nKv = headDim * shape.kvHeads;
  const vocab = vocabulary(shape.vocabulary);

  const tensors: GgufTensor[] = [];
  const random = (name: string, dims: number[], zeroRows = 0): GgufTensor => {
    const tensorSeed = seed * 1_000_003 + tensors.length;
    return {
      name,
      type: "f16",
      shape: dims,
      data: () => randomHalves(dims, tensorSeed, zeroRows),
    };
  };
  const ones = (name: string): GgufTensor => ({
    name,
    type: "f32",
    shape: [nEmbd],
    data: () => [new Float32Array(nEmbd).fill(1)],
  });

  tensors.push(random("token_embd.weight", [nEmbd, shape.vocabulary], CONTROL_TOKENS.length));
  tensors.push(ones("output_norm.weight"));
  for (let i = 0; i < layers; i++) {
    tensors.push(ones(`blk.${i}.attn_norm.weight`));
    tensors.push(random(`blk.${i}.attn_q.weight`, [nEmbd, nEmbd]));
    tensors.push(random(`blk.${i}.attn_k.weight`, [nEmbd, nKv]));
    tensors.push(random(`blk.${i}.attn_v.weight`, [nEmbd, nKv]));
    tensors.push(random(`blk.${i}.attn_output.weight`, [nEmbd, nEmbd]));
    tensors.push(ones(`blk.${i}.ffn_norm.weight`));
    tensors.push(random(`blk.${i}.ffn_gate.weight`, [nEmbd, shape.feedForward]));
    tensors.push(random(`blk.${i}.ffn_up.weight`, [nEmbd, shape.feedForward]));
    tensors.push(random(`blk.${i}.ffn_down.weight`, [shape.feedForward, nEmbd]));
  }

  return {
    metadata: {
      "general.architecture": { type: "string", value: "llama" },
      "general.name": { type: "string", value: `random-smollm2-135m-shape-${layers}l` },
      "general.file_type": { type: "u32", value: 1 }, // mostly F16
      "llama.vocab_size": { type: "u32", value: shape.vocabulary },
      "llama.context_length": { type: "u32", value: shape.contextLength },
      "llama.embedding_length": { type: "u32", value: nEmbd },
      "llama.block_count": { type: "u32", value: layers },
      "llama.feed_forward_length": { type: "u32", value: shape.feedForward },
      "llama.attention.head_count": { type: "u32", value: shape.heads },
      "llama.attention.head_count_kv": { type: "u32", value: shape.kvHeads },
      "llama.attention.layer_norm_rms_epsilon": { type: "f32", value: 1e-5 },
      "llama.rope.dimension_count": { type: "u32", value: headDim },
      "llama.rope.freq_base": { type: "f32", value: 100000 },
      "tokenizer.ggml.model": { type: "string", value: "llama" },
      "tokenizer.ggml.tokens": { type: "array", itemType: "string", value: vocab.texts },
      "tokenizer.ggml.scores": { type: "array", itemType: "f32", value: vocab.scores },
      "tokenizer.ggml.token_type": { type: "array", itemType: "i32", value: vocab.types },
      "tokenizer.ggml.bos_token_id": { type: "u32", value: 1 },
      "tokenizer.ggml.eos_token_id": { type: "u32", value: 4 },
      "tokenizer.ggml.unknown_token_id": { type: "u32", value: 0 },
      "tokenizer.ggml.add_bos_token": { type: "bool", value: true },
      "tokenizer.ggml.add_space_prefix": { type: "bool", value: false },
      "tokenizer.chat_template": { type: "string", value: CHATML_TEMPLATE },
    },
    tensors,
  };
}

/**
 * Random F16 weights of magnitude ~0.002–0.03 and random sign, made directly as half bits (a
 * float-to-half conversion per element would dominate the write time). The first `zeroRows` rows
 * are zero.
 */
function* randomHalves(dims: number[], seed: number, zeroRows: number): Generator<Uint16Array> {
  const total = dims.reduce((a, b) => a * b, 1);
  const zeros = zeroRows * (dims[0] ?? 0);
  let state = (seed ^ 0x9e3779b9) >>> 0 || 1;
  for (let start = 0; start < total; start += CHUNK_ELEMENTS) {
    const chunk = new Uint16Array(Math.min(CHUNK_ELEMENTS, total - start));
    const from = Math.max(0, Math.min(chunk.length, zeros - start));
    for (let i = from; i < chunk.length; i += 2) {
      // xorshift32: 32 random bits, 16 per element.
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      chunk[i] = half(state & 0xffff);
      if (i + 1 < chunk.length) chunk[i + 1] = half(state >>> 16);
    }
    yield chunk;
  }
}

/** Sign bit and 10 mantissa bits from `bits`; exponent 6–9 (2^-9 to 2^-6) from two more. */
function half(bits: number): number {
  return (bits & 0x8000) | ((6 + ((bits >>> 10) & 3)) << 10) | (bits & 0x3ff);
}

interface RandomVocabulary {
  readonly texts: string[];
  readonly scores: Float32Array;
  readonly types: Int32Array;
}

/**
 * Control tokens, 256 byte tokens, printable ASCII, then lowercase n-grams ("ab", "abc", ...,
 * also with a leading "▁" word start) until `size`. Longer pieces score higher, so the
 * sentencepiece merges read words in chunks of a few letters, as a real vocabulary does.
 */
function vocabulary(size: number): RandomVocabulary {
  const texts: string[] = [];
  const types: number[] = [];
  const add = (text: string, type: number) => {
    if (texts.length < size) {
      texts.push(text);
      types.push(type);
    }
  };
  for (const token of CONTROL_TOKENS) add(token, token === "<unk>" ? 2 : 3);
  for (let byte = 0; byte < 256; byte++) {
    add(`<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`, 6);
  }
  for (let code = 0x20; code < 0x7f; code++) {
    add(code === 0x20 ? "\u2581" : String.fromCharCode(code), 1);
  }
  const letters = "abcdefghijklmnopqrstuvwxyz";
  let grams = [...letters];
  for (const letter of letters) add(`\u2581${letter}`, 1);
  while (texts.length < size) {
    grams = grams.flatMap((gram) => [...letters].map((letter) => gram + letter));
    for (const gram of grams) add(gram, 1);
    for (const gram of grams) add(`\u2581${gram}`, 1);
  }
  const scores = new Float32Array(texts.map((text) => text.length));
  return { texts, scores, types: Int32Array.from(types) };
}
