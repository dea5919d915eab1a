/**
 * `llama-agent hooks run EVENT`, black-box through the real launcher: real hook scripts in a temp
 * project (the launch directory), a temp HOME.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { type CliRun, REPO_ROOT, runCli, withTempProject } from "../helpers/run_cli.ts";
import { lineOf } from "../hooks/temp_chain.ts";
import { linkToDevZero, makeFifo } from "../hooks/special_files.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FIRED = "SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, " +
  "Notification, Stop";

function script(body: string) {
  return { text: `#!/bin/sh\n${body}\n`, mode: 0o755 };
}

// Each handler on a line of its own: a registration's line is where its handler object starts.
const SETTINGS = `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "shell", "hooks": [{ "type": "command", "command": "./hooks/deny.sh" }] },
      { "matcher": "shell", "hooks": [{ "type": "command", "command": "./hooks/record.sh" }] },
      { "matcher": "terminal", "hooks": [
        { "type": "command", "command": "./hooks/record.sh other" }
      ] }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "./hooks/record.sh" }] }]
  }
}
`;

const FILES = {
  "home/.keep": "",
  "project/.claude/settings.json": SETTINGS,
  "project/hooks/deny.sh": script(
    'cat > /dev/null\necho "a log line on stdout"\necho "rm is not allowed" >&2\nexit 2',
  ),
  // Copies what it received; `received.json` exists only when some hook ran.
  "project/hooks/record.sh": script(
    'cat > received.json\nprintf "%s" "$CLAUDE_CODE_SESSION_ID" > session_id.txt',
  ),
};

interface Dirs {
  readonly home: string;
  readonly project: string;
}

function inProject(
  extra: Readonly<Record<string, string | { text: string; mode: number }>>,
  fn: (dirs: Dirs) => Promise<void>,
): Promise<void> {
  return withTempProject(
    { ...FILES, ...extra },
    (root) => fn({ home: `${root}/home`, project: `${root}/project` }),
  );
}

function run(dirs: Dirs, args: readonly string[], env?: Record<string, string>): Promise<CliRun> {
  return runCli(["hooks", "run", ...args], {
    cwd: dirs.project,
    home: dirs.home,
    ...(env === undefined ? {} : { env }),
  });
}

const RM = JSON.stringify({ tool_name: "shell", tool_input: { command: "rm -rf /" } });

async function received(dirs: Dirs): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(await Deno.readTextFile(`${dirs.project}/received.json`));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

Deno.test("a denying hook: exit code, stderr excerpt, outcome and Decision: deny with the reason", async () => {
  await inProject({}, async (dirs) => {
    const result = await run(dirs, ["PreToolUse", "--input", RM]);
    assertEquals([result.code, result.stderr], [0, ""]);
    const lines = result.stdout.split("\n");
    assertEquals(lines[0], 'PreToolUse (matcher value "shell"): 2 of 3 hooks ran');
    const first = lines.indexOf("[1] command: ./hooks/deny.sh");
    assert(first > 0, result.stdout);
    assertEquals(
      lines[first + 1],
      `    from .claude/settings.json:${lineOf(SETTINGS, "deny.sh")} ` +
        "(project:/hooks/PreToolUse/0/hooks/0)",
    );
    assertMatch(lines[first + 2]!, /^ {4}exit 2 in \d+ ms$/);
    assertEquals(lines.slice(first + 3, first + 8), [
      "    stdout:",
      "      | a log line on stdout",
      "    stderr:",
      "      | rm is not allowed",
      "    outcome: blocks (exit_2): [./hooks/deny.sh]: rm is not allowed",
    ]);
    assertStringIncludes(result.stdout, "\n[2] command: ./hooks/record.sh\n");
    assertMatch(result.stdout, /\n {4}exit 0 in \d+ ms\n {4}outcome: success, no output\n/);
    assertStringIncludes(
      result.stdout,
      `\nNot run:\n  .claude/settings.json:${lineOf(SETTINGS, "record.sh other")}  ` +
        'matcher "terminal" does not match "shell"\n',
    );
    assert(
      result.stdout.endsWith(
        "\nDecision: deny (by project:/hooks/PreToolUse/0/hooks/0)\n" +
          "  reason: [./hooks/deny.sh]: rm is not allowed\n",
      ),
      result.stdout,
    );
  });
});

Deno.test("--json: runs with result and outcome, notRun with reasons, the decision's verdict", async () => {
  await inProject({}, async (dirs) => {
    const result = await run(dirs, ["PreToolUse", "--input", RM, "--json"]);
    assertEquals([result.code, result.stderr], [0, ""]);
    const json = JSON.parse(result.stdout);
    assertEquals(json.event, "PreToolUse");
    assertEquals(json.matcherValue, "shell");
    assertEquals(json.cwd, dirs.project);
    assertEquals(json.runs.map((r: { id: string }) => r.id), [
      "project:/hooks/PreToolUse/0/hooks/0",
      "project:/hooks/PreToolUse/1/hooks/0",
    ]);
    const [deny, record] = json.runs;
    assertEquals(deny.result.kind, "exited");
    assertEquals(deny.result.exitCode, 2);
    assertEquals(deny.result.signal, null);
    assertEquals(deny.result.stderr, { text: "rm is not allowed\n", discardedBytes: 0 });
    assertEquals(deny.outcome.kind, "block");
    assertEquals(deny.outcome.cause, "exit_2");
    assertEquals(deny.outcome.reason, "[./hooks/deny.sh]: rm is not allowed");
    assertEquals("registration" in deny.outcome, false);
    assertEquals(deny.handler, { type: "command", command: "./hooks/deny.sh" });
    assertEquals([record.result.exitCode, record.outcome.kind], [0, "success"]);
    assertEquals(json.notRun, [{
      id: "project:/hooks/PreToolUse/2/hooks/0",
      reason: 'matcher "terminal" does not match "shell"',
    }]);
    assertEquals(json.decision.verdict.kind, "block");
    assertEquals(json.decision.verdict.reason, "[./hooks/deny.sh]: rm is not allowed");
    assertEquals(json.diagnostics, []);
  });
});

Deno.test("--input @file reads the event fields from a file, relative or absolute", async () => {
  await inProject({ "project/input.json": RM }, async (dirs) => {
    for (const flag of ["@input.json", `@${dirs.project}/input.json`]) {
      const result = await run(dirs, ["PreToolUse", "--input", flag, "--json"]);
      assertEquals([result.code, result.stderr], [0, ""], flag);
      assertEquals(JSON.parse(result.stdout).decision.verdict.kind, "block", flag);
      assertEquals((await received(dirs))?.tool_input, { command: "rm -rf /" }, flag);
    }
    const missing = await run(dirs, ["PreToolUse", "--input", "@nope.json"]);
    assertEquals([missing.code, missing.stdout], [2, ""]);
    assertMatch(missing.stderr, /^Cannot read --input file "nope\.json": .+\n$/);
  });
});

Deno.test("--input @file is read only when it is a regular file of at most 4 MiB", async () => {
  await inProject({}, async (dirs) => {
    await linkToDevZero(`${dirs.project}/zero.json`);
    await makeFifo(`${dirs.project}/fifo.json`);
    const cases: [string, RegExp][] = [
      ["@zero.json", /^Cannot read --input file "zero\.json": it is a character device/],
      ["@fifo.json", /^Cannot read --input file "fifo\.json": it is a FIFO/],
    ];
    for (const [flag, message] of cases) {
      const result = await run(dirs, ["PreToolUse", "--input", flag]);
      assertEquals([result.code, result.stdout], [2, ""], flag);
      assertMatch(result.stderr, message, flag);
      assertEquals(await received(dirs), null, flag);
    }
  });
});

Deno.test("the hook receives the common fields filled in, then the given fields", async () => {
  await inProject({}, async (dirs) => {
    const result = await run(dirs, ["PreToolUse", "--input", RM]);
    assertEquals(result.code, 0, result.stderr);
    const payload = await received(dirs);
    assert(payload !== null, "the hook ran");
    assertEquals(Object.keys(payload), [
      "session_id",
      "transcript_path",
      "cwd",
      "prompt_id",
      "permission_mode",
      "hook_event_name",
      "tool_name",
      "tool_input",
      "tool_use_id",
    ]);
    const sessionId = String(payload.session_id);
    assertMatch(sessionId, UUID);
    assertEquals(
      payload.transcript_path,
      `${dirs.home}/.local/state/llama-agent/sessions/${sessionId}/raw.jsonl`,
    );
    assertEquals(payload.cwd, dirs.project);
    assertMatch(String(payload.prompt_id), UUID);
    assertEquals(payload.permission_mode, "acceptEdits");
    assertEquals(payload.hook_event_name, "PreToolUse");
    assertEquals(payload.tool_name, "shell");
    assertEquals(payload.tool_input, { command: "rm -rf /" });
    assertMatch(String(payload.tool_use_id), /^toolu_/);
    assertEquals(await Deno.readTextFile(`${dirs.project}/session_id.txt`), sessionId);
  });
});

Deno.test("a session_id in the input is the session's id; XDG_STATE_HOME moves the transcript", async () => {
  await inProject({}, async (dirs) => {
    const input = JSON.stringify({ session_id: "my-session", last_assistant_message: "done" });
    const state = `${dirs.home}/state`;
    const result = await run(dirs, ["Stop", "--input", input], { XDG_STATE_HOME: state });
    assertEquals(result.code, 0, result.stderr);
    const { prompt_id: promptId, ...payload } = (await received(dirs)) ?? {};
    assertMatch(String(promptId), UUID);
    assertEquals(payload, {
      session_id: "my-session",
      transcript_path: `${state}/llama-agent/sessions/my-session/raw.jsonl`,
      cwd: dirs.project,
      permission_mode: "acceptEdits",
      hook_event_name: "Stop",
      stop_hook_active: false,
      last_assistant_message: "done",
      background_tasks: [],
      session_crons: [],
    });
    assertEquals(await Deno.readTextFile(`${dirs.project}/session_id.txt`), "my-session");
  });
});

Deno.test("SessionStart: no prompt_id or permission_mode, source defaults to startup", async () => {
  const start = {
    hooks: { SessionStart: [{ hooks: [{ type: "command", command: "./hooks/record.sh" }] }] },
  };
  await inProject(
    { "project/.claude/settings.local.json": JSON.stringify(start) },
    async (dirs) => {
      const result = await run(dirs, ["SessionStart"]);
      assertEquals([result.code, result.stderr], [0, ""]);
      assertEquals(
        result.stdout.split("\n")[0],
        'SessionStart (matcher value "startup"): 1 of 1 hooks ran',
      );
      const payload = await received(dirs);
      assertEquals(Object.keys(payload ?? {}), [
        "session_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "source",
      ]);
      assertEquals(payload?.source, "startup");
    },
  );
});

/** What the project's own hooks, written for llama-agent's tools, decide under `auto`. */
const AUTO =
  `llama (auto: the hooks name llama-agent's tools in matcher "shell", matcher "terminal")`;

