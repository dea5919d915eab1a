import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { StatFile } from "../../src/hooks/lint/settings_lint.ts";
import {
  group,
  lintProject,
  LOCAL,
  only,
  PROJECT,
  run,
  SCRIPT,
  settings,
  summary,
  USER,
} from "./lint_project.ts";

Deno.test("an idiomatic llama-agent settings chain gets no finding at all", async () => {
  const project = settings({
    SessionStart: [group("startup|resume", run("git status --short"))],
    UserPromptSubmit: [group(undefined, run("date", { timeout: 30 }))],
    PreToolUse: [
      group("shell|terminal", run('"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh')),
      group("Bash|shell", run("${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.sh --strict")),
      group("fs_write", run('bash "$CLAUDE_PROJECT_DIR/.claude/hooks/plain.sh"')),
      group("fs_read, fs_write", run("$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh", { args: [] })),
      group("mcp__github__.*", {
        type: "http",
        url: "http://localhost:8080/hook",
        headers: { Authorization: "Bearer $TOKEN" },
        allowedEnvVars: ["TOKEN"],
      }),
      group("mcp__sah__create_issue|mcp__.*__write", run("echo mcp")),
      group("^fs_", run("echo files")),
    ],
    PostToolUse: [
      group("*", run('jq -c . >> "$CLAUDE_PROJECT_DIR/.claude/tool-log.jsonl"')),
      group("fs_write", run('cd "$CLAUDE_PROJECT_DIR" && deno fmt --quiet 2>/dev/null || true')),
      group(
        "fs_write",
        run('python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/check.py" "$CLAUDE_PROJECT_DIR/out.json"'),
      ),
    ],
    PostToolUseFailure: [group("", run("tee $CLAUDE_PROJECT_DIR/failures.txt >/dev/null"))],
    Notification: [group("agent_message", run('"$CLAUDE_PROJECT_DIR/.claude/hooks/$KIND.sh"'))],
    Stop: [
      group(undefined, { type: "prompt", prompt: "Did the agent finish? $ARGUMENTS" }),
      group("", run("echo '$CLAUDE_PROJECT_DIR/not-a-path.sh'", { onFailure: "block" })),
    ],
  });
  await lintProject({
    [PROJECT]: project,
    [USER]: settings({ Stop: [group(undefined, run("notify-send done", { timeout: 5 }))] }),
    "project/.claude/hooks/guard.sh": { text: SCRIPT, mode: 0o755 },
    "project/.claude/hooks/plain.sh": { text: SCRIPT, mode: 0o644 },
    "project/.claude/hooks/check.py": { text: "print()\n", mode: 0o644 },
  }, (diagnostics) => assertEquals(summary(diagnostics), []));
});

Deno.test("tool matcher warnings point at the matcher on every tool event, and only there", async () => {
  const text = settings({
    PreToolUse: [group("Bash", run("echo pre"))],
    PostToolUse: [group("Write", run("echo post"))],
    PostToolUseFailure: [group("Read", run("echo failure"))],
    SessionStart: [group("Bash", run("echo start"))],
    Notification: [group("Bash", run("echo note"))],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    const found = only(diagnostics, "LINT_TOOL_NEVER_MATCHES");
    assertEquals(found.map((d) => [d.pointer, d.severity, d.line, d.column]), [
      ["/hooks/PreToolUse/0/matcher", "warning", 5, 9],
      ["/hooks/PostToolUse/0/matcher", "warning", 16, 9],
      ["/hooks/PostToolUseFailure/0/matcher", "warning", 27, 9],
    ]);
    assert(found.every((d) => d.file.endsWith("/project/.claude/settings.json")));
    assertEquals(summary(diagnostics).length, 3);
  });
});

