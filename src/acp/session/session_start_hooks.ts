/**
 * SessionStart (hooks.md §4): once per session id per process — `startup` on `session/new`,
 * `resume` on the first load or resume. What the hooks say goes to the start of the model's
 * context; what they say to the user comes back as notices for the caller to send once the
 * client knows the session. Each command hook gets a `CLAUDE_ENV_FILE` of its own, whose
 * variables the session's later shell calls get (§12.7), and an `initialUserMessage` becomes the
 * next user message the model reads, before the client's prompt (§12.6).
 */
import { sessionEnvDirFor, SessionStartEnvFiles } from "../../agent/shell/session_env_file.ts";
import { joinedContext } from "../../hooks/decision.ts";
import type { HookFiring } from "../../hooks/hook_engine.ts";
import { additionalContextMessage, sessionStartSuccessMessage } from "../../hooks/hook_messages.ts";
import type { AgentSession } from "./agent_session.ts";
import { hookNotices } from "./hook_notices.ts";

export async function runSessionStartHooks(
  session: AgentSession,
  source: "startup" | "resume",
): Promise<string[]> {
  if (!session.hooks.has("SessionStart")) return [];
  const envFiles = await SessionStartEnvFiles.forFiring(
    sessionEnvDirFor(session.transcript.path),
    session.log,
  );
  const firing = await session.hooks.fire("SessionStart", source, { source }, {
    signal: session.background.signal,
    // By position among the firing's hooks, as Claude Code numbers them (settings, then plugins).
    hookEnv: (registration, position) =>
      registration.handler.type === "command"
        ? envFiles.variableFor(position)
        : Promise.resolve({}),
  });
  const { decision } = firing;
  const forModel = decision.texts.map((said) => sessionStartSuccessMessage(source, said.text));
  const context = joinedContext(decision);
  if (context !== null) forModel.push(additionalContextMessage("SessionStart", null, context));
  session.startContext = forModel;
  // Read once, now that every hook has ended, as Claude Code reads them.
  session.sessionEnv = await envFiles.read();
  const message = initialUserMessage(firing);
  if (message !== null) addUserMessage(session, message);
  return hookNotices(decision, null);
}

/** The hooks' `initialUserMessage`s in chain order, joined with "\n"; null when none gave one. */
function initialUserMessage(firing: HookFiring): string | null {
  const messages = firing.runs.flatMap(({ outcome }) => {
    const specific = outcome.kind === "success" ? outcome.output?.hookSpecificOutput : undefined;
    const message = specific?.hookEventName === "SessionStart"
      ? specific.initialUserMessage
      : undefined;
    return message ? [message] : [];
  });
  return messages.length === 0 ? null : messages.join("\n");
}

/**
 * A user message no one typed, at the end of the conversation so far: the next turn's model call
 * reads it right before that turn's prompt. Recorded as hook text the model read, so a load
 * rebuilds the conversation with it; not shown to the client, who never sent it.
 */
function addUserMessage(session: AgentSession, text: string): void {
  session.conversation.push({ role: "user", text });
  session.record({ type: "hook_feedback", text });
  // No prompt exists yet: the message is a prompt of its own, as in Claude Code, where it is sent
  // before the user's.
  session.claudeTranscript?.hookFeedback({ promptId: crypto.randomUUID(), content: text });
}
