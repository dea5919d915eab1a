/**
 * The project the watch tests change files in: a guard on PreToolUse and a logger on Stop, each
 * with a scenario of its own, beside files no scenario depends on.
 */

const hook = (command: string) => [{ hooks: [{ type: "command", command }] }];

export const WATCH_PROJECT: Readonly<Record<string, string>> = {
  ".claude/settings.json": JSON.stringify({
    hooks: { PreToolUse: hook("bash .claude/hooks/guard.sh"), Stop: hook("./log.sh") },
  }),
  ".claude/hooks/guard.sh": "exit 0\n",
  "log.sh": "exit 0\n",
  "README.md": "unrelated\n",
  "node_modules/dep/index.js": "",
  ".claude/hooks-tests/guard.test.jsonc": JSON.stringify({
    cases: [{
      name: "g",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { errors: 0 },
    }],
  }),
  ".claude/hooks-tests/stop.test.jsonc": JSON.stringify({
    cases: [{ name: "s", event: "Stop", expect: { errors: 0 } }],
  }),
};

/** How long a test waits for what a file change should bring: generous, only a hang hits it. */
export const WATCH_WAIT_MS = 20_000;
