#!/usr/bin/env bash
# PostToolUseFailure (Bash): when a command fails, point the model at the first line of the
# error.
error=$(jq -r '.error // empty')
first=$(head -n 1 <<<"$error")
jq -n --arg ctx "The command failed ($first): read the output before retrying" \
  '{hookSpecificOutput: {hookEventName: "PostToolUseFailure", additionalContext: $ctx}}'
