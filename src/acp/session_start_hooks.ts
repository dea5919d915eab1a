/**
 * SessionStart (hooks.md §4): once per session id per process — `startup` on `session/new`,
 * `resume` on the first load or resume. What the hooks say goes to the start of the model's
 * context; what they say to the user comes back as notices for the caller to send once the
 * client knows the session.
 */
import { joinedContext } from "../hooks/decision.ts";
import { additionalContextMessage, sessionStartSuccessMessage } from "../hooks/hook_messages.ts";
import type { AgentSession } from "./agent_session.ts";
import { hookNotices } from "./hook_notices.ts";

export async function runSessionStartHooks(
  session: AgentSession,
  source: "startup" | "resume",
): Promise<string[]> {
  if (!session.hooks.has("SessionStart")) return [];
  const { decision } = await session.hooks.fire("SessionStart", source, { source }, {
    signal: session.background.signal,
  });
  const forModel = decision.texts.map((said) => sessionStartSuccessMessage(source, said.text));
  const context = joinedContext(decision);
  if (context !== null) forModel.push(additionalContextMessage("SessionStart", null, context));
  session.startContext = forModel;
  return hookNotices(decision, null);
}
