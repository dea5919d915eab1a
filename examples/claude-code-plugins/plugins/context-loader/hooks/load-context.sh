#!/usr/bin/env bash
# SessionStart: start the model's context with the conventions this plugin ships, and count the
# sessions it has started in CLAUDE_PLUGIN_DATA (the plugin's own directory, which survives
# updates of the plugin).
source=$(jq -r '.source // "startup"')
counter="$CLAUDE_PLUGIN_DATA/sessions-started"
count=$(( $(cat "$counter" 2>/dev/null || echo 0) + 1 ))
printf '%s\n' "$count" > "$counter"
context="$(cat "$CLAUDE_PLUGIN_ROOT/context/project-context.md")
(context-loader: session $count, $source)"
jq -n --arg ctx "$context" '{hookSpecificOutput: {hookEventName: "SessionStart", additionalContext: $ctx}}'
