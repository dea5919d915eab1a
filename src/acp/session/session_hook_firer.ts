/**
 * A session's hooks: its settings chain, read once when the session starts, and the one way the
 * seams fire an event — the matching registrations, the payload in Claude Code's shape with the
 * session's current permission mode, run through the engine under the caller's signal.
 */
import { type FiredEventName, isFiredEvent } from "../../hooks/event_table.ts";
import { formatDiagnostic } from "../../hooks/diagnostic.ts";
import type { HandlerRunner, HookEnvPreparer, HookPayload } from "../../hooks/handler_runner.ts";
import { fireHooks, type HookFiring, noHooksFiring } from "../../hooks/hook_engine.ts";
import { buildPayload, type EventFields, type PermissionMode } from "../../hooks/payload.ts";
import { selectRegistrations, type Unmatched } from "../../hooks/registry.ts";
import { loadSessionHooks, type SessionHooks } from "../../hooks/session_hooks.ts";
import { forcedDecision, type ProfileDecision } from "../../hooks/profile_decision.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";

/**
 * The transcript hooks read at `transcript_path` when the agent writes one for them (the `claude`
 * profile's, claude_transcript.ts): written out before any hook runs, and told what each firing
 * did.
 */
export interface HookReadTranscript {
  flush(): Promise<void>;
  /** `sent`: the payload the firing's hooks were sent; absent when none ran. */
  recordFiring(firing: HookFiring, sent: HookPayload | undefined): void;
}

/** Who is firing: read at each firing, so `permission_mode` follows the session's mode. */
export interface HookSessionView {
  readonly id: string;
  /** Where the session was opened: `CLAUDE_PROJECT_DIR`, the settings chain, `if` rules' paths. */
  readonly cwd: string;
  /**
   * Where the session is now (its shell's directory, working_directory.ts): the payloads' `cwd`
   * and where hooks run, as Claude Code's current directory; `cwd` when absent.
   */
  currentDir?(): string;
  readonly transcriptPath: string;
  permissionMode(): PermissionMode;
}

export interface FireOptions {
  /** The `session/prompt` this firing belongs to; absent on SessionStart. */
  readonly promptId?: string;
  /** Aborting it kills the running hooks. */
  readonly signal?: AbortSignal;
  /** The timeout of handlers that set none, instead of the event's (SessionEnd's budget). */
  readonly defaultTimeoutSec?: number;
  /** What each hook gets in its environment besides the usual (SessionStart's env files). */
  readonly hookEnv?: HookEnvPreparer;
}

/**
 * One firing with its registrations chosen. When none matched, it is over already: `done` holds
 * it (observed, with the decision of no hooks), so a seam builds no payload and awaits nothing
 * on the tool calls its hooks do not match. Otherwise `run` fires the matched ones.
 */
export interface SelectedFiring<E extends FiredEventName> {
  readonly done: HookFiring | undefined;
  run(fields: EventFields[E], options?: FireOptions): Promise<HookFiring>;
}

export interface SessionHookFirer {
  readonly hooks: SessionHooks;
  /** The profile the hooks are loaded and fired under, and why it is that one. */
  readonly decision: ProfileDecision;
  /**
   * Whether `event` fires in the session's profile and a registration exists for it: seams skip
   * building payloads when not. (A `PostCompact` hook registers in the llama profile, where
   * nothing fires it.)
   */
  has(event: FiredEventName): boolean;
  /**
   * Chooses the registrations of one firing; `toolInput` is the call `if` rules test (tool
   * events only).
   */
  select<E extends FiredEventName>(
    event: E,
    matcherValue: string | null,
    toolInput?: unknown,
  ): SelectedFiring<E>;
  /** `select`, then `run` when anything matched. */
  fire<E extends FiredEventName>(
    event: E,
    matcherValue: string | null,
    fields: EventFields[E],
    options?: FireOptions,
  ): Promise<HookFiring>;
}

/**
 * Observes every firing of every session (`hooks test` records them). `order` counts firings as
 * they start, so firings that finish out of order can be put back in the order they happened.
 * `unmatched` is the event's registrations that did not run and why (`hooks test --explain`):
 * only the firing knows the tool call its `if` rules were tested against.
 */
export type FiringObserver = (
  sessionId: string,
  firing: HookFiring,
  order: number,
  unmatched: readonly Unmatched[],
) => void;

let firingsStarted = 0;

