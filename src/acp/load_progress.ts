/**
 * The model's download and load progress, shown in the editor while a prompt waits for it: the
 * editor hides stderr, and a first download takes minutes. It is a `plan` update with one entry
 * ("Loading model… 40 %"), which clients replace in place, and an empty plan when the wait ends
 * (loaded, failed or cancelled), so nothing of it stays in view.
 *
 * These updates are sent, never recorded: they are not the model's words, the model never reads
 * them, and a `session/load` does not replay them. Each carries `_meta["llama-agent/model-load"]`
 * so that a client can tell them from a plan of the model's.
 *
 * ACP has no capability that says a client shows plans, and some do not (CodeCompanion), so a
 * download, the wait that takes minutes, is also said in words at coarse steps (where it starts,
 * then each quarter: `DOWNLOAD_STEP_PERCENT`) through `say`, which the session sends as a notice
 * (client_features.ts). A load from disk takes seconds and is shown by the plan alone.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { LoadProgress, ModelProvider } from "./model_provider.ts";

export const MODEL_LOAD_META_KEY = "llama-agent/model-load";

/** The shortest time between two updates: "at most a few a second". */
export const LOAD_PROGRESS_INTERVAL_MS = 250;

/** What the throttle needs of time, passed in so that tests can step it. */
export interface ProgressClock {
  now(): number;
  /** Runs `fn` after `ms`; returns the way to cancel it. */
  later(fn: () => void, ms: number): () => void;
}

const realClock: ProgressClock = {
  now: () => performance.now(),
  later(fn, ms) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

export interface LoadProgressOptions {
  readonly clock?: ProgressClock;
  /** Where the download's coarse steps are said in words (none when absent). */
  readonly say?: (text: string) => void;
}

/** The download's progress is said in words at each multiple of this percentage. */
export const DOWNLOAD_STEP_PERCENT = 25;

/** The entry's text: `Downloading model… 40 %`, or `Loading model…` before any report. */
export function loadProgressText(progress: LoadProgress | undefined): string {
  if (progress === undefined) return "Loading model…";
  const label = progress.stage === "download" ? "Downloading model…" : "Loading model…";
  return `${label} ${percentOf(progress)} %`;
}

/** The update that shows `progress`. */
function loadProgressUpdate(progress: LoadProgress | undefined): SessionUpdate {
  return {
    sessionUpdate: "plan",
    entries: [{ content: loadProgressText(progress), priority: "high", status: "in_progress" }],
    _meta: {
      [MODEL_LOAD_META_KEY]: {
        stage: progress?.stage ?? "load",
        percent: progress === undefined ? null : percentOf(progress),
      },
    },
  };
}

/** The update that takes the progress away: the wait is over. */
function loadEndedUpdate(): SessionUpdate {
  return {
    sessionUpdate: "plan",
    entries: [],
    _meta: { [MODEL_LOAD_META_KEY]: { stage: "ended" } },
  };
}

/**
 * Shows the load's progress through `show` until the load ends or `signal` aborts (the prompt
 * was cancelled), then takes it away. Does nothing when the model has loaded (or failed) already.
 */
export function showModelLoadProgress(
  models: Pick<ModelProvider, "followLoad" | "get">,
  show: (update: SessionUpdate) => void,
  signal?: AbortSignal,
  options: LoadProgressOptions = {},
): void {
  if (signal?.aborted) return;
  const throttle = new LatestThrottle(show, options.clock ?? realClock);
  const say = options.say;
  const steps = say === undefined ? undefined : new DownloadSteps(say);
  const unfollow = models.followLoad((progress) => {
    throttle.offer(progress);
    steps?.offer(progress);
  });
  if (unfollow === undefined) return;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    unfollow();
    signal?.removeEventListener("abort", stop);
    throttle.end();
  };
  signal?.addEventListener("abort", stop, { once: true });
  models.get().then(stop, stop);
}

/**
 * Sends the latest progress at most once per interval. A new stage and a stage's 100 % go at
 * once (they are few and say the most); what is held back goes when the interval is over,
 * unless something newer replaced it. The same text twice is sent once.
 */
class LatestThrottle {
  #lastSentAt = Number.NEGATIVE_INFINITY;
  #lastText: string | undefined;
  #lastStage: string | undefined;
  #held: LoadProgress | undefined;
  #cancelTimer: (() => void) | undefined;
  #ended = false;

  constructor(
    private readonly show: (update: SessionUpdate) => void,
    private readonly clock: ProgressClock,
  ) {}

  offer(progress: LoadProgress | undefined): void {
    if (this.#ended || loadProgressText(progress) === this.#lastText) return;
    const urgent = progress !== undefined &&
      (progress.stage !== this.#lastStage || progress.fraction >= 1);
    const wait = this.#lastSentAt + LOAD_PROGRESS_INTERVAL_MS - this.clock.now();
    if (urgent || wait <= 0) return this.#send(progress);
    this.#held = progress;
    this.#cancelTimer ??= this.clock.later(() => {
      this.#cancelTimer = undefined;
      const held = this.#held;
      this.#held = undefined;
      if (!this.#ended && loadProgressText(held) !== this.#lastText) this.#send(held);
    }, wait);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.show(loadEndedUpdate());
  }

  #send(progress: LoadProgress | undefined): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#held = undefined;
    this.#lastSentAt = this.clock.now();
    this.#lastText = loadProgressText(progress);
    this.#lastStage = progress?.stage;
    this.show(loadProgressUpdate(progress));
  }
}

/**
 * Says the download's progress at its first report (wherever it stands: a second prompt may
 * join a download half done) and then each time it passes a multiple of DOWNLOAD_STEP_PERCENT,
 * in the words of the plan's entry.
 */
class DownloadSteps {
  /** The last step said; undefined before the first. */
  #lastStep: number | undefined;

  constructor(private readonly say: (text: string) => void) {}

  offer(progress: LoadProgress | undefined): void {
    if (progress?.stage !== "download") return;
    const percent = percentOf(progress);
    const step = Math.floor(percent / DOWNLOAD_STEP_PERCENT);
    if (this.#lastStep !== undefined && step <= this.#lastStep) return;
    this.#lastStep = step;
    this.say(loadProgressText(progress));
  }
}

function percentOf(progress: LoadProgress): number {
  return Math.floor(progress.fraction * 100);
}
