#!/usr/bin/env bash
# Stop: the turn may end once the model's last message says it checked its work. Otherwise send
# it back once to check; stop_hook_active means it was already sent back, so never loop.
input=$(cat)
if [[ "$(jq -r '.stop_hook_active // false' <<<"$input")" == "true" ]]; then
  exit 0
fi
transcript=$(jq -r '.transcript_path // empty' <<<"$input")
if [[ ! -f "$transcript" ]]; then
  exit 0
fi
# The transcript is JSONL in Claude Code's format: the last assistant record with text is the
# message that ends the turn.
last=$(jq -rs '[.[] | select(.type == "assistant") | .message.content[]? | select(.type == "text") | .text] | last // ""' "$transcript")
if grep -qiwE 'checked|verified' <<<"$last"; then
  exit 0
fi
jq -nc '{decision: "block", reason: "Check your work before you finish: run the tests (or read the result back), then say what you checked."}'
