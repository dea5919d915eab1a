/**
 * The whole engine with real settings files and real hook processes: where hooks come from
 * (hooks.md §1), which fire for a tool (§3), and what a command hook runs with (§7).
 * Decisions: engine_integration_decisions_test.ts; failures: engine_integration_failures_test.ts.
 */
import { assertEquals } from "../helpers/assert.ts";
import {
  exists,
  fire,
  group,
  PROMPT_ID,
  ranIds,
  SESSION_ID,
  settings,
  withProject,
} from "./engine_project.ts";

/** Records that it ran (`out/<name>`), after reading its stdin. */
const MARK = 'cat > /dev/null\ntouch "out/$1"';
/** Answers with `$1` as its additionalContext. */
const SAY = `cat > /dev/null\nprintf '{"additionalContext":"%s"}' "$1"`;

Deno.test("user, project and local hooks of one event all fire, reported in chain order", async () => {
  await withProject({
    // The user hook finishes last: the order reported is chain order, not finishing order.
    user: settings({ PreToolUse: [group("shell", "sleep 0.3; ./hooks/say.sh user")] }),
    project: settings({ PreToolUse: [group("shell", "./hooks/say.sh project")] }),
    local: settings({ PreToolUse: [group(undefined, "./hooks/say.sh local")] }),
    scripts: { "say.sh": SAY },
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    assertEquals(ranIds(firing), [
      "user:/hooks/PreToolUse/0/hooks/0",
      "project:/hooks/PreToolUse/0/hooks/0",
      "local:/hooks/PreToolUse/0/hooks/0",
    ]);
    assertEquals(firing.decision.contexts, [
      { by: "user:/hooks/PreToolUse/0/hooks/0", text: "user" },
      { by: "project:/hooks/PreToolUse/0/hooks/0", text: "project" },
      { by: "local:/hooks/PreToolUse/0/hooks/0", text: "local" },
    ]);
    assertEquals(firing.decision.verdict, { kind: "none" });
  });
});

Deno.test("disableAllHooks: true in the local file turns off user and project hooks", async () => {
  await withProject({
    user: settings({ PreToolUse: [group("shell", "./hooks/mark.sh user")] }),
    project: settings({ PreToolUse: [group("shell", "./hooks/mark.sh project")] }),
    local: settings({ Stop: [group(undefined, "./hooks/mark.sh local")] }, {
      disableAllHooks: true,
    }),
    scripts: { "mark.sh": MARK },
  }, async (project) => {
    const tool = await fire(project, "PreToolUse", { tool_name: "shell" });
    const stop = await fire(project, "Stop", {});
    assertEquals(tool.hooks.registry.disabledBy, [project.localFile]);
    assertEquals(tool.hooks.registry.registrations, []);
    assertEquals(
      tool.hooks.registry.notRegistered.map((entry) => [entry.status, entry.source.scope]),
      [["disabled", "user"], ["disabled", "project"], ["disabled", "local"]],
    );
    for (const { firing, selection } of [tool, stop]) {
      assertEquals(selection, { matched: [], unmatched: [] });
      assertEquals(firing.runs, []);
      assertEquals(firing.decision.verdict, { kind: "none" });
    }
    for (const name of ["user", "project", "local"]) {
      assertEquals(await exists(`${project.out}/${name}`), false, `${name} hook ran`);
    }
  });
});

