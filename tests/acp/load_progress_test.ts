/**
 * The load progress a waiting prompt shows (load_progress.ts) and the provider that passes it on
 * (model_provider.ts), with a loader the test reports through and a clock it steps.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { assertEquals } from "../helpers/assert.ts";
import {
  LOAD_PROGRESS_INTERVAL_MS,
  loadProgressText,
  type ProgressClock,
  showModelLoadProgress,
} from "../../src/acp/load_progress.ts";
import {
  createModelProvider,
  type LoadProgressReport,
  type ModelProvider,
} from "../../src/acp/model_provider.ts";
import type { Model } from "../../src/model/model.ts";
import { scriptedModel } from "../../src/model/scripted/scripted_model.ts";

/** A clock that moves only when told, running the timers that fall due. */
class SteppedClock implements ProgressClock {
  #now = 0;
  #timers: { at: number; fn: () => void }[] = [];

  now(): number {
    return this.#now;
  }

  later(fn: () => void, ms: number): () => void {
    const timer = { at: this.#now + ms, fn };
    this.#timers.push(timer);
    return () => (this.#timers = this.#timers.filter((t) => t !== timer));
  }

  advance(ms: number): void {
    this.#now += ms;
    const due = this.#timers.filter((t) => t.at <= this.#now);
    this.#timers = this.#timers.filter((t) => t.at > this.#now);
    for (const timer of due) timer.fn();
  }
}

interface Loading {
  readonly models: ModelProvider;
  report: LoadProgressReport;
  finish(model: Model): void;
  fail(error: Error): void;
}

/** A provider whose load the test reports through and ends. */
function manualLoad(): Loading {
  const done = Promise.withResolvers<Model>();
  const loading: Loading = {
    models: createModelProvider((_signal, report) => {
      loading.report = report;
      return done.promise;
    }),
    report: () => {
      throw new Error("the load has not started");
    },
    finish: (model) => done.resolve(model),
    fail: (error) => done.reject(error),
  };
  loading.models.warmUp();
  return loading;
}

/** What each update shows: its entries' texts, `[]` for the update that clears. */
function shownTexts(updates: readonly SessionUpdate[]): string[][] {
  return updates.map((update) =>
    update.sessionUpdate === "plan" ? update.entries.map((entry) => entry.content) : ["not a plan"]
  );
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A load that a prompt follows from its start, on a stepped clock, and what it was shown. */
function followedLoad(signal?: AbortSignal) {
  const loading = manualLoad();
  const clock = new SteppedClock();
  const shown: SessionUpdate[] = [];
  showModelLoadProgress(loading.models, (update) => shown.push(update), signal, { clock });
  return { loading, clock, shown };
}

Deno.test("progress texts say the stage and the whole percent", () => {
  assertEquals(loadProgressText(undefined), "Loading model…");
  assertEquals(loadProgressText({ stage: "download", fraction: 0.426 }), "Downloading model… 42 %");
  assertEquals(loadProgressText({ stage: "load", fraction: 1 }), "Loading model… 100 %");
});

Deno.test("reports within one interval are shown once, then the latest of them when it ends", () => {
  const { loading, clock, shown } = followedLoad();
  loading.report("download", 0.01);
  for (let percent = 2; percent <= 30; percent++) loading.report("download", percent / 100);
  assertEquals(shownTexts(shown), [["Loading model…"], ["Downloading model… 1 %"]]);
  clock.advance(LOAD_PROGRESS_INTERVAL_MS);
  assertEquals(shownTexts(shown).at(-1), ["Downloading model… 30 %"]);
  // The same percent again is nothing new.
  clock.advance(LOAD_PROGRESS_INTERVAL_MS);
  loading.report("download", 0.305);
  assertEquals(shown.length, 3);
});

Deno.test("a new stage and a stage's 100 % are shown at once, between two interval ticks", () => {
  const { loading, clock, shown } = followedLoad();
  loading.report("download", 0.5);
  loading.report("download", 1);
  loading.report("load", 0);
  loading.report("load", 0.5);
  loading.report("load", 1);
  assertEquals(shownTexts(shown), [
    ["Loading model…"],
    ["Downloading model… 50 %"],
    ["Downloading model… 100 %"],
    ["Loading model… 0 %"],
    ["Loading model… 100 %"],
  ]);
  clock.advance(LOAD_PROGRESS_INTERVAL_MS);
  assertEquals(shown.length, 5, "the 50 % held back is older than the 100 % shown");
});

Deno.test("a prompt that starts following mid-load is shown the progress so far at once", () => {
  const loading = manualLoad();
  loading.report("load", 0.64);
  const shown: SessionUpdate[] = [];
  showModelLoadProgress(loading.models, (update) => shown.push(update));
  assertEquals(shownTexts(shown), [["Loading model… 64 %"]]);
  loading.finish(scriptedModel({ turns: [] }));
});

Deno.test("when the model has loaded the progress is taken away, and what was held back is dropped", async () => {
  const { loading, clock, shown } = followedLoad();
  loading.report("load", 0.1);
  loading.report("load", 0.2);
  loading.finish(scriptedModel({ turns: [] }));
  await settled();
  clock.advance(LOAD_PROGRESS_INTERVAL_MS);
  assertEquals(shownTexts(shown), [["Loading model…"], ["Loading model… 10 %"], []]);
  // Later reports (a loader that goes on reporting) reach nobody.
  loading.report("load", 1);
  assertEquals(shown.length, 3);
});

Deno.test("a failed load takes the progress away; the failure is the prompt's to report", async () => {
  const { loading, shown } = followedLoad();
  loading.fail(new Error("no such file"));
  await settled();
  assertEquals(shownTexts(shown), [["Loading model…"], []]);
});

Deno.test("a cancelled prompt takes its progress away at once and is shown nothing more", () => {
  const cancel = new AbortController();
  const { loading, clock, shown } = followedLoad(cancel.signal);
  loading.report("load", 0.1);
  loading.report("load", 0.2);
  cancel.abort();
  assertEquals(shownTexts(shown), [["Loading model…"], ["Loading model… 10 %"], []]);
  clock.advance(LOAD_PROGRESS_INTERVAL_MS);
  loading.report("load", 1);
  assertEquals(shown.length, 3);
  loading.finish(scriptedModel({ turns: [] }));
});

Deno.test("a loaded model, or a prompt already cancelled, shows nothing", async () => {
  const loading = manualLoad();
  loading.finish(scriptedModel({ turns: [] }));
  await loading.models.get();
  const shown: SessionUpdate[] = [];
  showModelLoadProgress(loading.models, (update) => shown.push(update));
  const pending = manualLoad();
  showModelLoadProgress(pending.models, (update) => shown.push(update), AbortSignal.abort());
  assertEquals(shown, []);
  pending.finish(scriptedModel({ turns: [] }));
});

Deno.test("the provider passes every report to each follower until it stops following", () => {
  const loading = manualLoad();
  const first: unknown[] = [];
  const second: unknown[] = [];
  const stopFirst = loading.models.followLoad((progress) => first.push(progress));
  loading.models.followLoad((progress) => second.push(progress));
  loading.report("download", 0.5);
  stopFirst?.();
  loading.report("download", 2);
  assertEquals(first, [undefined, { stage: "download", fraction: 0.5 }]);
  assertEquals(second, [undefined, { stage: "download", fraction: 0.5 }, {
    stage: "download",
    fraction: 1,
  }]);
  loading.finish(scriptedModel({ turns: [] }));
});

Deno.test("the provider has nothing to follow once the load has ended", async () => {
  const loading = manualLoad();
  loading.fail(new Error("offline"));
  await loading.models.get().catch(() => {});
  assertEquals(loading.models.followLoad(() => {}), undefined);
});

Deno.test("a download is said in words at its first report and each quarter it passes, a load from disk never", async () => {
  const loading = manualLoad();
  const said: string[] = [];
  showModelLoadProgress(loading.models, () => {}, undefined, {
    clock: new SteppedClock(),
    say: (text) => said.push(text),
  });
  // Joined half done (another prompt started the download): said where it stands.
  for (const fraction of [0.37, 0.4, 0.49, 0.5, 0.74, 0.75, 0.99, 1]) {
    loading.report("download", fraction);
  }
  loading.report("load", 0.5);
  loading.report("load", 1);
  loading.finish(scriptedModel({ turns: [] }));
  await settled();
  assertEquals(said, [
    "Downloading model… 37 %",
    "Downloading model… 50 %",
    "Downloading model… 75 %",
    "Downloading model… 100 %",
  ]);
});
