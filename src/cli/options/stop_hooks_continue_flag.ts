/**
 * `acp --[no-]stop-hooks-continue` (`LLAMA_AGENT_STOP_HOOKS_CONTINUE`, `"stopHooksContinue"`):
 * whether a Stop hook that blocks the end of a turn sends its reason back to the model and the
 * turn goes on, as in Claude Code. Unset, each session decides by its profile
 * (stop_continuation.ts): on where it presents Claude Code's tools, off otherwise.
 */
import type { FlagSpec } from "../command_spec.ts";

/** What `--print-config` says of the setting when nothing sets it. */
export const STOP_HOOKS_CONTINUE_DEFAULT_WORDS = "on in claude-profile sessions, else off";

export const STOP_HOOKS_CONTINUE_FLAG: FlagSpec = {
  name: "stop-hooks-continue",
  type: "boolean",
  negatable: true,
  description: "When a Stop hook blocks the end of a turn, give its reason to the model and go " +
    "on, as Claude Code does; --no-stop-hooks-continue ends the turn instead " +
    `(default: ${STOP_HOOKS_CONTINUE_DEFAULT_WORDS})`,
};
