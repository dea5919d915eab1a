/**
 * The models a session can pick with the "model" config option: the one the agent was started
 * with (the default), then what the listers find (GGUF files in the model cache, an endpoint's
 * models). A choice's provider is created when a session first uses it and shared by every
 * session on it; when the last of them lets go, it is disposed (its memory freed), unless it is
 * the default, which the process owns. Two sessions on two GGUF models hold both in memory:
 * that is the cost of the choice.
 */
import { basename } from "node:path";
import { AgentError, errorMessage } from "../error.ts";
import { listCachedGgufFiles } from "../model/cached_gguf_files.ts";
import { createModelProvider, type ModelLoader, type ModelProvider } from "./model_provider.ts";

export interface ModelChoice {
  /** What the option's value is, and what a transcript records: `gguf:<absolute path>`, ... */
  readonly id: string;
  readonly name: string;
  readonly description?: string;
}

/**
 * Lists some of the choices; may reject (an endpoint that is down): the others still count.
 * `signal` aborts when the catalog stops waiting: a request still going is dropped then.
 */
export type ModelLister = (signal: AbortSignal) => Promise<readonly ModelChoice[]>;

/** One user's hold on a choice's provider; `release` when done (more than once is harmless). */
export interface ModelLease {
  readonly id: string;
  readonly provider: ModelProvider;
  release(): Promise<void>;
}

export interface ModelCatalog {
  readonly defaultId: string;
  /** Lists the choices now, default first, deduplicated by id; a lister that fails gives the rest (logged). */
  refresh(): Promise<readonly ModelChoice[]>;
  /** The last listing (the default alone before the first refresh). */
  readonly choices: readonly ModelChoice[];
  /** Whether the last listing offers `id`. */
  offers(id: string): boolean;
  /**
   * Whether `id` may still be offered: listed, or openable while a lister failed (a server
   * that is down for a moment must not make a session forget the model it was on).
   */
  mayOffer(id: string): boolean;
  /**
   * The provider of a choice, created on first use and kept while a lease holds it; the
   * default's is the process's provider. Throws for an id no loader can open.
   */
  acquire(id: string): ModelLease;
  /** Disposes every provider but the default's (the process disposes that one). */
  dispose(): Promise<void>;
}

export interface ModelCatalogOptions {
  readonly defaultChoice: ModelChoice;
  readonly defaultProvider: ModelProvider;
  readonly listers: readonly ModelLister[];
  /** How to open a choice; undefined: not a choice we can open (it is not offered). */
  loaderFor(id: string): ModelLoader | undefined;
  log(line: string): void;
  /** How long one lister may take before its part of the listing is given up (default 5 s). */
  readonly listTimeoutMs?: number;
}

const DEFAULT_LIST_TIMEOUT_MS = 5_000;

export function createModelCatalog(options: ModelCatalogOptions): ModelCatalog {
  const { defaultChoice, defaultProvider, log } = options;
  const defaultId = defaultChoice.id;
  let choices: readonly ModelChoice[] = [defaultChoice];
  let refreshing: Promise<readonly ModelChoice[]> | undefined;
  /** Whether every lister answered in the last listing. */
  let complete = true;
  /** The non-default providers in use, with how many leases hold each. */
  const held = new Map<string, { readonly provider: ModelProvider; holders: number }>();
  let disposed = false;

  const list = async (): Promise<readonly ModelChoice[]> => {
    const timeoutMs = options.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS;
    let answered = true;
    const listed = await Promise.all(options.listers.map(async (lister) => {
      try {
        return await withTimeout(lister, timeoutMs);
      } catch (error) {
        answered = false;
        log(`Cannot list models for the "model" option: ${errorMessage(error)}`);
        return [];
      }
    }));
    complete = answered;
    const seen = new Set<string>([defaultId]);
    const found: ModelChoice[] = [defaultChoice];
    for (const choice of listed.flat()) {
      if (seen.has(choice.id)) continue;
      seen.add(choice.id);
      if (options.loaderFor(choice.id) === undefined) {
        log(`Model "${choice.id}" is not offered: this agent has no way to open it`);
        continue;
      }
      found.push(choice);
    }
    return found;
  };

  const releaser = (id: string) => {
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      const entry = held.get(id);
      if (entry === undefined || --entry.holders > 0) return;
      held.delete(id);
      await entry.provider.dispose();
    };
  };

  return {
    defaultId,
    get choices() {
      return choices;
    },
    refresh() {
      // Sessions made at once share one listing: one directory scan, one request.
      refreshing ??= list().then((listed) => (choices = listed)).finally(() =>
        refreshing = undefined
      );
      return refreshing;
    },
    offers: (id) => choices.some((choice) => choice.id === id),
    mayOffer: (id) =>
      choices.some((choice) => choice.id === id) ||
      (!complete && options.loaderFor(id) !== undefined),
    acquire(id) {
      if (id === defaultId) {
        return { id, provider: defaultProvider, release: () => Promise.resolve() };
      }
      if (disposed) {
        throw new AgentError("MODEL_UNAVAILABLE", "The agent is shutting down: no model opens");
      }
      let entry = held.get(id);
      if (entry === undefined) {
        const loader = options.loaderFor(id);
        if (loader === undefined) {
          throw new AgentError(
            "MODEL_UNAVAILABLE",
            `Cannot open model "${id}": this agent has no way to open it; pick another model`,
          );
        }
        entry = { provider: createModelProvider(loader), holders: 0 };
        held.set(id, entry);
      }
      entry.holders++;
      return { id, provider: entry.provider, release: releaser(id) };
    },
    async dispose() {
      disposed = true;
      const providers = [...held.values()].map((entry) => entry.provider);
      held.clear();
      await Promise.all(providers.map((provider) => provider.dispose()));
    },
  };
}

/** The GGUF files of the model cache as choices; none when there is no cache directory. */
export function cachedGgufLister(cacheDir: string | undefined): ModelLister {
  return async () => {
    if (cacheDir === undefined) return [];
    return (await listCachedGgufFiles(cacheDir)).map(ggufChoice);
  };
}

const GGUF_ID_PREFIX = "gguf:";

/** A local GGUF file as a choice: `gguf:<absolute path>`, named after the file. */
export function ggufChoice(path: string): ModelChoice {
  return {
    id: GGUF_ID_PREFIX + path,
    name: basename(path).replace(/\.gguf$/, ""),
    description: "GGUF in the model cache",
  };
}

/** The file a `gguf:` choice names; undefined for other ids. */
export function ggufPathOf(id: string): string | undefined {
  return id.startsWith(GGUF_ID_PREFIX) ? id.slice(GGUF_ID_PREFIX.length) : undefined;
}

/**
 * What `lister` lists within `timeoutMs`; its signal aborts when the wait ends, answered or not,
 * so neither the timer nor the lister's request outlives the listing.
 */
async function withTimeout(
  lister: ModelLister,
  timeoutMs: number,
): Promise<readonly ModelChoice[]> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`no answer within ${timeoutMs / 1000} s`);
      reject(error);
      controller.abort(error);
    }, timeoutMs);
  });
  try {
    // A lister that throws before its first await is a failure like a rejection.
    return await Promise.race([Promise.resolve().then(() => lister(controller.signal)), timedOut]);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
