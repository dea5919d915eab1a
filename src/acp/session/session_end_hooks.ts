/**
 * SessionEnd (the `claude` profile; the source document drops it): once per session, when it
 * ends — `session/close`, or the agent shutting down (stdin closed, SIGTERM) — with `reason:
 * "other"`, as Claude Code sends when nothing more specific applies. The agent is on its way out,
 * so the hooks get a budget, as in Claude Code 2.1.74+: 1.5 s, raised by a hook's own `timeout`
 * up to 60 s, or what `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS` says. At the budget every hook
 * still running is killed, process group and all. The session is closed by then: nothing a
 * hook says reaches the client; its failures go to the log.
 */
import { errorMessage } from "../../error.ts";
import { HOOK_EVENTS } from "../../hooks/event_table.ts";
import type { SessionEndReason } from "../../hooks/payload.ts";
import type { AgentSession } from "./agent_session.ts";

/** The agent's environment variable that sets the budget, in milliseconds. */
const SESSION_END_TIMEOUT_ENV = "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS";

const DEFAULT_BUDGET_MS = HOOK_EVENTS.SessionEnd.commandTimeoutSec * 1000;
/** How far a hook's own `timeout` raises the budget. */
const MAX_RAISED_BUDGET_MS = 60_000;
/**
 * Past the budget, how long the kill of a hook may take before the agent stops waiting for it:
 * the hook runner's kill grace, with room to spare. The orphan guard ends what is left.
 */
const KILL_SLACK_MS = 2_000;
/**
 * The longest budget a timer can hold with the slack on top (a larger delay overflows and fires
 * at once, killing every hook): a larger environment value means "wait long", so it is this.
 */
const MAX_BUDGET_MS = 2 ** 31 - 1 - KILL_SLACK_MS;

export interface SessionEndBudget {
  readonly ms: number;
  /** Set by the environment: it is then also each hook's timeout when it sets none. */
  readonly fromEnv: boolean;
}

/**
 * The budget for a session's SessionEnd hooks, from their own `timeout`s (seconds) and the
 * environment variable's value. A value that is not a positive whole number of milliseconds is
 * ignored, as Claude Code ignores it.
 */
export function sessionEndBudget(
  hookTimeoutsSec: readonly (number | undefined)[],
  envValue: string | undefined,
): SessionEndBudget {
  const fromEnv = envValue !== undefined && /^\s*[1-9][0-9]*\s*$/.test(envValue)
    ? Number(envValue)
    : undefined;
  if (fromEnv !== undefined) return { ms: Math.min(fromEnv, MAX_BUDGET_MS), fromEnv: true };
  const longest = Math.max(0, ...hookTimeoutsSec.map((sec) => (sec ?? 0) * 1000));
  return {
    ms: Math.max(DEFAULT_BUDGET_MS, Math.min(longest, MAX_RAISED_BUDGET_MS)),
    fromEnv: false,
  };
}

// Once per session object: a session closed by `session/close` is gone from the store before
// the agent shuts down, but a second call must not fire again either.
const ended = new WeakSet<AgentSession>();

/** Closes the session (its turn, tools, servers, transcript), then fires SessionEnd. */
export async function endSession(
  session: AgentSession,
  env: (name: string) => string | undefined,
): Promise<void> {
  await session.close();
  await runSessionEndHooks(session, "other", env);
}

/** Fires SessionEnd for a session that ended, at most once; never throws. */
async function runSessionEndHooks(
  session: AgentSession,
  reason: SessionEndReason,
  env: (name: string) => string | undefined,
): Promise<void> {
  if (ended.has(session)) return;
  ended.add(session);
  if (!session.hooks.has("SessionEnd")) return;
  const registrations = session.hooks.hooks.registry.byEvent.get("SessionEnd") ?? [];
  const budget = sessionEndBudget(
    registrations.map(({ registration }) => registration.handler.timeout),
    env(SESSION_END_TIMEOUT_ENV),
  );
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), budget.ms);
  let giveUp: ReturnType<typeof setTimeout> | undefined;
  try {
    const firing = session.hooks.fire("SessionEnd", reason, { reason }, {
      signal: controller.signal,
      ...(budget.fromEnv ? { defaultTimeoutSec: budget.ms / 1000 } : {}),
    });
    const late = new Promise<undefined>((resolve) => {
      giveUp = setTimeout(() => resolve(undefined), budget.ms + KILL_SLACK_MS);
    });
    const done = await Promise.race([firing, late]);
    if (done === undefined) {
      session.log(`SessionEnd hooks of session "${session.id}" did not end when killed`);
      return;
    }
    for (const error of done.decision.errors) {
      const why = error.cause === "cancelled"
        ? `stopped at the end of its ${budget.ms / 1000} s budget (${SESSION_END_TIMEOUT_ENV} ` +
          "sets it)"
        : error.detail;
      session.log(`SessionEnd hook "${error.command}" of session "${session.id}": ${why}`);
    }
  } catch (error) {
    session.log(`SessionEnd hooks of session "${session.id}" failed: ${errorMessage(error)}`);
  } finally {
    clearTimeout(timer);
    clearTimeout(giveUp);
  }
}
