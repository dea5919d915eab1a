/**
 * The edge between the pure engine and the outside world: running one handler. The engine only
 * sees this function type; the real one spawns processes, posts HTTP and asks a model, and tests
 * can pass their own.
 */
import type { HookEventName } from "./event_table.ts";
import type { HandlerResult } from "./handler_result.ts";
import type { Registration } from "./registration.ts";

/** The JSON object a hook receives (command stdin, http body, prompt `$ARGUMENTS`). */
export type HookPayload = Readonly<Record<string, unknown>>;

export interface HandlerContext {
  readonly event: HookEventName;
  /** The session cwd: `CLAUDE_PROJECT_DIR`, and the hook's working directory unless `workingDir`. */
  readonly cwd: string;
  /**
   * Where the hook runs when that is not `cwd`: the session's current directory once a command
   * moved it (the claude profile's shell keeps its `cd`s, as Claude Code's hooks run in its).
   */
  readonly workingDir?: string;
  readonly sessionId: string;
  /** Aborting it kills running hooks (their whole process group) and ends pending requests. */
  readonly signal?: AbortSignal;
  /**
   * Variables this one hook's process gets besides the usual ones (SessionStart's
   * `CLAUDE_ENV_FILE`): set per hook by the engine, from the firing's `HookEnvPreparer`.
   */
  readonly extraEnv?: Readonly<Record<string, string>>;
}

/**
 * Makes what one hook of a firing gets in `extraEnv` (its files, say), by its position among the
 * firing's registrations, just before it runs. A rejection is that hook's failure: it does not run.
 */
export type HookEnvPreparer = (
  registration: Registration,
  position: number,
) => Promise<Readonly<Record<string, string>>>;

export type HandlerRunner = (
  registration: Registration,
  payload: HookPayload,
  context: HandlerContext,
) => Promise<HandlerResult>;
