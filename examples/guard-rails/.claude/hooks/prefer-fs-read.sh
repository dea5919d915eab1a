#!/bin/sh
# PreToolUse (shell|terminal): the model has a tool for reading files; `cat` hides the read from
# the editor and from the fs_read hooks.
command=$(jq -r '.tool_input.command // empty')
if printf '%s' "$command" | grep -Eq '^[[:space:]]*cat[[:space:]]+[^|<>]+$'; then
  echo "REMINDER: use the fs_read tool instead of 'cat' to read a file" >&2
  exit 2
fi
exit 0
