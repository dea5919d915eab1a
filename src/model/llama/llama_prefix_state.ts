/**
 * A new session's first turn without the fixed prompt: the system prompt's shared part and the
 * tool definitions (~900 tokens, 15–60 s on a busy CPU) are evaluated once, their state kept in
 * the user's cache (prefix_state_cache.ts), and each new session starts from it; and so is the
 * project's part after it (where the session works, the project's instructions), so a new
 * session of a project seen before evaluates only what is its own: what SessionStart hooks said
 * and the user's words.
 *
 * What is shared is the start of the prompt that does not depend on the session: the tokens the
 * prompt has in common with the system prompt's start (its shared part; that and the project's)
 * rendered alone with the same tools. Any chat wrapper renders both the same way, so whatever it
 * does with the tools, such a prefix is exactly what every such session's prompt starts with.
 * For the shared prefix to hold the tools, they must come before the project's part:
 * node-llama-cpp's wrappers put them in a system message after all the system messages, so
 * `placeToolsAfterSharedPrompt` puts that message right after the first one (the shared part;
 * llama_history.ts splits the system prompt there). A wrapper that renders the tools itself (a
 * Jinja template with native tools) keeps its own order, and shares less across projects.
 *
 * A state is only ever loaded into the model it was made with: its key names the model file
 * (real path, size, modification time), node-llama-cpp and llama.cpp, the device, the context's
 * size and cache types, and the prefix's tokens, whose hash covers the profile, the tool set,
 * the prompt's words and the chat template. After a load the sequence must hold exactly the
 * prefix's tokens, else the state is dropped and evaluated again.
 */
import type { ChatHistoryItem, ChatWrapper, LlamaContextSequence, Token } from "node-llama-cpp";
import { errorMessage } from "../../error.ts";
import {
  type LoadCheck,
  type PrefixStateCache,
  type PrefixStateKey,
  sha256Hex,
} from "./prefix_state_cache.ts";

/** A prefix shorter than this is evaluated about as fast as its state is read back. */
export const MIN_PREFIX_TOKENS = 64;


export interface PrefixStates {
  readonly cache: PrefixStateCache;
  /** What identifies the model and the runtime (the context and the prefix are added). */
  readonly key: PrefixStateKey;
}

/**
 * Makes `wrapper` put the tool definitions right after the first system message instead of
 * after the last, so that a system prompt split in two (shared, then the session's own) has the
 * tools in its shared part. With one system message, nothing changes.
 */
export function placeToolsAfterSharedPrompt(wrapper: ChatWrapper): void {
  const place = wrapper.addAvailableFunctionsSystemMessageToHistory.bind(wrapper);
  wrapper.addAvailableFunctionsSystemMessageToHistory = (history, functions, options) => {
    const [first, ...rest] = history;
    if (first?.type !== "system") return place(history, functions, options);
    // Placed where the wrapper places them before a first user message; that one taken out.
    const end: ChatHistoryItem = { type: "user", text: "" };
    const placed = place([first, end], functions, options).filter((item) => item !== end);
    return [...placed, ...rest];
  };
}

/** The longest start `prompt` and `shared` have in common. */
export function commonPrefix(prompt: readonly Token[], shared: readonly Token[]): Token[] {
  let length = 0;
  while (length < prompt.length && length < shared.length && prompt[length] === shared[length]) {
    length++;
  }
  return prompt.slice(0, length);
}

/**
 * Puts the longest of `prefixes` (each the start of the next) into the empty `sequence`: the
 * longest one kept in the cache, then each longer one evaluated from there and kept for the next
 * session. A session of a project seen before starts after the project's part; the first of a
 * new project after the shared part. False when `signal` stopped it part way.
 */
export async function startFromPrefixes(
  sequence: LlamaContextSequence,
  prefixes: readonly (readonly Token[])[],
  states: PrefixStates,
  signal: AbortSignal,
): Promise<boolean> {
  const keyed = await Promise.all(
    prefixes.map(async (prefix) => ({ prefix, key: await keyOf(sequence, prefix, states) })),
  );
  for (const { prefix, key } of keyed.toReversed()) {
    if (await states.cache.restore(key, loadStep(sequence, prefix))) break;
  }
  for (const { prefix, key } of keyed) {
    // Held already: a longer prefix was loaded, or this one was.
    if (sequence.nextTokenIndex >= prefix.length) continue;
    const outcome = await states.cache.restoreOrBuild(key, {
      load: loadStep(sequence, prefix),
      build: () => evaluate(sequence, prefix.slice(sequence.nextTokenIndex), signal),
      async save(path) {
        await sequence.saveStateToFile(path);
      },
    });
    if (outcome === "not_built") return false;
  }
  return true;
}

/** What identifies the state of `prefix` in the context of `sequence`. */
async function keyOf(
  sequence: LlamaContextSequence,
  prefix: readonly Token[],
  states: PrefixStates,
): Promise<PrefixStateKey> {
  const context = sequence.context;
  return {
    ...states.key,
    contextSize: context.contextSize,
    flashAttention: String(context.flashAttention),
    kvCacheKeyType: String(context.kvCacheKeyType),
    kvCacheValueType: String(context.kvCacheValueType),
    prefixTokens: prefix.length,
    prefixSha256: await sha256Hex(new Uint8Array(Uint32Array.from(prefix).buffer)),
  };
}

/** Loads a state into `sequence`, which must then hold exactly `prefix`. */
function loadStep(
  sequence: LlamaContextSequence,
  prefix: readonly Token[],
): (path: string) => Promise<LoadCheck> {
  return async (path) => {
    try {
      await sequence.loadStateFromFile(path, { acceptRisk: true });
    } catch (error) {
      await sequence.clearHistory();
      return { ok: false, reason: `llama.cpp cannot load it: ${errorMessage(error)}` };
    }
    const held = sequence.contextTokens;
    if (held.length === prefix.length && held.every((token, i) => token === prefix[i])) {
      return { ok: true };
    }
    await sequence.clearHistory();
    return { ok: false, reason: "it holds other tokens than the prompt's" };
  };
}

/**
 * Evaluates `tokens` after what `sequence` holds, a batch at a time (as one call would) so that
 * a cancel is seen between two; false when `signal` stopped it.
 */
async function evaluate(
  sequence: LlamaContextSequence,
  tokens: readonly Token[],
  signal: AbortSignal,
): Promise<boolean> {
  const step = Math.max(1, sequence.context.batchSize);
  for (let at = 0; at < tokens.length; at += step) {
    if (signal.aborted) return false;
    await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(at, at + step));
  }
  return !signal.aborted;
}
