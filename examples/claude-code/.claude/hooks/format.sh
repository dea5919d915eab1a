#!/usr/bin/env bash
# PostToolUse (Edit|MultiEdit|Write): a formatter. Strips trailing whitespace from the file the
# tool just wrote, as a project's formatter would.
file=$(jq -r '.tool_input.file_path // empty')
if [[ -n "$file" && -f "$file" ]]; then
  sed -i -e 's/[[:space:]]*$//' "$file"
fi
exit 0
