#!/usr/bin/env python3
"""PreToolUse (Read|Edit|Write): keep the model away from files that hold secrets."""
import json
import os
import sys

data = json.load(sys.stdin)
if data.get("tool_name") not in ["Read", "Edit", "Write"]:
    sys.exit(0)

path = data.get("tool_input", {}).get("file_path", "")
name = os.path.basename(path)
if name == ".env" or name.startswith(".env.") or name.endswith(".pem"):
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"{name} holds secrets and is off limits",
        }
    }))
sys.exit(0)
