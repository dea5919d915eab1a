/**
 * Where a session's transcript lives: `<state home>/llama-agent/sessions/<id>/raw.jsonl`, the
 * state home being `$XDG_STATE_HOME` or `$HOME/.local/state` (state_home.ts). Hooks receive it
 * as `transcript_path`.
 */
import { stateHome } from "../../state_home.ts";

export function transcriptPathFor(
  sessionId: string,
  env: (name: string) => string | undefined,
): string {
  return `${sessionsDirFor(env)}/${sessionId}/raw.jsonl`;
}

/** The directory that holds one directory per session. */
export function sessionsDirFor(env: (name: string) => string | undefined): string {
  // Without HOME (or an absolute XDG_STATE_HOME) the path is relative: under the working directory.
  const state = stateHome(env) ?? "./.local/state";
  return `${state}/llama-agent/sessions`;
}
