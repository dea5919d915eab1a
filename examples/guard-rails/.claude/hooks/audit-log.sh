#!/bin/sh
# PostToolUse (every tool): one line per call in the user's audit log.
jq -r '[.tool_name, (.tool_input.command // .tool_input.file_path // "-")] | join(" | ")' \
  >> "$HOME/.llama-agent-audit.log"
exit 0
