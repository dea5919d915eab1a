#!/bin/sh
# PreToolUse (shell|terminal): refuse commands that destroy what cannot be brought back.
command=$(jq -r '.tool_input.command // empty')
if printf '%s' "$command" | grep -Eq 'rm[[:space:]]+-[a-zA-Z]*r[a-zA-Z]*f?[a-zA-Z]*[[:space:]]+(/|~|\$HOME)([[:space:]]|$)'; then
  echo "BLOCKED: refusing to delete a root or home directory: $command" >&2
  exit 2
fi
if printf '%s' "$command" | grep -Eq 'git[[:space:]]+push[[:space:]].*(--force|-f)([[:space:]]|$)'; then
  echo "BLOCKED: force-pushing rewrites shared history; push a new commit instead" >&2
  exit 2
fi
exit 0
