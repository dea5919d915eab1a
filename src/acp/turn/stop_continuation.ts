/**
 * What a Stop firing does to a turn when the session option "stop hooks continue the turn" is on
 * (hooks.md §4, §12.2): a block, or `additionalContext` alone, sends the hooks' words back to the
 * model and the turn goes on, until Claude Code's cap of consecutive continuations overrides the
 * next one and the turn ends. Pure: the turn loop shows the notices and feeds the text back.
 */
import {
  additionalContextMessage,
  stopBlockCapNotice,
  stopBlockingErrorMessage,
  stopFeedbackMessage,
  systemReminder,
  withHookPreamble,
} from "../../hooks/hook_messages.ts";
import type { BlockEntry } from "../../hooks/decision.ts";
import type { StopGate } from "./turn_hooks.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";

/**
 * Whether a new session's Stop blocks continue its turn: as the agent was started
 * (`--[no-]stop-hooks-continue`, its variable or config key), else as the tools it presents do.
 * A session with Claude Code's tools is Claude Code to its hooks, and Claude Code goes on after
 * a Stop block; llama-agent's own contract ends the turn.
 */
export function stopHooksContinueFor(
  setting: boolean | undefined,
  profile: Pick<CompatProfile, "id">,
): boolean {
  return setting ?? profile.id === "claude";
}

/**
 * The one line a user reads when a Stop hook blocked the end of a turn that ended anyway (the
 * session does not continue after Stop blocks), with how to change that: the agent's flag, its
 * config key, and the session's own option where the client shows it (`optionName`).
 */
export function stopBlockIgnoredNotice(optionName: string | undefined): string {
  const option = optionName === undefined ? "" : `, or turn on "${optionName}" for this session`;
  return "A Stop hook blocked the end of this turn, but this session ends its turn anyway: " +
    "to give the hook's reason to the model and go on, as Claude Code does, start the agent " +
    `with --stop-hooks-continue (or "stopHooksContinue": true in its config file)${option}`;
}

/** Continuations a turn allows before the next one is overridden, as in Claude Code. */
export const DEFAULT_STOP_HOOK_BLOCK_CAP = 8;

/** Claude Code's variable that sets the cap. */
const STOP_HOOK_BLOCK_CAP_ENV = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP";

/**
 * The cap from the agent's environment: a whole number of continuations (0 ends the turn at the
 * first block). Anything else is logged once and the default kept; unset or empty is the default.
 */
export function stopHookBlockCapFromEnv(
  env: (name: string) => string | undefined,
  log: (line: string) => void,
): number {
  const value = env(STOP_HOOK_BLOCK_CAP_ENV)?.trim();
  if (value === undefined || value === "") return DEFAULT_STOP_HOOK_BLOCK_CAP;
  const cap = /^\d+$/.test(value) ? Number(value) : NaN;
  if (Number.isSafeInteger(cap)) return cap;
  log(
    `Cannot use ${STOP_HOOK_BLOCK_CAP_ENV} "${value}": it must be a whole number of ` +
      `continuations (0 or more); the cap stays ${DEFAULT_STOP_HOOK_BLOCK_CAP}`,
  );
  return DEFAULT_STOP_HOOK_BLOCK_CAP;
}

export type StopContinuation =
  /** The turn ends; `notices` first go to the user (the cap's message when it was hit). */
  | { readonly kind: "end"; readonly notices: readonly string[] }
  /** The turn goes on: `forModel` is the next message of the conversation. */
  | { readonly kind: "continue"; readonly notices: readonly string[]; readonly forModel: string };

const END: StopContinuation = { kind: "end", notices: [] };

/**
 * What to do after a Stop firing whose turn would end normally, `continuations` having gone on
 * already in this turn (every one of them followed a Stop that did not let the turn end, so they
 * are consecutive) and `cap` allowed.
 */
export function stopContinuation(
  gate: StopGate,
  continuations: number,
  cap: number,
): StopContinuation {
  if (gate.kind === "halt") return END;
  if (gate.kind === "stop" && gate.context === null) return END;
  const blocks = gate.kind === "block" ? gate.blocks : [];
  // The user is shown each block in the words of Claude Code's system item.
  const notices = blocks.map((block) => stopBlockingErrorMessage(block.command, block.reason));
  if (continuations >= cap) {
    return { kind: "end", notices: [...notices, stopBlockCapNotice(continuations + 1)] };
  }
  const items: string[] = [];
  if (blocks.length > 0) {
    items.push(withHookPreamble(stopFeedbackMessage(feedbackText(blocks))));
    // Then the system item of each block, but an exit 2's: that one is in the feedback alone
    // (hooks.md §12.2 gives exit 2 only the feedback; Claude Code 2.1.332 sends one item).
    for (const block of blocks) {
      if (!isExitBlock(block)) items.push(stopBlockingErrorMessage(block.command, block.reason));
    }
  }
  if (gate.context !== null) items.push(additionalContextMessage("Stop", null, gate.context));
  // This conversation has no system messages past the first: each item is a reminder, and
  // together they are one user message, as Claude Code's blocks of one message are.
  return {
    kind: "continue",
    notices,
    forModel: items.map(systemReminder).join("\n\n"),
  };
}

/**
 * A block the hook's process made (exit 2, or a failure that `onFailure: "block"` turns into
 * one, as exit 2; inferred), not its JSON output or a prompt hook's answer.
 */
function isExitBlock(block: BlockEntry): boolean {
  return block.source === "exit_2" || block.source === "on_failure";
}

/**
 * The reasons of the blocking hooks, one per hook in chain order; an exit-2 one ends with a
 * newline, as Claude Code's `[<cmd>]: <stderr>` does.
 */
function feedbackText(blocks: readonly BlockEntry[]): string {
  return blocks.map((block) => block.source === "exit_2" ? `${block.reason}\n` : block.reason)
    .join("\n");
}
