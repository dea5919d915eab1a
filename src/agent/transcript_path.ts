/**
 * Where a session's transcript lives: `$XDG_STATE_HOME/llama-agent/sessions/<id>/raw.jsonl`,
 * with `$XDG_STATE_HOME` defaulting to `$HOME/.local/state`. Hooks receive it as
 * `transcript_path`.
 */
export function transcriptPathFor(
  sessionId: string,
  env: (name: string) => string | undefined,
): string {
  const stateHome = env("XDG_STATE_HOME") || `${env("HOME") ?? "."}/.local/state`;
  return `${stateHome}/llama-agent/sessions/${sessionId}/raw.jsonl`;
}
