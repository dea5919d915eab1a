/**
 * The turn's own hook steps (hooks.md §4): UserPromptSubmit before the model is invoked, and Stop
 * when the turn would end. Notification runs beside the turn (notification_hooks.ts).
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { type BlockEntry, joinedContext } from "../../hooks/decision.ts";
import {
  additionalContextMessage,
  userPromptBlockedMessage,
  userPromptSubmitSuccessMessage,
} from "../../hooks/hook_messages.ts";
import type { AgentSession } from "../session/agent_session.ts";
import { hookNotices } from "../session/hook_notices.ts";
import type { TurnHookContext } from "./turn_types.ts";

export type PromptGate =
  /** Go on; `forModel` goes to the model with the prompt. */
  | { readonly kind: "go"; readonly forModel: readonly string[] }
  /** Blocked: the model is never invoked; `message` is shown to the client. */
  | { readonly kind: "refused"; readonly message: string }
  /** `continue:false`: the turn ends before the model is invoked. */
  | { readonly kind: "stopped"; readonly stopReason: string | null };

const GO: PromptGate = { kind: "go", forModel: [] };

export async function runUserPromptSubmitHooks(
  session: AgentSession,
  prompt: readonly ContentBlock[],
  turn: TurnHookContext,
): Promise<PromptGate> {
  if (!session.hooks.has("UserPromptSubmit")) return GO;
  const text = hookPromptText(prompt);
  const { decision } = await session.hooks.fire("UserPromptSubmit", null, { prompt: text }, turn);
  for (const notice of hookNotices(decision, null)) session.notice(notice);
  const verdict = decision.verdict;
  if (verdict.kind === "stop") return { kind: "stopped", stopReason: verdict.stopReason };
  if (verdict.kind === "block") {
    return { kind: "refused", message: userPromptBlockedMessage(verdict.reason, text) };
  }
  const forModel = decision.texts.map((said) => userPromptSubmitSuccessMessage(said.text));
  const context = joinedContext(decision);
  if (context !== null) forModel.push(additionalContextMessage("UserPromptSubmit", null, context));
  return { kind: "go", forModel };
}

/**
 * The prompt as UserPromptSubmit hooks read it: text blocks joined with "\n", a resource link as
 * its URI, an embedded resource as its text.
 */
export function hookPromptText(prompt: readonly ContentBlock[]): string {
  return prompt.flatMap((block) => {
    switch (block.type) {
      case "text":
        return [block.text];
      case "resource_link":
        return [block.uri];
      case "resource":
        return "text" in block.resource ? [block.resource.text] : [block.resource.uri];
      case "image":
      case "audio":
        return [];
      default:
        return block satisfies never;
    }
  }).join("\n");
}

export type StopGate =
  /** Nothing holds the turn; `context`: the hooks' `additionalContext`, joined, or null. */
  | { readonly kind: "stop"; readonly context: string | null }
  /** Hooks asked to keep going: their reasons joined, and each blocking hook's own. */
  | {
    readonly kind: "block";
    readonly reason: string;
    readonly blocks: readonly BlockEntry[];
    readonly context: string | null;
  }
  /** `continue:false`. */
  | { readonly kind: "halt"; readonly stopReason: string | null };

const STOP: StopGate = { kind: "stop", context: null };

export async function runStopHooks(
  session: AgentSession,
  turn: TurnHookContext,
  fields: { readonly stopHookActive: boolean; readonly lastAssistantMessage: string },
): Promise<StopGate> {
  if (!session.hooks.has("Stop")) return STOP;
  const { decision } = await session.hooks.fire("Stop", null, {
    stop_hook_active: fields.stopHookActive,
    last_assistant_message: fields.lastAssistantMessage,
    background_tasks: [],
    session_crons: [],
  }, turn);
  for (const notice of hookNotices(decision, null)) session.notice(notice);
  const verdict = decision.verdict;
  if (verdict.kind === "stop") return { kind: "halt", stopReason: verdict.stopReason };
  const context = joinedContext(decision);
  if (verdict.kind === "block") {
    return { kind: "block", reason: verdict.reason, blocks: verdict.blocks, context };
  }
  return { kind: "stop", context };
}
