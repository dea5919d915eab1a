/**
 * The process's one model, loaded once. Loading starts in the background when the agent starts
 * (so `initialize` is answered at once and the first prompt waits less), and a failure is kept
 * and reported to every prompt that needs the model, with the message that says what to do.
 *
 * While it loads, the loader's progress is kept and passed on to whoever follows it (a prompt
 * waiting for the model shows it to the editor): the latest at once, then each report.
 */
import type { Model } from "../model/model.ts";

export type LoadStage = "download" | "load";

/** How far the load is: `fraction` of `stage`, 0 to 1. */
export interface LoadProgress {
  readonly stage: LoadStage;
  readonly fraction: number;
}

/** Reports the load's progress; called by the loader as often as it likes. */
export type LoadProgressReport = (stage: LoadStage, fraction: number) => void;

export type ModelLoader = (
  signal: AbortSignal,
  reportProgress: LoadProgressReport,
) => Promise<Model>;

/**
 * Sees the load's progress: `undefined` before the loader reported any, then each report.
 */
export type LoadProgressListener = (progress: LoadProgress | undefined) => void;

export interface ModelProvider {
  /** The loaded model; rejects with the load failure. */
  get(): Promise<Model>;
  /** Starts loading now if it has not started. */
  warmUp(): void;
  /**
   * Follows the load until it ends (loaded or failed): `listener` gets the progress so far at
   * once, then every report. Returns the way to stop following, or undefined when the load has
   * ended already (there is nothing to follow).
   */
  followLoad(listener: LoadProgressListener): (() => void) | undefined;
  dispose(): Promise<void>;
}

export function createModelProvider(load: ModelLoader): ModelProvider {
  let loading: Promise<Model> | undefined;
  let loaded: Model | undefined;
  let ended = false;
  let latest: LoadProgress | undefined;
  const listeners = new Set<LoadProgressListener>();
  const abandon = new AbortController();
  const report: LoadProgressReport = (stage, fraction) => {
    if (ended) return;
    latest = { stage, fraction: Math.min(1, Math.max(0, fraction)) };
    for (const listener of listeners) listener(latest);
  };
  const end = () => {
    ended = true;
    listeners.clear();
  };
  const start = () => {
    if (!loading) {
      loading = load(abandon.signal, report);
      // A background load that fails must not be an unhandled rejection: get() reports it.
      loading.then((model) => {
        loaded = model;
        end();
      }, end);
    }
    return loading;
  };
  return {
    get: start,
    warmUp: () => void start(),
    followLoad(listener) {
      if (ended) return undefined;
      listeners.add(listener);
      listener(latest);
      return () => void listeners.delete(listener);
    },
    async dispose() {
      abandon.abort();
      end();
      if (loaded) return await loaded.dispose();
      // A download or load still running is abandoned, not awaited: exit must not wait on it.
      loading?.then((model) => model.dispose(), () => {});
    },
  };
}