Deno.test("bad input is exit 2 with a clear message, and no hook runs", async () => {
  const cases: [string[], string | RegExp][] = [
    [["PreToolUse", "--input", "{nope"], /^Invalid JSON in --input: .+\n$/],
    [["PreToolUse", "--input", "[1]"], "--input must be a JSON object\n"],
    [["PreToolUse", "--input", "null"], "--input must be a JSON object\n"],
    [["PreToolUse", "--input", '"shell"'], "--input must be a JSON object\n"],
    [["Frobnicate"], `Unknown event "Frobnicate": use one of ${FIRED}\n`],
    [["pretooluse", "--input", RM], `Unknown event "pretooluse": use one of ${FIRED}\n`],
    [
      ["SessionEnd"],
      `"SessionEnd" cannot be run: it fires only with --compat claude, and the profile is ${AUTO}; ` +
      `events that fire: ${FIRED}\n`,
    ],
    [
      ["PreCompact"],
      `"PreCompact" cannot be run: it fires only with --compat claude, and the profile is ${AUTO}; ` +
      `events that fire: ${FIRED}\n`,
    ],
    [
      ["PostCompact"],
      `"PostCompact" cannot be run: it fires only with --compat claude, and the profile is ${AUTO}; ` +
      `events that fire: ${FIRED}\n`,
    ],
    [
      ["SubagentStart"],
      `"SubagentStart" cannot be run: dropped (never fires in llama-agent); events that fire: ${FIRED}\n`,
    ],
    [["TeammateIdle"], /^"TeammateIdle" cannot be run: never emitted .*; events that fire: .+\n$/],
    [
      ["PreToolUse", "--input", '{"tool_input":{"command":"ls"}}'],
      'Invalid --input: "tool_name" is required for PreToolUse: give it in the input\n',
    ],
    [["PreToolUse"], /^Invalid --input: "tool_name" is required for PreToolUse/],
    [
      ["SessionStart", "--input", '{"source":1}'],
      'Invalid --input: "source" must be a string for SessionStart\n',
    ],
  ];
  await inProject({}, async (dirs) => {
    for (const [args, expected] of cases) {
      const result = await run(dirs, args);
      const what = args.join(" ");
      assertEquals([result.code, result.stdout], [2, ""], what);
      if (typeof expected === "string") assertEquals(result.stderr, expected, what);
      else assertMatch(result.stderr, expected, what);
      assertEquals(await received(dirs), null, `${what}: a hook ran`);
    }
  });
});

