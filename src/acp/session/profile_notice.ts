/**
 * Told once when a session starts under `--compat auto` and its hooks chose Claude Code's tool
 * names (src/hooks/profile_decision.ts): what the model is offered then differs from llama-agent's
 * own, and the user hears why. A session left with llama-agent's own names hears nothing here
 * (the log says why; hooks that name Claude Code's tools and so never run are told by
 * foreign_tool_notice.ts), nor does a forced profile, the user's own choice.
 */
import { describeDecision, type ProfileDecision } from "../../hooks/profile_decision.ts";

export function profileNotice(
  firer: { readonly decision: ProfileDecision },
): string | undefined {
  const { decision } = firer;
  if (!decision.auto || decision.profile.id !== "claude") return undefined;
  const names = decision.profile.tools.map((tool) => tool.name).join(", ");
  return `Hooks see Claude Code's tool names (${names}): profile ${describeDecision(decision)}`;
}
