/**
 * Scripted ("bigram") test models: real GGUF files that llama.cpp runs, whose output is fixed.
 *
 * A one-layer llama whose attention and FFN weights are zero is a bigram model: the hidden state
 * is the embedding of the current token, so with one-hot embeddings the output matrix alone
 * decides the next token from the previous one. Row `next` of the output matrix gets a large
 * weight at column `prev`, and a reply becomes a chain of tokens. Every scripted piece of text is
 * its own user-defined token (llama.cpp matches those before anything else when tokenizing), so
 * the tokens a reply was generated as are the tokens it is re-read as, and each chain token has
 * exactly one successor.
 *
 * Different contexts start different chains because their last tokens differ: the generation
 * prefix `<|im_start|>assistant\n` ends with the user-defined token `assistant\n`, while a
 * function result in node-llama-cpp's ChatML wrapper ends with a plain newline (`<0x0A>`). So
 * "assistant\n" starts the call chain and "\n" starts the answer chain; see `chainsOf`.
 *
 * Under a JSON-schema grammar (a hook verdict) the chain is followed as long as the grammar allows
 * its tokens: a reply that is the JSON text passes as written, and after its closing brace, where
 * the grammar wants four newlines before the end, the closing bias on "\n" supplies them. A weak
 * link (a second choice, below the end of the turn) lets a chain go on only where a grammar forbids
 * ending there: that is how a tool-call model answers a verdict after its prose answer.
 */
import { type GgufFile, type GgufTensor, writeGguf } from "./gguf_writer.ts";

export type BigramScript =
  /** Replies `text`, then ends the turn. */
  | { readonly kind: "reply"; readonly text: string }
  /**
   * Calls `toolName` with `params` through node-llama-cpp's function-call syntax; once the call's
   * result is in the context, replies `answer` and ends. `params` keys must come in the order of
   * the tool schema's (required) properties, since the call grammar fixes that order.
   */
  | {
    readonly kind: "tool_call";
    readonly toolName: string;
    readonly params: Readonly<Record<string, unknown>>;
    readonly answer: string;
    /**
     * Where a grammar forbids ending after `answer` (a hook verdict asked for once the answer is
     * in the context), the model goes on with this text, and ends.
     */
    readonly verdict?: string;
  }
  /** Repeats `pieces` (default " tick", " tock") forever: for cancellation and token caps. */
  | { readonly kind: "endless"; readonly pieces?: readonly string[] };

export interface ScriptedModelOptions {
  /**
   * Words the tokenizer reads as one token each, wherever they occur (user-defined tokens that
   * start no chain). Without them every character outside the script is a token of its own, so
   * the agent's fixed prompt takes about three times what a real model's tokenizer makes of it;
   * with its words here, it takes about as much. Words of fewer than two characters, and those
   * already in the script, are left out.
   */
  readonly words?: readonly string[];
}

/** Writes the model for `script` to `path`. */
export async function writeScriptedModel(
  path: string,
  script: BigramScript,
  options: ScriptedModelOptions = {},
): Promise<void> {
  await writeGguf(path, scriptedGguf(script, options));
}

/** node-llama-cpp's ChatML function-call syntax (`ChatWrapper.defaultSettings.functions`). */
const CALL_PREFIX = "||call: ";
const PARAMS_PREFIX = "(";
const CALL_SUFFIX = ")";
/** The last token of the generation prefix `<|im_start|>assistant\n`. */
const ASSISTANT_PREFIX = "assistant\n";
const IM_START = "<|im_start|>";
const IM_END = "<|im_end|>";

/** The standard ChatML template; node-llama-cpp recognises it and picks its ChatML wrapper. */
const CHATML_TEMPLATE = "{% for message in messages %}" +
  "{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}" +
  "{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/**
 * Logits: a chain step, a weak link (below a chain step plus the end bias, so taken only where a
 * grammar masks the chain's end), and the bias that ends any other turn or closes a constrained
 * output.
 */
const CHAIN_LOGIT = 50;
const WEAK_LINK_LOGIT = 30;
const END_BIAS = 10;
const CLOSING_BIASES: Readonly<Record<string, number>> = { "\n": 6, "}": 5, '"': 4, "]": 3 };

const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, byte: 6 } as const;

