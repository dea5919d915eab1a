#!/usr/bin/env bash
# PreToolUse (Bash): refuse commands that destroy work. Exit 2 blocks the call; stderr tells
# the model why.
input=$(cat)
tool_name=$(jq -r '.tool_name // empty' <<<"$input")
if [[ "$tool_name" != "Bash" ]]; then
  exit 0
fi
command=$(jq -r '.tool_input.command // empty' <<<"$input")
if [[ "$command" =~ rm[[:space:]]+-[a-zA-Z]*[rR] ]]; then
  echo "Blocked: recursive deletion is not allowed here ($command)" >&2
  exit 2
fi
if [[ "$command" =~ git[[:space:]]+reset[[:space:]]+--hard ]]; then
  echo "Blocked: git reset --hard throws away uncommitted work; use git stash" >&2
  exit 2
fi
exit 0
