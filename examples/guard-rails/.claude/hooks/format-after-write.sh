#!/bin/sh
# PostToolUse (fs_write and its aliases): strip trailing whitespace from the written file and
# tell the model it happened, so its next edit starts from the file as it is.
file=$(jq -r '.tool_input.file_path // .tool_input.path // empty')
[ -n "$file" ] && [ -f "$file" ] || exit 0
if grep -q '[[:space:]]$' "$file"; then
  sed -i 's/[[:space:]]*$//' "$file"
  jq -n --arg file "$file" '{hookSpecificOutput: {hookEventName: "PostToolUse", additionalContext: ("Formatted " + $file + ": trailing whitespace removed")}}'
fi
exit 0