Deno.test("a matcher on UserPromptSubmit or Stop is ignored and said so", async () => {
  const text = settings({
    UserPromptSubmit: [group("Bash", run("echo a")), group("*", run("echo b"))],
    Stop: [group("end_turn", run("echo c")), group("", run("echo d"))],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(summary(diagnostics), [
      "warning LINT_MATCHER_IGNORED /hooks/UserPromptSubmit/0/matcher: " +
      'Matcher "Bash" is ignored on "UserPromptSubmit": every group of this event fires; ' +
      "remove the matcher",
      "warning LINT_MATCHER_IGNORED /hooks/Stop/0/matcher: " +
      'Matcher "end_turn" is ignored on "Stop": every group of this event fires; ' +
      "remove the matcher",
    ]);
  });
});

Deno.test("timeouts of 1000 seconds or more look like milliseconds", async () => {
  const text = settings({
    PreToolUse: [group("shell", run("a", { timeout: 5000 }), run("b", { timeout: 999 }))],
    Stop: [group(undefined, { type: "prompt", prompt: "ok?", timeout: 1500 })],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(summary(diagnostics), [
      "warning LINT_TIMEOUT_LOOKS_LIKE_MS /hooks/PreToolUse/0/hooks/0/timeout: " +
      '"timeout" is 5000 seconds (1 h 23 min): timeouts are in seconds; did you mean 5?',
      "warning LINT_TIMEOUT_LOOKS_LIKE_MS /hooks/Stop/0/hooks/0/timeout: " +
      '"timeout" is 1500 seconds (25 min): timeouts are in seconds; did you mean 1.5?',
    ]);
  });
});

Deno.test("every comment and trailing comma is a warning at its own position", async () => {
  const text = [
    "// shared with the team",
    "{",
    '  "hooks": { /* tools */',
    '    "Stop": [{ "hooks": [{ "type": "command", "command": "echo hi" },] }],',
    "  },",
    "}",
  ].join("\n");
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    const found = only(diagnostics, "LINT_JSONC_REJECTED_BY_CLAUDE");
    assertEquals(found.map((d) => [d.line, d.column, d.pointer]), [
      [1, 1, ""],
      [3, 14, ""],
      [4, 69, ""],
      [4, 74, ""],
      [5, 4, ""],
    ]);
    assertStringIncludes(found[0]!.message, "Claude Code rejects comments in a settings file");
    assertStringIncludes(found[2]!.message, "Claude Code rejects trailing commas");
    assertStringIncludes(found[2]!.message, "remove the comma");
    assertEquals(diagnostics.length, 5, "no LINT_CLAUDE_DROPS_FILE for JSONC");
  });
});

Deno.test("each invalid entry notes that Claude Code would drop the whole file", async () => {
  const text = settings({
    PreToolUse: [group("shell", run("a", { timeout: "soon" }), run("b"))],
    Stop: [{ hooks: [] }],
    Frobnicate: [group(undefined, run("c"))],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(diagnostics.map((d) => [d.severity, d.code, d.pointer, d.line]), [
      ["error", "HANDLER_INVALID", "/hooks/PreToolUse/0/hooks/0/timeout", 10],
      ["warning", "LINT_CLAUDE_DROPS_FILE", "/hooks/PreToolUse/0/hooks/0/timeout", 10],
      ["error", "SETTINGS_INVALID", "/hooks/Stop/0/hooks", 21],
      ["warning", "LINT_CLAUDE_DROPS_FILE", "/hooks/Stop/0/hooks", 21],
      ["error", "EVENT_UNKNOWN", "/hooks/Frobnicate", 24],
    ]);
    assertStringIncludes(
      diagnostics[1]!.message,
      "Claude Code would ignore every hook of this file because of this invalid entry, " +
        "while llama-agent skips only the entry",
    );
  });
});

