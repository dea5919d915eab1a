/**
 * Told once when a session starts under `--compat auto`: which tool names its hooks see, and
 * why (src/hooks/profile_decision.ts). Said when it matters: the session has hooks, or they
 * chose Claude Code's names; a session without hooks under llama-agent's own names hears
 * nothing. A forced profile is the user's own choice and is not repeated back.
 */
import { describeDecision, type ProfileDecision } from "../hooks/profile_decision.ts";
import type { SessionHooks } from "../hooks/session_hooks.ts";

export function profileNotice(
  firer: { readonly hooks: SessionHooks; readonly decision: ProfileDecision },
): string | undefined {
  const { decision, hooks } = firer;
  if (!decision.auto) return undefined;
  if (decision.profile.id === "llama" && hooks.registry.registrations.length === 0) {
    return undefined;
  }
  const names = decision.profile.tools.map((tool) => tool.name).join(", ");
  const whose = decision.profile.id === "claude" ? "Claude Code's" : "llama-agent's own";
  return `Hooks see ${whose} tool names (${names}): profile ${describeDecision(decision)}`;
}
