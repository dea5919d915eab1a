/**
 * A new session's first turn without the fixed prompt: the system prompt's shared part and the
 * tool definitions (~900 tokens, 15–60 s on a busy CPU) are evaluated once, their state kept in
 * the user's cache (prefix_state_cache.ts), and each new session starts from it, so its first
 * turn evaluates only what is its own: its project, its instructions, the user's words.
 *
 * What is shared is the start of the prompt that does not depend on the session: the tokens the
 * prompt has in common with the shared system text rendered alone with the same tools. Any chat
 * wrapper renders both the same way, so whatever it does with the tools, the prefix is exactly
 * what every such session's prompt starts with. For it to hold the tools, they must come before
 * the project's part: node-llama-cpp's wrappers put them in a system message after all the
 * system messages, so `placeToolsAfterSharedPrompt` puts that message right after the first one
 * (the shared part; llama_history.ts splits the system prompt there). A wrapper that renders the
 * tools itself (a Jinja template with native tools) keeps its own order, and shares less.
 *
 * A state is only ever loaded into the model it was made with: its key names the model file
 * (real path, size, modification time), node-llama-cpp and llama.cpp, the device, the context's
 * size and cache types, and the prefix's tokens, whose hash covers the profile, the tool set,
 * the prompt's words and the chat template. After a load the sequence must hold exactly the
 * prefix's tokens, else the state is dropped and evaluated again.
 */
import type { ChatWrapper, LlamaContextSequence, Token } from "node-llama-cpp";
import { errorMessage } from "../error.ts";
import {
  type PrefixOutcome,
  type PrefixStateCache,
  type PrefixStateKey,
  sha256Hex,
} from "./prefix_state_cache.ts";

/** A prefix shorter than this is evaluated about as fast as its state is read back. */
export const MIN_PREFIX_TOKENS = 64;

/** Tokens evaluated at once while a prefix is built: a cancel is seen between two of these. */
const BUILD_STEP_TOKENS = 256;

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
    return [...place([first], functions, options), ...rest];
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
 * Puts `prefix` into the empty `sequence`: its state from the cache, or evaluated (and kept for
 * the next session). "not_built" when `signal` stopped it part way.
 */
export async function startFromPrefix(
  sequence: LlamaContextSequence,
  prefix: readonly Token[],
  states: PrefixStates,
  signal: AbortSignal,
): Promise<PrefixOutcome> {
  const context = sequence.context;
  const key: PrefixStateKey = {
    ...states.key,
    contextSize: context.contextSize,
    flashAttention: String(context.flashAttention),
    kvCacheKeyType: String(context.kvCacheKeyType),
    kvCacheValueType: String(context.kvCacheValueType),
    prefixTokens: prefix.length,
    prefixSha256: await sha256Hex(new Uint8Array(Uint32Array.from(prefix).buffer)),
  };
  return await states.cache.restoreOrBuild(key, {
    async load(path) {
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
    },
    async build() {
      for (let at = 0; at < prefix.length; at += BUILD_STEP_TOKENS) {
        if (signal.aborted) return false;
        await sequence.evaluateWithoutGeneratingNewTokens(
          prefix.slice(at, at + BUILD_STEP_TOKENS),
        );
      }
      return !signal.aborted;
    },
    async save(path) {
      await sequence.saveStateToFile(path);
    },
  });
}