Deno.test("fields with no effect here say what happens instead", async () => {
  const text = settings({
    PreToolUse: [group(
      "shell",
      run("a", {
        async: true,
        statusMessage: "Checking",
        once: true,
        shell: "bash",
        headers: { A: "b" },
        Timeout: 3,
        frob: 1,
        onFailure: "block",
      }),
    )],
    UserPromptSubmit: [group(undefined, { type: "agent", prompt: "ok?", model: "haiku" })],
    Notification: [group(undefined, run("b", { onFailure: "block" }))],
    PostToolUse: [group("*", { type: "http", url: "http://localhost/x", args: ["x"] })],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    const messages = only(diagnostics, "LINT_FIELD_NO_EFFECT").map((d) =>
      `${d.pointer.split("/").slice(2).join("/")}: ${d.message}`
    );
    assertEquals(messages, [
      'PreToolUse/0/hooks/0/async: "async" has no effect in llama-agent: the action waits for ' +
      "every hook to finish",
      'PreToolUse/0/hooks/0/statusMessage: "statusMessage" has no effect in llama-agent: no ' +
      "status is shown while a hook runs",
      'PreToolUse/0/hooks/0/once: "once" has no effect in llama-agent: the hook runs every time ' +
      "its event fires",
      'PreToolUse/0/hooks/0/shell: "shell" has no effect in llama-agent: commands always run ' +
      "with /bin/sh",
      'PreToolUse/0/hooks/0/headers: "headers" has no effect on a "command" handler: only ' +
      '"http" handlers use it',
      'PreToolUse/0/hooks/0/Timeout: "Timeout" is not a field of a "command" handler and has ' +
      'no effect: did you mean "timeout"?',
      'PreToolUse/0/hooks/0/frob: "frob" is not a field of a "command" handler and has no ' +
      "effect: remove it",
      'UserPromptSubmit/0/hooks/0/model: "model" has no effect in llama-agent: the session\'s ' +
      "own model answers prompt and agent hooks",
      'Notification/0/hooks/0/onFailure: "onFailure" has no effect on "Notification": the ' +
      "event cannot be blocked, so a failing hook is only reported",
      'PostToolUse/0/hooks/0/args: "args" has no effect on a "http" handler: only "command" ' +
      "handlers use it",
    ]);
  });
});

// Anthropic's security-guidance plugin: `asyncRewake` with its `rewakeMessage` and
// `rewakeSummary` are Claude Code's fields, which llama-agent does not support; never "not a field".
Deno.test("asyncRewake, rewakeMessage and rewakeSummary are named as unsupported, not unknown", async () => {
  const rewake = {
    asyncRewake: true,
    rewakeMessage: "Background security review of commit...",
    rewakeSummary: "Commit security review found issues",
  };
  const text = settings({
    PostToolUse: [group("Bash", run("review.sh", { if: "Bash(git commit:*)", ...rewake }))],
    Notification: [group(undefined, run("notify.sh", { ...rewake, asyncRewake: false }))],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    const messages = only(diagnostics, "LINT_FIELD_NO_EFFECT").map((d) =>
      `${d.pointer.split("/").slice(2).join("/")}: ${d.message}`
    );
    const unsupported = 'it goes with "asyncRewake", and no hook wakes the model later here';
    assertEquals(messages, [
      'PostToolUse/0/hooks/0/asyncRewake: "asyncRewake" is a Claude Code field llama-agent ' +
      "does not support: the hook runs in the foreground, the action waits for it, and its " +
      'exit 2 blocks "PostToolUse" right then, as any hook\'s does, instead of waking the ' +
      "model once the hook finishes in the background",
      'PostToolUse/0/hooks/0/rewakeMessage: "rewakeMessage" is a Claude Code field ' +
      `llama-agent does not support: ${unsupported}`,
      'PostToolUse/0/hooks/0/rewakeSummary: "rewakeSummary" is a Claude Code field ' +
      `llama-agent does not support: ${unsupported}`,
      'Notification/0/hooks/0/rewakeMessage: "rewakeMessage" is a Claude Code field ' +
      `llama-agent does not support: ${unsupported}`,
      'Notification/0/hooks/0/rewakeSummary: "rewakeSummary" is a Claude Code field ' +
      `llama-agent does not support: ${unsupported}`,
    ]);
    assert(
      !diagnostics.some((d) => d.message.includes("not a field")),
      summary(diagnostics).join("\n"),
    );
  }, { profile: "claude" });
});