Deno.test("a bad entry or a bad regex skips only itself: its neighbours still fire", async () => {
  await withProject({
    user: settings({ PreToolUse: [group("shell", "./hooks/mark.sh user")] }),
    project: settings({
      PreToolUse: [
        group("shell", "./hooks/mark.sh first"),
        group("(", "./hooks/mark.sh bad-regex"),
        group(
          "shell",
          { type: "command", command: "./hooks/mark.sh bad-timeout", timeout: "5" },
          "./hooks/mark.sh sibling",
        ),
        group("shell", { type: "webhook", command: "./hooks/mark.sh bad-type" }),
      ],
      Bogus: [group(undefined, "./hooks/mark.sh unknown-event")],
      Stop: [group(undefined, "./hooks/mark.sh other-event")],
    }),
    scripts: { "mark.sh": MARK },
  }, async (project) => {
    const { hooks, firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    assertEquals(
      hooks.loaded.diagnostics.map((d) => [d.code, d.file, d.pointer]),
      [
        ["MATCHER_INVALID", project.projectFile, "/hooks/PreToolUse/1/matcher"],
        ["HANDLER_INVALID", project.projectFile, "/hooks/PreToolUse/2/hooks/0/timeout"],
        ["HANDLER_INVALID", project.projectFile, "/hooks/PreToolUse/3/hooks/0/type"],
        ["EVENT_UNKNOWN", project.projectFile, "/hooks/Bogus"],
      ],
    );
    assertEquals(ranIds(firing), [
      "user:/hooks/PreToolUse/0/hooks/0",
      "project:/hooks/PreToolUse/0/hooks/0",
      "project:/hooks/PreToolUse/2/hooks/1",
    ]);
    const ran = [];
    for (const name of ["user", "first", "sibling", "bad-regex", "bad-timeout", "bad-type"]) {
      if (await exists(`${project.out}/${name}`)) ran.push(name);
    }
    assertEquals(ran, ["user", "first", "sibling"]);
    await fire(project, "Stop", {});
    assertEquals(await exists(`${project.out}/other-event`), true, "the Stop hook still fires");
  });
});

Deno.test("the same handler in the user and the project file runs once per firing", async () => {
  const count = { type: "command", command: "./hooks/count.sh" };
  await withProject({
    user: settings({ PreToolUse: [group("shell", count)] }),
    project: settings({ PreToolUse: [group("shell|terminal", count)] }),
    scripts: { "count.sh": 'cat > /dev/null\necho "$CLAUDE_CODE_SESSION_ID" >> out/count' },
  }, async (project) => {
    const { firing, selection } = await fire(project, "PreToolUse", { tool_name: "shell" });
    assertEquals(ranIds(firing), ["user:/hooks/PreToolUse/0/hooks/0"]);
    assertEquals(
      selection.unmatched.map((u) => [u.registration.id, u.reason]),
      [["project:/hooks/PreToolUse/0/hooks/0", "duplicate of user:/hooks/PreToolUse/0/hooks/0"]],
    );
    assertEquals(await Deno.readTextFile(`${project.out}/count`), `${SESSION_ID}\n`);

    // Dedup comes after matching: where only the project copy matches, it runs.
    const terminal = await fire(project, "PreToolUse", { tool_name: "terminal" });
    assertEquals(ranIds(terminal.firing), ["project:/hooks/PreToolUse/0/hooks/0"]);
    assertEquals(await Deno.readTextFile(`${project.out}/count`), `${SESSION_ID}\n`.repeat(2));
  });
});

Deno.test("exact-name lists and regexes against the tool names of this agent", async () => {
  await withProject({
    project: settings({
      PreToolUse: [
        group("shell", "./hooks/say.sh shell-only"),
        group("shell|terminal", "./hooks/say.sh shell-or-terminal"),
        group("mcp__sah__.*", "./hooks/say.sh sah"),
        group("^fs_", "./hooks/say.sh fs-regex"),
        group("Bash", "./hooks/say.sh claude-bash"),
        group(undefined, "./hooks/say.sh any"),
      ],
    }),
    scripts: { "say.sh": SAY },
  }, async (project) => {
    const expected: [string, string[]][] = [
      ["shell", ["shell-only", "shell-or-terminal", "any"]],
      ["terminal", ["shell-or-terminal", "any"]],
      ["shell2", ["any"]],
      ["mcp__sah__search", ["sah", "any"]],
      ["mcp__sah__", ["sah", "any"]],
      ["mcp__other__search", ["any"]],
      ["fs_read", ["fs-regex", "any"]],
      ["read_file", ["any"]],
      ["Bash", ["claude-bash", "any"]],
      ["bash", ["any"]],
    ];
    for (const [toolName, contexts] of expected) {
      const { firing } = await fire(project, "PreToolUse", { tool_name: toolName });
      assertEquals(firing.decision.contexts.map((c) => c.text), contexts, toolName);
    }
    const { selection } = await fire(project, "PreToolUse", { tool_name: "terminal" });
    assertEquals(selection.unmatched[0]?.reason, 'matcher "shell" does not match "terminal"');
  });
});

Deno.test("the same matchers decide PostToolUse and PostToolUseFailure", async () => {
  await withProject({
    project: settings({
      PostToolUse: [group("shell", "./hooks/say.sh post-shell")],
      PostToolUseFailure: [group("shell|terminal", "./hooks/say.sh failure-shell-or-terminal")],
    }),
    scripts: { "say.sh": SAY },
  }, async (project) => {
    const post = await fire(project, "PostToolUse", { tool_name: "terminal" });
    assertEquals(post.firing.runs, []);
    const failure = await fire(project, "PostToolUseFailure", { tool_name: "terminal" });
    assertEquals(failure.firing.decision.contexts.map((c) => c.text), [
      "failure-shell-or-terminal",
    ]);
  });
});

Deno.test("a command hook runs in the session cwd, with CLAUDE_PROJECT_DIR and the session id", async () => {
  const script = [
    "pwd -P > out/cwd",
    'printf "%s" "$CLAUDE_PROJECT_DIR" > out/project_dir',
    'printf "%s" "$CLAUDE_CODE_SESSION_ID" > out/session_id',
    "cat > out/stdin",
  ].join("\n");
  await withProject({
    // A user-level hook: it runs in the session cwd too, not in HOME.
    user: settings({
      PreToolUse: [group("shell", { type: "command", command: "./hooks/env.sh" })],
    }),
    scripts: { "env.sh": script },
  }, async (project) => {
    const { firing, payload } = await fire(project, "PreToolUse", {
      tool_name: "shell",
      tool_input: { command: "ls -la", timeout: 10 },
    });
    assertEquals(firing.runs[0]?.outcome.kind, "success");
    assertEquals(await Deno.readTextFile(`${project.out}/cwd`), `${project.cwd}\n`);
    assertEquals(await Deno.readTextFile(`${project.out}/project_dir`), project.cwd);
    assertEquals(await Deno.readTextFile(`${project.out}/session_id`), SESSION_ID);
    assertEquals(payload.cwd, project.cwd);
    assertEquals(payload.prompt_id, PROMPT_ID);
  });
});

Deno.test("stdin is exactly the payload as one JSON line, then end of file", async () => {
  await withProject({
    project: settings({ UserPromptSubmit: [group(undefined, "./hooks/copy.sh")] }),
    // `cat` ends only at end of file: a stdin left open would hang the hook into its timeout.
    scripts: { "copy.sh": "cat > out/stdin\necho done" },
  }, async (project) => {
    const prompt = 'multi\nline "quoted" ünïcode';
    const { firing, payload } = await fire(project, "UserPromptSubmit", { prompt });
    const stdin = await Deno.readTextFile(`${project.out}/stdin`);
    assertEquals(stdin, JSON.stringify(payload) + "\n");
    assertEquals(stdin.split("\n").length, 2, "one line, then the newline");
    assertEquals(JSON.parse(stdin), {
      session_id: SESSION_ID,
      transcript_path: `${project.home}/.local/state/llama-agent/sessions/${SESSION_ID}/raw.jsonl`,
      cwd: project.cwd,
      prompt_id: PROMPT_ID,
      permission_mode: "acceptEdits",
      hook_event_name: "UserPromptSubmit",
      prompt,
    });
    assertEquals(firing.decision.texts.map((t) => t.text), ["done"]);
  });
});

Deno.test("a command runs under /bin/sh whatever $SHELL or a shell field says; extra fields are ignored", async () => {
  await withProject({
    project: settings({
      Stop: [group(undefined, {
        type: "command",
        command: 'cat > /dev/null; echo "$0" > out/shell; echo done',
        shell: "bash",
        async: true,
        statusMessage: "Checking...",
        once: true,
      })],
    }),
  }, async (project) => {
    const { firing } = await fire(project, "Stop", {}, {
      baseEnv: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", SHELL: "/bin/bash" },
    });
    assertEquals(firing.runs.map((run) => run.outcome.kind), ["success"]);
    assertEquals(await Deno.readTextFile(`${project.out}/shell`), "/bin/sh\n");
  });
});

Deno.test("command + args is spawned directly: arguments are passed verbatim, no shell", async () => {
  await withProject({
    project: settings({
      Stop: [group(undefined, {
        type: "command",
        command: "./hooks/args.sh",
        args: ["two words", "$HOME", "; touch out/injected"],
      })],
    }),
    scripts: {
      "args.sh": `cat > /dev/null\nfor a in "$@"; do printf '%s\\n' "$a"; done > out/args`,
    },
  }, async (project) => {
    const { firing } = await fire(project, "Stop", {});
    assertEquals(firing.runs.map((run) => run.outcome.kind), ["success"]);
    assertEquals(
      await Deno.readTextFile(`${project.out}/args`),
      "two words\n$HOME\n; touch out/injected\n",
    );
    assertEquals(await exists(`${project.out}/injected`), false);
  });
});