/** The GGUF of the model for `script` (pure: data in, data out). */
export function scriptedGguf(script: BigramScript, options: ScriptedModelOptions = {}): GgufFile {
  const vocab = new ScriptVocabulary();
  const { chains, weakLinks } = chainsOf(script, vocab);
  // After the script's pieces, so that none of them is taken for a word: a word only makes
  // text shorter in tokens, and no chain starts or goes on from it.
  for (const word of options.words ?? []) vocab.word(word);
  const nVocab = vocab.texts.length;
  const biasDim = nVocab;
  // One dimension per token plus the constant bias dimension, rounded to whole 64-wide heads.
  const nEmbd = Math.ceil((nVocab + 1) / 64) * 64;
  const nHead = nEmbd / 64;
  const nFf = 64;

  const embeddings = new Float32Array(nEmbd * nVocab);
  for (let t = 0; t < nVocab; t++) {
    embeddings[t * nEmbd + t] = 1;
    embeddings[t * nEmbd + biasDim] = 1;
  }
  // The output norm scales the two-hot state to an RMS of 1: each component becomes sqrt(n/2).
  const scale = 1 / Math.sqrt(nEmbd / 2);
  const output = new Float32Array(nEmbd * nVocab);
  const endId = vocab.id(IM_END);
  output[endId * nEmbd + biasDim] = END_BIAS * scale;
  for (const [text, bias] of Object.entries(CLOSING_BIASES)) {
    output[vocab.id(text) * nEmbd + biasDim] = bias * scale;
  }
  for (const chain of chains) {
    for (let i = 0; i + 1 < chain.length; i++) {
      const prev = vocab.id(chain[i] ?? "");
      const next = vocab.id(chain[i + 1] ?? "");
      output[next * nEmbd + prev] = CHAIN_LOGIT * scale;
    }
  }
  for (const [prevText, nextText] of weakLinks) {
    output[vocab.id(nextText) * nEmbd + vocab.id(prevText)] = WEAK_LINK_LOGIT * scale;
  }

  const ones = (n: number) => new Float32Array(n).fill(1);
  const f32 = (name: string, shape: number[], data: Float32Array): GgufTensor => ({
    name,
    type: "f32",
    shape,
    data: () => [data],
  });
  // Zero weights in F16: the attention and FFN add nothing, which is what makes it a bigram.
  const zeros = (name: string, shape: number[]): GgufTensor => ({
    name,
    type: "f16",
    shape,
    data: () => [new Uint16Array(shape.reduce((a, b) => a * b, 1))],
  });

  return {
    metadata: {
      "general.architecture": { type: "string", value: "llama" },
      "general.name": { type: "string", value: `scripted-${script.kind}` },
      "llama.vocab_size": { type: "u32", value: nVocab },
      "llama.context_length": { type: "u32", value: 8192 },
      "llama.embedding_length": { type: "u32", value: nEmbd },
      "llama.block_count": { type: "u32", value: 1 },
      "llama.feed_forward_length": { type: "u32", value: nFf },
      "llama.attention.head_count": { type: "u32", value: nHead },
      "llama.attention.head_count_kv": { type: "u32", value: nHead },
      "llama.attention.layer_norm_rms_epsilon": { type: "f32", value: 1e-5 },
      "llama.rope.dimension_count": { type: "u32", value: 64 },
      "tokenizer.ggml.model": { type: "string", value: "llama" },
      "tokenizer.ggml.tokens": { type: "array", itemType: "string", value: vocab.texts },
      "tokenizer.ggml.scores": {
        type: "array",
        itemType: "f32",
        value: new Float32Array(nVocab),
      },
      "tokenizer.ggml.token_type": { type: "array", itemType: "i32", value: vocab.types },
      "tokenizer.ggml.bos_token_id": { type: "u32", value: vocab.id("<s>") },
      "tokenizer.ggml.eos_token_id": { type: "u32", value: endId },
      "tokenizer.ggml.unknown_token_id": { type: "u32", value: vocab.id("<unk>") },
      "tokenizer.ggml.add_bos_token": { type: "bool", value: true },
      "tokenizer.ggml.add_eos_token": { type: "bool", value: false },
      // Text is read exactly as written: no leading space is added before the first word.
      "tokenizer.ggml.add_space_prefix": { type: "bool", value: false },
      "tokenizer.chat_template": { type: "string", value: CHATML_TEMPLATE },
    },
    tensors: [
      f32("token_embd.weight", [nEmbd, nVocab], embeddings),
      f32("output_norm.weight", [nEmbd], ones(nEmbd)),
      f32("output.weight", [nEmbd, nVocab], output),
      f32("blk.0.attn_norm.weight", [nEmbd], ones(nEmbd)),
      zeros("blk.0.attn_q.weight", [nEmbd, nEmbd]),
      zeros("blk.0.attn_k.weight", [nEmbd, nEmbd]),
      zeros("blk.0.attn_v.weight", [nEmbd, nEmbd]),
      zeros("blk.0.attn_output.weight", [nEmbd, nEmbd]),
      f32("blk.0.ffn_norm.weight", [nEmbd], ones(nEmbd)),
      zeros("blk.0.ffn_gate.weight", [nEmbd, nFf]),
      zeros("blk.0.ffn_up.weight", [nEmbd, nFf]),
      zeros("blk.0.ffn_down.weight", [nFf, nEmbd]),
    ],
  };
}