Deno.test("header variables missing from allowedEnvVars are sent empty", async () => {
  const text = settings({
    Stop: [group(undefined, {
      type: "http",
      url: "https://example.com/hook",
      headers: { Authorization: "Bearer $TOKEN", "X-Trace": "${TRACE_ID}-$TOKEN" },
      allowedEnvVars: ["TRACE_ID"],
    }, { type: "http", url: "https://example.com/other", allowedEnvVars: ["TOKEN"] })],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(summary(diagnostics), [
      "warning LINT_FIELD_NO_EFFECT /hooks/Stop/0/hooks/0/headers/Authorization: " +
      'Header "Authorization" uses "$TOKEN", which "allowedEnvVars" does not list, so it is ' +
      'sent empty: add "TOKEN" to "allowedEnvVars"',
      "warning LINT_FIELD_NO_EFFECT /hooks/Stop/0/hooks/0/headers/X-Trace: " +
      'Header "X-Trace" uses "$TOKEN", which "allowedEnvVars" does not list, so it is ' +
      'sent empty: add "TOKEN" to "allowedEnvVars"',
      "warning LINT_FIELD_NO_EFFECT /hooks/Stop/0/hooks/1/allowedEnvVars: " +
      '"allowedEnvVars" has no effect without "headers": only header values are expanded',
    ]);
  });
});

Deno.test("events that never fire here are named with why, one warning per event", async () => {
  const text = settings({
    SubagentStart: [group("manual", run("a")), group(undefined, run("b"))],
    TeammateIdle: [group(undefined, run("c", { timeout: 9000 }))],
    CwdChanged: [group(undefined, run("$CLAUDE_PROJECT_DIR/missing.sh"))],
    SessionEnd: [group(undefined, run("d"))],
    PreCompact: [group("manual", run("e"))],
    PostCompact: [group(undefined, run("f"))],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(summary(diagnostics), [
      "warning LINT_EVENT_NEVER_FIRES /hooks/SubagentStart: " +
      '"SubagentStart" is accepted but never fires in llama-agent: its hooks run only in Claude ' +
      "Code",
      "warning LINT_EVENT_NEVER_FIRES /hooks/TeammateIdle: " +
      '"TeammateIdle" is accepted but never fires in llama-agent: no part of the agent emits ' +
      "it, so its hooks never run",
      "warning LINT_EVENT_NEVER_FIRES /hooks/CwdChanged: " +
      '"CwdChanged" is accepted but never fires in llama-agent: it is a newer Claude Code event ' +
      "that llama-agent does not support",
      "warning LINT_EVENT_NEVER_FIRES /hooks/SessionEnd: " +
      '"SessionEnd" never fires in the "llama" profile: it fires only with --compat claude',
      "warning LINT_EVENT_NEVER_FIRES /hooks/PreCompact: " +
      '"PreCompact" never fires in the "llama" profile: it fires only with --compat claude',
      "warning LINT_EVENT_NEVER_FIRES /hooks/PostCompact: " +
      '"PostCompact" never fires in the "llama" profile: it fires only with --compat claude',
    ]);
  });
});

Deno.test("PreCompact and PostCompact fire in the claude profile: no finding, matchers on the trigger", async () => {
  const text = settings({
    PreCompact: [group("manual", run("a")), group("auto|manual", run("b"))],
    PostCompact: [group(undefined, run("c")), group("^auto$", run("d"))],
  });
  await lintProject(
    { [PROJECT]: text },
    (diagnostics) => assertEquals(summary(diagnostics), []),
    { profile: "claude" },
  );
});