Deno.test("hook output never leaks into the command's stdout or stderr, only into the report", async () => {
  const noisy = {
    hooks: {
      PostToolUse: [{
        hooks: [{ type: "command", command: "./hooks/noisy.sh" }],
      }],
    },
  };
  const body = [
    "cat > /dev/null",
    'echo "MARK-out-1"',
    'echo "MARK-err-1" >&2',
    '(sleep 0.1; echo "MARK-late"; echo "MARK-late-err" >&2) &',
    'echo "MARK-out-2"',
  ].join("\n");
  await inProject({
    "project/.claude/settings.local.json": JSON.stringify(noisy),
    "project/hooks/noisy.sh": script(body),
  }, async (dirs) => {
    const input = '{"tool_name":"fs_read"}';
    const text = await run(dirs, ["PostToolUse", "--input", input]);
    assertEquals([text.code, text.stderr], [0, ""]);
    const marked = text.stdout.split("\n").filter((line) => line.includes("MARK"));
    assert(marked.length >= 3, text.stdout);
    for (const line of marked) assertMatch(line, /^ {6}\| MARK-/, "outside a stream excerpt");

    const json = await run(dirs, ["PostToolUse", "--input", input, "--json"]);
    assertEquals([json.code, json.stderr], [0, ""]);
    const report = JSON.parse(json.stdout);
    assertStringIncludes(report.runs[0].result.stdout.text, "MARK-out-1\nMARK-out-2\n");
    assertStringIncludes(report.runs[0].result.stderr.text, "MARK-err-1\n");
  });
});