interface ScriptChains {
  /** Token chains, each starting at the token that triggers it. */
  readonly chains: readonly (readonly string[])[];
  /** Second choices `[prev, next]`: taken only when a grammar masks the chain's successor. */
  readonly weakLinks: readonly (readonly [string, string])[];
}

/** The token chains of `script`. */
function chainsOf(script: BigramScript, vocab: ScriptVocabulary): ScriptChains {
  const start = vocab.piece(ASSISTANT_PREFIX);
  switch (script.kind) {
    case "reply":
      return { chains: [[start, ...vocab.words(script.text), IM_END]], weakLinks: [] };
    case "tool_call": {
      // The call: after "||call: " node-llama-cpp constrains the name (then forces "\n"), puts
      // "name(" in the context, and constrains the params (then forces four "\n"). Without
      // functions the same chain reads as the call's text and ends.
      const call = [
        start,
        vocab.piece(CALL_PREFIX),
        vocab.piece(script.toolName),
        PARAMS_PREFIX,
        vocab.piece(jsonDumps(script.params)),
        CALL_SUFFIX,
        IM_END,
      ];
      // The answer: a function result ends with a plain "\n" in the ChatML wrapper.
      const answer = ["\n", ...vocab.words(script.answer)];
      const chains = [call, [...answer, IM_END]];
      if (script.verdict === undefined) return { chains, weakLinks: [] };
      const verdict = vocab.words(script.verdict);
      const [first] = verdict;
      const last = answer.at(-1);
      if (first === undefined || last === undefined) {
        throw new Error("A tool-call script's verdict needs a non-empty answer and verdict");
      }
      return { chains: [...chains, [...verdict, IM_END]], weakLinks: [[last, first]] };
    }
    case "endless": {
      const pieces = (script.pieces ?? [" tick", " tock"]).map((text) => vocab.piece(text));
      const first = pieces[0];
      if (first === undefined) throw new Error("An endless script needs at least one piece");
      return { chains: [[start, ...pieces, first], ["\n", ...pieces]], weakLinks: [] };
    }
    default:
      return script satisfies never;
  }
}

/**
 * The vocabulary: `<unk>`, `<s>`, `</s>`, the 256 byte tokens (byte fallback for any text),
 * `<|im_start|>`, `<|im_end|>`, printable ASCII, then one user-defined token per scripted piece.
 * Chain keys are token texts, with a one-character control text standing for its byte token.
 */
class ScriptVocabulary {
  readonly texts: string[] = [];
  readonly types: number[] = [];
  readonly #ids = new Map<string, number>();

