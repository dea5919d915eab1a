/**
 * The model context a session's turns use (agent_session.ts): opened on first use on the model
 * the session chose, freed and opened again on another model when the choice changes, and let go
 * of when the session closes, a load nobody wants any more abandoned.
 */
import type { ModelSession } from "../../model/model.ts";
import type { ModelCatalog, ModelLease } from "../model_catalog.ts";
import type { ModelProvider } from "../model_provider.ts";

export interface SessionModelOptions {
  readonly sessionId: string;
  /** The agent's default model: the session's when there is no catalog. */
  readonly models: ModelProvider;
  /** The models the session can pick; absent, `models` only. */
  readonly catalog: ModelCatalog | undefined;
  readonly log: (line: string) => void;
  /** The model's name, once a context on it is open. */
  readonly onModelName: (name: string) => void;
}

export class SessionModelContext {
  /** The context the turns use, with the choice it was opened on. */
  #open: OpenModelSession | undefined;
  /** The last context let go of, until it (and its model, when no one else uses it) is freed. */
  #lettingGo: Promise<void> | undefined;

  constructor(private readonly options: SessionModelOptions) {}

  /**
   * The context on the model `id` names, opened on first use; one open on another model is let
   * go of first (throws for a model the catalog cannot open).
   */
  use(id: string | undefined): OpenModelSession {
    if (this.#open !== undefined && this.#open.id !== id) this.letGo();
    return this.#open ?? this.#openOn(id);
  }

  /** Opens a context on the model `id` names (throws for one the catalog cannot open). */
  #openOn(id: string | undefined): OpenModelSession {
    const lease = id === undefined ? undefined : this.options.catalog?.acquire(id);
    const provider = lease?.provider ?? this.options.models;
    // The model let go of is freed first: two models need not be in memory at once.
    const after = this.#lettingGo;
    const context = (after ?? Promise.resolve()).then(() => provider.get()).then((model) => {
      this.options.onModelName(model.displayName);
      return model.openSession();
    });
    const open: OpenModelSession = { id, provider, lease, after, context, settled: false };
    context.then(() => (open.settled = true), () => (open.settled = true));
    // Not kept when it fails: opening a context can fail for want of memory, which a later
    // prompt may have (a model that failed to load stays failed while a session holds it).
    context.catch(() => {
      if (this.#open !== open) return;
      this.#open = undefined;
      this.#release(lease);
    });
    this.#open = open;
    return open;
  }

  /**
   * Frees the model context and lets go of its model. A context still being opened is freed
   * when it arrives, but its model is let go of at once: a load nobody wants any more is
   * abandoned (its provider disposed), and the next model does not wait for it.
   */
  letGo(): void {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    const freeContext = open.context.then((context) => context.dispose(), () => {})
      .catch((error) =>
        this.options.log(
          `Cannot free the model context of session "${this.options.sessionId}": ${error}`,
        )
      );
    const freed = open.settled ? freeContext : Promise.resolve();
    const lettingGo: Promise<void> = freed
      .then(() => this.#release(open.lease))
      .finally(() => {
        if (this.#lettingGo === lettingGo) this.#lettingGo = undefined;
      });
    this.#lettingGo = lettingGo;
  }

  #release(lease: ModelLease | undefined): Promise<void> {
    if (lease === undefined) return Promise.resolve();
    return lease.release().catch((error) =>
      this.options.log(
        `Cannot free model "${lease.id}" of session "${this.options.sessionId}": ${error}`,
      )
    );
  }
}

export interface OpenModelSession {
  /** The catalog id it was opened on; undefined without a catalog. */
  readonly id: string | undefined;
  readonly provider: ModelProvider;
  /** The hold on a catalog model; absent for the agent's own provider without a catalog. */
  readonly lease?: ModelLease;
  /** The freeing of the model let go of before, which its load waits for; none was pending. */
  readonly after: Promise<void> | undefined;
  readonly context: Promise<ModelSession>;
  /** Whether `context` has settled (a model loading has not). */
  settled: boolean;
}