export async function createSessionHookFirer(options: {
  readonly session: HookSessionView;
  readonly home: string | undefined;
  readonly runHandler: HandlerRunner;
  /** How the agent presents itself to hooks (`effort`, the tool names `if` rules name). */
  readonly profile: CompatProfile;
  /**
   * The hooks, already loaded under `profile` (when the profile was decided from them,
   * src/hooks/profile_choice.ts); absent: loaded here.
   */
  readonly hooks?: SessionHooks;
  /** Why the profile is `profile`; absent: forced by `--compat`. */
  readonly decision?: ProfileDecision;
  /** `--plugin-dir` directories, loaded when the profile reads plugins. */
  readonly pluginDirs?: readonly string[];
  readonly log: (line: string) => void;
  readonly observe?: FiringObserver;
  readonly transcript?: HookReadTranscript;
}): Promise<SessionHookFirer> {
  const { session, runHandler, observe, profile } = options;
  const hooks = options.hooks ?? await loadSessionHooks(session.cwd, options.home, {
    profile,
    pluginDirs: options.pluginDirs,
  });
  // Configuration problems are data: the session goes on with the valid entries, and says so.
  for (const diagnostic of hooks.loaded.diagnostics) {
    options.log(`hooks: ${formatDiagnostic(diagnostic)}`);
  }
  const select = <E extends FiredEventName>(
    event: E,
    matcherValue: string | null,
    toolInput?: unknown,
  ): SelectedFiring<E> => {
    const order = ++firingsStarted;
    // `if` rules read the tool call; on other events there is none and any `if` fails. An event
    // the profile does not fire runs none of its registrations, whoever asks.
    const { matched, unmatched } = isFiredEvent(event, profile)
      ? selectRegistrations(hooks.registry, event, matcherValue, {
        profile,
        projectDir: session.cwd,
        toolInput,
      })
      : { matched: [], unmatched: [] };
    const finish = (firing: HookFiring, sent: HookPayload | undefined) => {
      options.transcript?.recordFiring(firing, sent);
      observe?.(session.id, firing, order, unmatched);
      return firing;
    };
    if (matched.length === 0) {
      const done = finish(noHooksFiring(event, matcherValue), undefined);
      return { done, run: () => Promise.resolve(done) };
    }
    return {
      done: undefined,
      async run(fields, fireOptions = {}) {
        const currentDir = session.currentDir?.() ?? session.cwd;
        const payload = buildPayload(event, {
          sessionId: session.id,
          transcriptPath: session.transcriptPath,
          cwd: currentDir,
          promptId: fireOptions.promptId,
          permissionMode: session.permissionMode(),
          effort: profile.effort,
        }, fields);
        // A hook reading transcript_path finds everything up to its own firing.
        if (options.transcript) await options.transcript.flush();
        const firing = await fireHooks({
          event,
          matcherValue,
          payload,
          outputRules: profile,
          registrations: matched,
          runHandler: withDefaultTimeout(runHandler, fireOptions.defaultTimeoutSec),
          context: {
            event,
            cwd: session.cwd,
            ...(currentDir === session.cwd ? {} : { workingDir: currentDir }),
            sessionId: session.id,
            signal: fireOptions.signal,
          },
          hookEnv: fireOptions.hookEnv,
        });
        return finish(firing, payload);
      },
    };
  };
  return {
    hooks,
    decision: options.decision ?? forcedDecision(profile, "--compat"),
    has: (event) =>
      isFiredEvent(event, profile) && (hooks.registry.byEvent.get(event)?.length ?? 0) > 0,
    select,
    fire(event, matcherValue, fields, fireOptions) {
      const selected = select(
        event,
        matcherValue,
        "tool_input" in fields ? fields.tool_input : undefined,
      );
      return selected.done ? Promise.resolve(selected.done) : selected.run(fields, fireOptions);
    },
  };
}

/** The runner, giving `timeoutSec` to handlers that set no `timeout` of their own. */
function withDefaultTimeout(
  runHandler: HandlerRunner,
  timeoutSec: number | undefined,
): HandlerRunner {
  if (timeoutSec === undefined) return runHandler;
  return (registration, payload, context) =>
    runHandler(
      registration.handler.timeout === undefined
        ? { ...registration, handler: { ...registration.handler, timeout: timeoutSec } }
        : registration,
      payload,
      context,
    );
}
