/**
 * The process's one model, loaded once. Loading starts in the background when the agent starts
 * (so `initialize` is answered at once and the first prompt waits less), and a failure is kept
 * and reported to every prompt that needs the model, with the message that says what to do.
 */
import type { Model } from "../model/model.ts";

export interface ModelProvider {
  /** The loaded model; rejects with the load failure. */
  get(): Promise<Model>;
  /** Starts loading now if it has not started. */
  warmUp(): void;
  dispose(): Promise<void>;
}

export function createModelProvider(load: (signal: AbortSignal) => Promise<Model>): ModelProvider {
  let loading: Promise<Model> | undefined;
  let loaded: Model | undefined;
  const abandon = new AbortController();
  const start = () => {
    if (!loading) {
      loading = load(abandon.signal);
      // A background load that fails must not be an unhandled rejection: get() reports it.
      loading.then((model) => (loaded = model), () => {});
    }
    return loading;
  };
  return {
    get: start,
    warmUp: () => void start(),
    async dispose() {
      abandon.abort();
      if (loaded) return await loaded.dispose();
      // A download or load still running is abandoned, not awaited: exit must not wait on it.
      loading?.then((model) => model.dispose(), () => {});
    },
  };
}
