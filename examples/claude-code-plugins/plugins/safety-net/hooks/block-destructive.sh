#!/usr/bin/env bash
# PreToolUse (Bash): refuse commands that destroy work. Exit 2 blocks the call; stderr tells
# the model why.
input=$(cat)
if [[ "$(jq -r '.tool_name // empty' <<<"$input")" != "Bash" ]]; then
  exit 0
fi
command=$(jq -r '.tool_input.command // empty' <<<"$input")
# rm with -r, -R or --recursive among its flags (rm -rf, rm -fr, rm -f -r ...).
recursive_rm='(^|[[:space:];&|])rm[[:space:]]+(-[^[:space:]]*[[:space:]]+)*(-[a-zA-Z]*[rR]|--recursive)'
# git push with --force or -f (--force-with-lease is allowed: it refuses to overwrite others' work).
force_push='(^|[[:space:];&|])git[[:space:]]+push([[:space:]]+[^[:space:]]+)*[[:space:]]+(--force|-f)([[:space:]]|$)'
if [[ "$command" =~ $recursive_rm ]]; then
  echo "safety-net: recursive deletion is blocked ($command); delete single files instead" >&2
  exit 2
fi
if [[ "$command" =~ $force_push ]]; then
  echo "safety-net: git push --force is blocked; use git push --force-with-lease" >&2
  exit 2
fi
exit 0