Deno.test("disableAllHooks: true turns off every file; a later false does not undo it here", async () => {
  await lintProject({
    [USER]: settings({ Stop: [group(undefined, run("u"))] }),
    [PROJECT]: settings({ Stop: [group(undefined, run("p"))] }, { disableAllHooks: true }),
    [LOCAL]: settings({ Stop: [group(undefined, run("l"))] }, { disableAllHooks: false }),
  }, (diagnostics) => {
    const found = only(diagnostics, "LINT_DISABLE_ALL_HOOKS");
    assertEquals(found.map((d) => [d.file.split("/").slice(-1)[0], d.pointer, d.line]), [
      ["settings.json", "/disableAllHooks", 2],
      ["settings.local.json", "/disableAllHooks", 2],
    ]);
    assertEquals(
      found[0]!.message,
      '"disableAllHooks": true turns off every hook of every settings file, including those ' +
        "of the user and local settings files: remove it, or set it to false, to run hooks",
    );
    assertEquals(
      found[1]!.message,
      '"disableAllHooks": false does not turn hooks back on in llama-agent: the project ' +
        "settings file says true, which keeps every hook off; Claude Code would re-enable " +
        "hooks, since this file takes precedence",
    );
    assertEquals(diagnostics.length, 2);
  });
  await lintProject({ [PROJECT]: JSON.stringify({ disableAllHooks: true }) }, (diagnostics) => {
    assertEquals(
      diagnostics[0]?.message,
      '"disableAllHooks": true turns off every hook of every settings file: remove it, or set ' +
        "it to false, to run hooks",
    );
    assertEquals(diagnostics.length, 1);
  });
});

Deno.test("project scripts that are missing or not executable are errors", async () => {
  const text = settings({
    PreToolUse: [group(
      "shell",
      run('"$CLAUDE_PROJECT_DIR"/.claude/hooks/missing.sh'),
      run("$CLAUDE_PROJECT_DIR/.claude/hooks/plain.sh --flag"),
      run('bash "$CLAUDE_PROJECT_DIR/.claude/hooks/plain.sh"'),
      run('python3 -u "${CLAUDE_PROJECT_DIR}/.claude/hooks/gone.py"'),
      run("FOO=1 exec $CLAUDE_PROJECT_DIR/.claude/hooks && echo ok"),
      run("$CLAUDE_PROJECT_DIR/.claude/hooks/gone.sh", { args: ["x"] }),
      run("node", { args: ["--no-warnings", "${CLAUDE_PROJECT_DIR}/.claude/hooks/gone.js"] }),
      run("$CLAUDE_PROJECT_DIR/.claude/hooks/run.sh; $CLAUDE_PROJECT_DIR/.claude/hooks/plain.sh"),
    )],
  });
  await lintProject({
    [PROJECT]: text,
    "project/.claude/hooks/plain.sh": { text: SCRIPT, mode: 0o644 },
    "project/.claude/hooks/run.sh": { text: SCRIPT, mode: 0o700 },
  }, (diagnostics) => {
    assertEquals(
      diagnostics.map((d) => [d.severity, d.code, d.pointer.replace("/hooks/PreToolUse/0", "")]),
      [
        ["error", "LINT_SCRIPT_MISSING", "/hooks/0/command"],
        ["error", "LINT_SCRIPT_NOT_EXECUTABLE", "/hooks/1/command"],
        ["error", "LINT_SCRIPT_MISSING", "/hooks/3/command"],
        ["error", "LINT_SCRIPT_MISSING", "/hooks/4/command"],
        ["error", "LINT_SCRIPT_MISSING", "/hooks/5/command"],
        ["error", "LINT_SCRIPT_MISSING", "/hooks/6/args/1"],
        ["error", "LINT_SCRIPT_NOT_EXECUTABLE", "/hooks/7/command"],
      ],
    );
    assertEquals(
      diagnostics[0]!.message,
      'Script "$CLAUDE_PROJECT_DIR/.claude/hooks/missing.sh" does not exist, so the hook fails ' +
        "every time it runs: create it or fix the path",
    );
    assertEquals(
      diagnostics[1]!.message,
      'Script "$CLAUDE_PROJECT_DIR/.claude/hooks/plain.sh" is not executable, so the hook fails ' +
        'every time it runs: run "chmod +x .claude/hooks/plain.sh" in the project, or run it ' +
        'through its interpreter (e.g. "bash "$CLAUDE_PROJECT_DIR/.claude/hooks/plain.sh"")',
    );
    assertStringIncludes(diagnostics[3]!.message, '.claude/hooks" is not a file');
    assert(diagnostics.every((d) => d.line !== undefined && d.column !== undefined));
  });
});