Deno.test("problems in the settings chain are counted on stderr as hooks lint counts them; the event still fires", async () => {
  const broken = { hooks: { Stop: [{ matcher: 5, hooks: [] }], Nope: [] } };
  await inProject(
    { "project/.claude/settings.local.json": JSON.stringify(broken) },
    async (dirs) => {
      const result = await run(dirs, ["Stop", "--json"]);
      assertEquals(result.code, 0);
      assertEquals(
        result.stderr,
        // The three invalid entries, and lint's warning that Claude Code drops the whole file.
        '3 errors, 1 warning in the settings chain: run "llama-agent hooks lint" for details\n',
      );
      const json = JSON.parse(result.stdout);
      assertEquals(json.runs.length, 1);
      assertEquals(json.diagnostics.length, 4);
      assert((await received(dirs)) !== null, "the valid Stop hook ran");
    },
  );
});

Deno.test("a flooding hook's report keeps an excerpt and says how much was discarded", async () => {
  const flood = {
    hooks: {
      PostToolUse: [{
        hooks: [{ type: "command", command: `${REPO_ROOT}/fixtures/hooks/flood_stdout.sh` }],
      }],
    },
  };
  await inProject(
    { "project/.claude/settings.local.json": JSON.stringify(flood) },
    async (dirs) => {
      const result = await run(dirs, ["PostToolUse", "--input", '{"tool_name":"shell"}']);
      assertEquals([result.code, result.stderr], [0, ""]);
      assertStringIncludes(result.stdout, `      | (${49 * 1024 * 1024} more bytes discarded)\n`);
      assertStringIncludes(result.stdout, "    stderr:\n      | flood done\n");
      assert(result.stdout.length < 10_000, "the report holds an excerpt, not the flood");
    },
  );
});

const IF_SETTINGS = `{
  "hooks": {
    "PreToolUse": [{ "hooks": [
      { "type": "command", "command": "./hooks/record.sh", "if": "Bash(git commit:*)" }
    ] }]
  }
}
`;

const bashInput = (command: string) =>
  JSON.stringify({ tool_name: "Bash", tool_input: { command } });