  constructor() {
    this.#add("<unk>", TOKEN_TYPE.unknown);
    this.#add("<s>", TOKEN_TYPE.control);
    this.#add("</s>", TOKEN_TYPE.control);
    for (let byte = 0; byte < 256; byte++) this.#add(byteToken(byte), TOKEN_TYPE.byte);
    this.#add(IM_START, TOKEN_TYPE.control);
    this.#add(IM_END, TOKEN_TYPE.control);
    // Sentencepiece stores the space as "▁".
    for (let code = 0x20; code < 0x7f; code++) {
      this.#add(code === 0x20 ? "\u2581" : String.fromCharCode(code), TOKEN_TYPE.normal);
    }
  }

  /** Registers `text` as a user-defined token (once) and returns its chain key. */
  piece(text: string): string {
    for (const special of [IM_START, IM_END]) {
      if (text.includes(special)) {
        throw new Error(`Cannot script the text ${JSON.stringify(text)}: it contains "${special}"`);
      }
    }
    if (text.length < 2) throw new Error(`Cannot script ${JSON.stringify(text)}: too short`);
    if (!this.#ids.has(text)) this.#add(text, TOKEN_TYPE.userDefined);
    return text;
  }

  /** Registers `text` as a user-defined token that is in no chain, unless it is one already. */
  word(text: string): void {
    if (text.length < 2 || this.#ids.has(text)) return;
    if ([IM_START, IM_END].some((special) => text.includes(special))) return;
    this.#add(text, TOKEN_TYPE.userDefined);
  }

  /**
   * `text` as a chain of new word pieces (each word with its leading whitespace). A chain token
   * has one successor, so a piece must not be in the vocabulary yet, nor be one character (those
   * are plain tokens shared by every text): such words merge into their neighbours.
   */
  words(text: string): string[] {
    const words = text.match(/\s*\S+\s*$|\s*\S+/g) ?? (text === "" ? [] : [text]);
    const pieces: string[] = [];
    const isFree = (candidate: string) =>
      candidate.length > 1 && !this.#ids.has(candidate) && !pieces.includes(candidate);
    let pending = "";
    for (const word of words) {
      pending += word;
      if (isFree(pending)) {
        pieces.push(pending);
        pending = "";
      }
    }
    while (pending !== "") {
      const last = pieces.pop();
      if (last === undefined) return this.#splitInTwo(text).map((piece) => this.piece(piece));
      pending = last + pending;
      if (isFree(pending)) {
        pieces.push(pending);
        pending = "";
      }
    }
    return pieces.map((piece) => this.piece(piece));
  }

  /**
   * A whole text that is already a piece (an answer equal to the tool name), as two new pieces.
   * It then reads back as the one existing token, which costs only prefix-cache reuse.
   */
  #splitInTwo(text: string): string[] {
    for (let at = 2; at <= text.length - 2; at++) {
      const parts = [text.slice(0, at), text.slice(at)];
      if (parts[0] !== parts[1] && parts.every((part) => !this.#ids.has(part))) return parts;
    }
    throw new Error(`Cannot script the text ${JSON.stringify(text)}: it repeats a piece`);
  }

  id(key: string): number {
    const id = this.#ids.get(key) ??
      (key === " " ? this.#ids.get("\u2581") : undefined) ??
      (key.length === 1 && key.charCodeAt(0) < 0x20
        ? this.#ids.get(byteToken(key.charCodeAt(0)))
        : undefined);
    if (id === undefined) throw new Error(`No token for ${JSON.stringify(key)}`);
    return id;
  }

  #add(text: string, type: number): void {
    this.#ids.set(text, this.texts.length);
    this.texts.push(text);
    this.types.push(type);
  }
}

function byteToken(byte: number): string {
  return `<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`;
}

/**
 * node-llama-cpp's `jsonDumps` (Python `json.dumps` spacing): the text its ChatML wrapper writes
 * for call params, so the scripted call is the text the wrapper would render back.
 */
export function jsonDumps(value: unknown): string {
  return (JSON.stringify(value, null, 1) ?? "")
    .split("\n")
    .map((line) => {
      const trimmed = line.trim();
      return trimmed.endsWith(",") ? trimmed + " " : trimmed;
    })
    .join("");
}
