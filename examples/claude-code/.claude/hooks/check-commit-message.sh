#!/usr/bin/env bash
# PreToolUse (Bash, only for `git commit`, by its "if" rule): the message must follow
# Conventional Commits.
command=$(jq -r '.tool_input.command // empty')
message=$(sed -nE "s/.*-m[[:space:]]+[\"']([^\"']*)[\"'].*/\1/p" <<<"$command")
if [[ -z "$message" ]]; then
  exit 0
fi
if ! grep -Eq '^(feat|fix|docs|chore|refactor|test)(\([a-z0-9-]+\))?: .+' <<<"$message"; then
  echo "Commit message \"$message\" does not follow Conventional Commits (feat: ..., fix: ...)" >&2
  exit 2
fi
exit 0
