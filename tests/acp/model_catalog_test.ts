import { assert, assertEquals, assertThrows } from "../helpers/assert.ts";
import {
  cachedGgufLister,
  createModelCatalog,
  ggufChoice,
  ggufPathOf,
  type ModelCatalogOptions,
  type ModelChoice,
  type ModelLister,
} from "../../src/acp/model_catalog.ts";
import { createModelProvider, type ModelLoader } from "../../src/acp/model_provider.ts";
import { scriptedModel } from "../../src/model/scripted/scripted_model.ts";
import type { Model } from "../../src/model/model.ts";
import { AgentError } from "../../src/error.ts";

const DEFAULT: ModelChoice = { id: "default", name: "Default" };
const A: ModelChoice = { id: "a", name: "A" };
const B: ModelChoice = { id: "b", name: "B" };

/** A model that counts its disposals in `disposed`. */
function countedModel(id: string, disposed: string[]): Model {
  const model = scriptedModel({ turns: [] }, id);
  return { ...model, dispose: () => (disposed.push(id), Promise.resolve()) };
}

function catalogOf(
  listers: readonly ModelLister[],
  overrides: Partial<ModelCatalogOptions> & { disposed?: string[]; logs?: string[] } = {},
) {
  const disposed = overrides.disposed ?? [];
  const loaders: Record<string, ModelLoader> = {
    a: () => Promise.resolve(countedModel("a", disposed)),
    b: () => Promise.resolve(countedModel("b", disposed)),
  };
  return createModelCatalog({
    defaultChoice: DEFAULT,
    defaultProvider: createModelProvider(() => Promise.resolve(countedModel("default", disposed))),
    listers,
    loaderFor: (id) => loaders[id],
    log: (line) => overrides.logs?.push(line),
    ...overrides,
  });
}

const listing = (...choices: ModelChoice[]): ModelLister => () => Promise.resolve(choices);
const NEVER_ABORTED = new AbortController().signal;

Deno.test("before a refresh the catalog offers the default alone; after one, the default first and each id once", async () => {
  const catalog = catalogOf([listing(A, DEFAULT), listing(B, A)]);
  assertEquals(catalog.choices, [DEFAULT]);
  assertEquals(await catalog.refresh(), [DEFAULT, A, B]);
  assertEquals(catalog.choices, [DEFAULT, A, B]);
  assert(catalog.offers("b"));
  assert(!catalog.offers("c"));
});

Deno.test("a lister that fails, throws or never answers is logged and the others still list", async () => {
  const logs: string[] = [];
  const catalog = catalogOf([
    () => Promise.reject(new Error("connection refused")),
    () => {
      throw new Error("bad directory");
    },
    () => new Promise<never>(() => {}),
    listing(B),
  ], { logs, listTimeoutMs: 20 });
  assertEquals(await catalog.refresh(), [DEFAULT, B]);
  assertEquals(logs.sort(), [
    'Cannot list models for the "model" option: bad directory',
    'Cannot list models for the "model" option: connection refused',
    'Cannot list models for the "model" option: no answer within 0.02 s',
  ]);
});

Deno.test("a lister's signal aborts when the catalog stops waiting for it, whether it answered, failed or never did", async () => {
  const signals: Record<string, AbortSignal> = {};
  const catalog = catalogOf([
    (signal) => ((signals.listed = signal), Promise.resolve([B])),
    (signal) => ((signals.failed = signal), Promise.reject(new Error("connection refused"))),
    (signal) => {
      signals.silent = signal;
      // Ends when the signal aborts, as a request given the signal does.
      return new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason))
      );
    },
  ], { listTimeoutMs: 20 });
  assertEquals(await catalog.refresh(), [DEFAULT, B]);
  assertEquals(Object.keys(signals).sort(), ["failed", "listed", "silent"]);
  assert(Object.values(signals).every((signal) => signal.aborted));
  assertEquals(String(signals.silent?.reason), "Error: no answer within 0.02 s");
});

Deno.test("a listed model no loader can open is not offered, and says why", async () => {
  const logs: string[] = [];
  const catalog = catalogOf([listing(A, { id: "mystery", name: "?" })], { logs });
  assertEquals(await catalog.refresh(), [DEFAULT, A]);
  assertEquals(logs, ['Model "mystery" is not offered: this agent has no way to open it']);
  const error = assertThrows(() => catalog.acquire("mystery"), AgentError, 'model "mystery"');
  assertEquals(error.code, "MODEL_UNAVAILABLE");
});

Deno.test("sessions on one model share its provider, which is disposed when the last lets go", async () => {
  const disposed: string[] = [];
  const catalog = catalogOf([listing(A)], { disposed });
  const first = catalog.acquire("a");
  const second = catalog.acquire("a");
  assert(first.provider === second.provider);
  await first.provider.get();
  await first.release();
  // Letting go twice counts once.
  await first.release();
  assertEquals(disposed, []);
  await second.release();
  assertEquals(disposed, ["a"]);
  // A later use loads it again.
  assert(catalog.acquire("a").provider !== first.provider);
});

Deno.test("the default's provider is the process's, never disposed by the catalog", async () => {
  const disposed: string[] = [];
  const defaultProvider = createModelProvider(() =>
    Promise.resolve(countedModel("default", disposed))
  );
  const catalog = catalogOf([], { disposed, defaultProvider });
  const lease = catalog.acquire("default");
  assert(lease.provider === defaultProvider);
  await lease.provider.get();
  await lease.release();
  await catalog.acquire("b").provider.get();
  await catalog.dispose();
  assertEquals(disposed, ["b"]);
  await defaultProvider.dispose();
});

Deno.test("the cache lister offers each GGUF file as gguf:<path>, named after the file", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "gguf_lister_" }));
  try {
    await Deno.writeTextFile(`${dir}/qwen-0.5b.gguf`, "");
    assertEquals(await cachedGgufLister(dir)(NEVER_ABORTED), [{
      id: `gguf:${dir}/qwen-0.5b.gguf`,
      name: "qwen-0.5b",
      description: "GGUF in the model cache",
    }]);
    assertEquals(ggufPathOf(ggufChoice(`${dir}/x.gguf`).id), `${dir}/x.gguf`);
    assertEquals(ggufPathOf("endpoint:llama3"), undefined);
    assertEquals(await cachedGgufLister(undefined)(NEVER_ABORTED), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("while a lister fails, an id it may have offered can still be opened; once all answer, only what they list", async () => {
  let down = true;
  const catalog = catalogOf([
    listing(A),
    () => (down ? Promise.reject(new Error("connection refused")) : Promise.resolve([])),
  ]);
  await catalog.refresh();
  assertEquals([catalog.offers("b"), catalog.mayOffer("b"), catalog.mayOffer("nope")], [
    false,
    true,
    false,
  ]);
  down = false;
  await catalog.refresh();
  assertEquals([catalog.mayOffer("a"), catalog.mayOffer("b")], [true, false]);
});