Deno.test("a stat that fails says nothing, and each path is looked at once", async () => {
  const text = settings({
    PreToolUse: [
      group("shell", run("$CLAUDE_PROJECT_DIR/a.sh"), run("$CLAUDE_PROJECT_DIR/a.sh x")),
    ],
    Stop: [group(undefined, run("$CLAUDE_PROJECT_DIR/b.sh"))],
  });
  const looked: string[] = [];
  const statFile: StatFile = (path) => {
    looked.push(path.slice(path.lastIndexOf("/")));
    if (path.endsWith("/b.sh")) return Promise.reject(new Deno.errors.PermissionDenied("no"));
    return Promise.resolve({ isFile: true, mode: null });
  };
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(diagnostics, []);
    assertEquals(looked.sort(), ["/a.sh", "/b.sh"]);
  }, { statFile });
});

Deno.test("findings are sorted by file in chain order, then line", async () => {
  await lintProject({
    [LOCAL]: settings({ PreToolUse: [group("Bash", run("a", { timeout: 3000 }))] }),
    [USER]: "// user\n" + settings({ PostToolUse: [group("Write", run("b"))] }),
    [PROJECT]: settings({ Stop: [group("x", run("c"))] }),
  }, (diagnostics) => {
    assertEquals(diagnostics.map((d) => `${d.file.split("/").slice(-3).join("/")}:${d.line}`), [
      "home/.claude/settings.json:1",
      "home/.claude/settings.json:6",
      "project/.claude/settings.json:5",
      "project/.claude/settings.local.json:5",
      "project/.claude/settings.local.json:10",
    ]);
  });
});

Deno.test("a plugin given twice in enabledPlugins is a warning: the last value, a false, turns off the first's true", async () => {
  const text = `{
  "enabledPlugins": {
    "guard@market": true,
    "guard@market": false
  },
  "extraKnownMarketplaces": {},
  "extraKnownMarketplaces": {}
}
`;
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    const repeated = only(diagnostics, "LINT_DUPLICATE_KEY");
    assertEquals(
      repeated.map((d) => `${d.line}:${d.column} ${d.pointer}`),
      ["3:5 /enabledPlugins/guard@market", "6:3 /extraKnownMarketplaces"],
    );
    assertEquals(
      repeated[0]!.message,
      'Key "guard@market" appears again at line 4, and only that last value is read, by ' +
        "llama-agent and Claude Code alike: this one is ignored; merge the two into one",
    );
  });
});

Deno.test("a repeated key is a warning at the copy that is ignored, naming the one read", async () => {
  const text = `{
  "permissions": { "allow": [] },
  "permissions": { "allow": [] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "fs_read", "hooks": [{ "type": "command", "command": "echo old" }] }
    ],
    "PreToolUse": [
      { "matcher": "shell", "hooks": [{ "type": "command", "command": "echo a", "command": "echo b" }] }
    ]
  }
}
`;
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    const repeated = only(diagnostics, "LINT_DUPLICATE_KEY");
    assertEquals(
      repeated.map((d) => `${d.line}:${d.column} ${d.pointer}`),
      ["5:5 /hooks/PreToolUse", "9:60 /hooks/PreToolUse/0/hooks/0/command"],
    );
    assertEquals(
      repeated[0]!.message,
      'Key "PreToolUse" appears again at line 8, and only that last value is read, by ' +
        "llama-agent and Claude Code alike: this one is ignored, with every hook in it; merge " +
        "the two into one",
    );
    assert(repeated.every((d) => d.severity === "warning"));
  });
});