Deno.test('--compat claude: a hook with "if": "Bash(git commit:*)" runs for a commit, not for ls', async () => {
  await inProject({ "project/.claude/settings.json": IF_SETTINGS }, async (dirs) => {
    const ls = await run(dirs, [
      "PreToolUse",
      "--compat",
      "claude",
      "--input",
      bashInput("ls"),
      "--json",
    ]);
    assertEquals([ls.code, ls.stderr], [0, ""]);
    assertEquals(JSON.parse(ls.stdout).notRun, [{
      id: "project:/hooks/PreToolUse/0/hooks/0",
      reason: 'if "Bash(git commit:*)" does not match',
    }]);
    assertEquals(await received(dirs), null);

    const commit = await run(dirs, [
      "PreToolUse",
      "--compat",
      "claude",
      "--input",
      bashInput("git commit -m x"),
    ]);
    assertEquals(commit.code, 0, commit.stderr);
    const payload = await received(dirs);
    assert(payload !== null, "the hook ran");
    assertEquals(payload.tool_input, { command: "git commit -m x" });
    // The claude profile sends Claude Code's effort level after permission_mode.
    assertEquals(Object.keys(payload).slice(4, 7), [
      "permission_mode",
      "effort",
      "hook_event_name",
    ]);
    assertEquals(payload.effort, { level: "medium" });
  });
});

Deno.test('without --compat (profile llama) a "Bash(...)" rule never matches; the rule names "shell"', async () => {
  const settings = IF_SETTINGS.replace("Bash(git commit:*)", "shell(git commit:*)");
  await inProject({ "project/.claude/settings.json": settings }, async (dirs) => {
    const asBash = await run(dirs, ["PreToolUse", "--input", bashInput("git commit -m x")]);
    assertEquals(asBash.code, 0, asBash.stderr);
    assertEquals(await received(dirs), null);
    const input = JSON.stringify({
      tool_name: "shell",
      tool_input: { command: "git commit -m x" },
    });
    const asShell = await run(dirs, ["PreToolUse", "--input", input]);
    assertEquals(asShell.code, 0, asShell.stderr);
    const payload = await received(dirs);
    assert(payload !== null, "the hook ran");
    assertEquals("effort" in payload, false);
  });
});

Deno.test("--compat takes only a known profile", async () => {
  await inProject({}, async (dirs) => {
    const result = await run(dirs, ["PreToolUse", "--compat", "codex", "--input", RM]);
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, "codex");
    assertEquals(await received(dirs), null);
  });
});

const COMPACT_SETTINGS = JSON.stringify({
  hooks: {
    PreCompact: [
      { matcher: "manual", hooks: [{ type: "command", command: "./hooks/record.sh" }] },
      { matcher: "auto", hooks: [{ type: "command", command: "./hooks/deny.sh" }] },
    ],
  },
});

Deno.test("--compat claude: PreCompact's matcher is the trigger, its payload Claude Code's, exit 2 blocks", async () => {
  await inProject({ "project/.claude/settings.json": COMPACT_SETTINGS }, async (dirs) => {
    const input = JSON.stringify({ trigger: "manual", custom_instructions: "keep the API notes" });
    const manual = await run(dirs, ["PreCompact", "--compat", "claude", "--input", input]);
    assertEquals(manual.code, 0, manual.stderr);
    const payload = await received(dirs);
    assert(payload !== null, "the manual hook ran");
    // No permission_mode and no effort: Claude Code sends neither on compaction hooks.
    assertEquals(Object.keys(payload), [
      "session_id",
      "transcript_path",
      "cwd",
      "prompt_id",
      "hook_event_name",
      "trigger",
      "custom_instructions",
    ]);
    assertEquals(
      [payload.hook_event_name, payload.trigger, payload.custom_instructions],
      ["PreCompact", "manual", "keep the API notes"],
    );
    await Deno.remove(`${dirs.project}/received.json`);

    const auto = await run(dirs, [
      "PreCompact",
      "--compat",
      "claude",
      "--input",
      '{"trigger":"auto"}',
      "--json",
      "--exit-code",
    ]);
    assertEquals(auto.code, 1, auto.stderr);
    const json = JSON.parse(auto.stdout);
    assertEquals(json.matcherValue, "auto");
    assertEquals(json.decision.verdict.reason, "[./hooks/deny.sh]: rm is not allowed");
    assertEquals(await received(dirs), null);
  });
});
