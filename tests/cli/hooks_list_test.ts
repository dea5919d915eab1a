/**
 * `llama-agent hooks list`, black-box through the real launcher: a temp project as the launch
 * directory (or its parent), a temp HOME with the user settings file.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { type CliRun, runCli, withTempProject } from "../helpers/run_cli.ts";
import { lineOf } from "../hooks/temp_chain.ts";

// Each handler on a line of its own: a registration's line is where its handler object starts.
const USER = `{
  "model": "ignored",
  "hooks": {
    "PreToolUse": [
      { "matcher": "shell", "hooks": [
        { "type": "command", "command": "./hooks/guard.sh" }
      ] }
    ]
  }
}
`;

const PROJECT = `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "shell|terminal", "hooks": [
        { "type": "http", "url": "http://127.0.0.1:9/hook" }
      ] },
      {
        "matcher": "(",
        "hooks": [{ "type": "command", "command": "./bad-regex.sh" }]
      },
      { "hooks": [
        { "type": "command", "command": "./bad-timeout.sh",
          "timeout": "5" }
      ] }
    ],
    "Stop": [{ "hooks": [
      { "type": "prompt", "prompt": "Is the work done?" }
    ] }],
    "SessionEnd": [{ "hooks": [{ "type": "command", "command": "./end.sh" }] }],
    "PostCompact": [{ "hooks": [{ "type": "command", "command": "./compact.sh" }] }],
    "FileChanged": [{ "hooks": [{ "type": "command", "command": "./changed.sh" }] }],
    "Bogus": [{ "hooks": [{ "type": "command", "command": "./bogus.sh" }] }]
  }
}
`;

const FILES = {
  "home/.claude/settings.json": USER,
  "project/.claude/settings.json": PROJECT,
};

interface Dirs {
  readonly root: string;
  readonly home: string;
  readonly project: string;
}

/** `<tmp>/home` is HOME, `<tmp>/project` the project; `launch` is relative to `<tmp>`. */
function inTemp(
  files: Readonly<Record<string, string>>,
  fn: (dirs: Dirs) => Promise<void>,
): Promise<void> {
  return withTempProject(
    { "home/.keep": "", "project/.keep": "", ...files },
    (root) => fn({ root, home: `${root}/home`, project: `${root}/project` }),
  );
}

function list(dirs: Dirs, args: readonly string[] = [], launch = dirs.project): Promise<CliRun> {
  return runCli(["hooks", "list", ...args], { cwd: launch, home: dirs.home });
}

/** The one stdout line that contains `needle`. */
function lineWith(stdout: string, needle: string): string {
  const lines = stdout.split("\n").filter((line) => line.includes(needle));
  assertEquals(lines.length, 1, `lines with ${JSON.stringify(needle)} in:\n${stdout}`);
  return lines[0]!;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A table row: matcher, handler type, summary, file:line and status, separated by spaces; the
 * status is given as a pattern when only part of its wording is fixed.
 */
function row(cells: readonly string[], status?: string): RegExp {
  const all = [...cells.map(escape), ...(status === undefined ? [] : [status])];
  return new RegExp(`^  ${all.join("\\s+")}$`);
}

Deno.test("the table lists each registration with event, matcher, handler, file:line and status", async () => {
  await inTemp(FILES, async (dirs) => {
    const result = await list(dirs);
    assertEquals(result.stderr, "");
    assertEquals(result.code, 0);
    const out = result.stdout;
    assertEquals(out.split("\n")[0], `Settings chain for ${dirs.project}`);
    assertMatch(
      lineWith(out, "  user "),
      /^ {2}user\s+~\/\.claude\/settings\.json\s+\(?loaded\)?$/,
    );
    assertMatch(
      lineWith(out, "  project "),
      /^ {2}project\s+\.claude\/settings\.json\s+\(?loaded\)?$/,
    );
    assertMatch(
      lineWith(out, "  local "),
      /^ {2}local\s+\.claude\/settings\.local\.json\s+\(?missing\)?$/,
    );

    const userLine = lineOf(USER, "./hooks/guard.sh");
    const at = (needle: string) => `.claude/settings.json:${lineOf(PROJECT, needle)}`;
    assertMatch(
      lineWith(out, "guard.sh"),
      row(["shell", "command", "./hooks/guard.sh", `~/.claude/settings.json:${userLine}`, "fires"]),
    );
    assertMatch(
      lineWith(out, "127.0.0.1:9"),
      row([
        "shell|terminal",
        "http",
        "POST http://127.0.0.1:9/hook",
        at("http://127.0.0.1:9/hook"),
        "fires",
      ]),
    );
    assertMatch(
      lineWith(out, "Is the work done?"),
      row(["*", "prompt", "prompt: Is the work done?", at("Is the work done?"), "fires"]),
    );
    assertMatch(
      lineWith(out, "./compact.sh"),
      row(["*", "command", "./compact.sh", at("./compact.sh")], "never emitted.*"),
    );
    assertMatch(
      lineWith(out, "./end.sh"),
      row(
        ["*", "command", "./end.sh", at("./end.sh")],
        '"SessionEnd" fires only with --compat claude.*',
      ),
    );
    assertMatch(
      lineWith(out, "./changed.sh"),
      row(["*", "command", "./changed.sh", at("./changed.sh")], ".*not supported here"),
    );

    // Each event once, as a heading above its rows, in the event table's order.
    const headings = out.split("\n").filter((line) => /^[A-Z][A-Za-z]+$/.test(line));
    assertEquals(headings, ["PreToolUse", "Stop", "SessionEnd", "PostCompact", "FileChanged"]);
    for (const skipped of ["bad-regex.sh", "bad-timeout.sh", "bogus.sh"]) {
      assert(!out.includes(skipped), `${skipped} is not listed as a hook`);
    }
    // The problems hooks lint finds: the invalid entries, and the events that never fire here.
    assertStringIncludes(out, "\n6 hooks (3 fire here), 3 errors, 4 warnings\n");
  });
});

Deno.test("the problems section gives file:line, the pointer and the code of each problem", async () => {
  await inTemp({ ...FILES, "project/.claude/settings.local.json": "{ not json" }, async (dirs) => {
    const result = await list(dirs);
    assertEquals(result.code, 0);
    const problems = result.stdout.split("\nProblems:\n")[1];
    assert(problems !== undefined, `no problems section in:\n${result.stdout}`);
    const lines = problems.trimEnd().split("\n");
    // Exactly what hooks lint reports, in its order.
    const lint = await runCli(["hooks", "lint"], { cwd: dirs.project, home: dirs.home });
    const linted = lint.stdout.split("\n").filter((line) => /: (error|warning): /.test(line));
    assertEquals(lines.map((line) => line.slice(2)), linted);
    const withCode = (code: string) => lines.find((line) => line.endsWith(`[${code}]`)) ?? "";
    const regexLine = lineOf(PROJECT, '"matcher": "("');
    assertMatch(
      withCode("MATCHER_INVALID"),
      new RegExp(
        `^  \\.claude/settings\\.json:${regexLine}:\\d+: error: "\\(" is not a valid regular ` +
          `expression: .* at /hooks/PreToolUse/1/matcher \\[MATCHER_INVALID\\]$`,
      ),
    );
    assertMatch(
      withCode("HANDLER_INVALID"),
      new RegExp(
        `^  \\.claude/settings\\.json:${lineOf(PROJECT, '"timeout"')}:\\d+: error: .*timeout.* ` +
          `at /hooks/PreToolUse/2/hooks/0/timeout \\[HANDLER_INVALID\\]$`,
      ),
    );
    assertMatch(
      withCode("EVENT_UNKNOWN"),
      new RegExp(
        `^  \\.claude/settings\\.json:${lineOf(PROJECT, '"Bogus"')}:\\d+: error: ` +
          `Unknown hook event "Bogus" at /hooks/Bogus \\[EVENT_UNKNOWN\\]$`,
      ),
    );
    assertMatch(
      withCode("SETTINGS_PARSE"),
      /^ {2}\.claude\/settings\.local\.json:1:\d+: error: .*\[SETTINGS_PARSE\]$/,
    );
    assertMatch(lineWith(result.stdout, "  local "), /\(?invalid\)?$/);
    assertStringIncludes(result.stdout, "6 hooks (3 fire here), 4 errors, 4 warnings");
  });
});

Deno.test("--json: files with status, hooks with id/event/matcher/handler/source/status, diagnostics", async () => {
  await inTemp(FILES, async (dirs) => {
    const result = await list(dirs, ["--json"]);
    assertEquals([result.code, result.stderr], [0, ""]);
    const json = JSON.parse(result.stdout);
    const userFile = `${dirs.home}/.claude/settings.json`;
    const projectFile = `${dirs.project}/.claude/settings.json`;
    assertEquals(json.cwd, dirs.project);
    assertEquals(json.files, [
      { scope: "user", path: userFile, status: "loaded" },
      { scope: "project", path: projectFile, status: "loaded" },
      { scope: "local", path: `${dirs.project}/.claude/settings.local.json`, status: "missing" },
    ]);
    assertEquals(json.disabledBy, []);
    const { statusText: _text, ...guard } = json.hooks[0];
    assertEquals(guard, {
      id: "user:/hooks/PreToolUse/0/hooks/0",
      event: "PreToolUse",
      matcher: "shell",
      handler: { type: "command", summary: "./hooks/guard.sh" },
      source: {
        scope: "user",
        file: userFile,
        pointer: "/hooks/PreToolUse/0/hooks/0",
        line: lineOf(USER, "./hooks/guard.sh"),
      },
      status: "fires",
    });
    assertEquals(
      json.hooks.map((h: { id: string; matcher: string | null; status: string }) => [
        h.id,
        h.matcher,
        h.status,
      ]),
      [
        ["user:/hooks/PreToolUse/0/hooks/0", "shell", "fires"],
        ["project:/hooks/PreToolUse/0/hooks/0", "shell|terminal", "fires"],
        ["project:/hooks/Stop/0/hooks/0", null, "fires"],
        ["project:/hooks/SessionEnd/0/hooks/0", null, "dropped"],
        ["project:/hooks/PostCompact/0/hooks/0", null, "never_emitted"],
        ["project:/hooks/FileChanged/0/hooks/0", null, "unsupported"],
      ],
    );
    assertEquals(
      json.diagnostics.map((d: { code: string; file: string; pointer: string; line: number }) => [
        d.code,
        d.file,
        d.pointer,
        d.line,
      ]),
      [
        ["MATCHER_INVALID", projectFile, "/hooks/PreToolUse/1/matcher", lineOf(PROJECT, '"(')],
        [
          "HANDLER_INVALID",
          projectFile,
          "/hooks/PreToolUse/2/hooks/0/timeout",
          lineOf(PROJECT, '"timeout"'),
        ],
        [
          "LINT_CLAUDE_DROPS_FILE",
          projectFile,
          "/hooks/PreToolUse/2/hooks/0/timeout",
          lineOf(PROJECT, '"timeout"'),
        ],
        ["LINT_EVENT_NEVER_FIRES", projectFile, "/hooks/SessionEnd", lineOf(PROJECT, "SessionEnd")],
        [
          "LINT_EVENT_NEVER_FIRES",
          projectFile,
          "/hooks/PostCompact",
          lineOf(PROJECT, "PostCompact"),
        ],
        [
          "LINT_EVENT_NEVER_FIRES",
          projectFile,
          "/hooks/FileChanged",
          lineOf(PROJECT, "FileChanged"),
        ],
        ["EVENT_UNKNOWN", projectFile, "/hooks/Bogus", lineOf(PROJECT, '"Bogus"')],
      ],
    );
    for (const d of json.diagnostics) {
      assertEquals(typeof d.message, "string");
      assertEquals(d.severity, d.code.startsWith("LINT_") ? "warning" : "error");
    }
  });
});

Deno.test("disableAllHooks: every hook is listed as disabled, and the table says why", async () => {
  const local = JSON.stringify({ disableAllHooks: true });
  await inTemp({ ...FILES, "project/.claude/settings.local.json": local }, async (dirs) => {
    const table = await list(dirs);
    assertEquals(table.code, 0);
    assertStringIncludes(
      table.stdout,
      '\nAll hooks are off: "disableAllHooks": true in ".claude/settings.local.json"\n',
    );
    assertMatch(lineWith(table.stdout, "guard.sh"), /\s+Disabled by "disableAllHooks": true in /);
    assertStringIncludes(table.stdout, "(0 fire here)");

    const json = JSON.parse((await list(dirs, ["--json"])).stdout);
    assertEquals(json.disabledBy, [`${dirs.project}/.claude/settings.local.json`]);
    const statuses = json.hooks.map((h: { id: string; status: string }) => [h.id, h.status]);
    assertEquals(statuses, [
      ["user:/hooks/PreToolUse/0/hooks/0", "disabled"],
      ["project:/hooks/PreToolUse/0/hooks/0", "disabled"],
      ["project:/hooks/Stop/0/hooks/0", "disabled"],
      ["project:/hooks/SessionEnd/0/hooks/0", "dropped"],
      ["project:/hooks/PostCompact/0/hooks/0", "disabled"],
      ["project:/hooks/FileChanged/0/hooks/0", "unsupported"],
    ]);
  });
});

Deno.test("a cwd without .claude has no hooks and exits 0", async () => {
  await inTemp({}, async (dirs) => {
    const table = await list(dirs);
    assertEquals([table.code, table.stderr], [0, ""]);
    assertStringIncludes(table.stdout, "\nNo hooks are configured.\n");
    assertStringIncludes(table.stdout, "\n0 hooks (0 fire here), 0 problems\n");
    assert(!table.stdout.includes("Problems:"));

    const json = JSON.parse((await list(dirs, ["--json"])).stdout);
    assertEquals(json.hooks, []);
    assertEquals(json.diagnostics, []);
    assertEquals(json.files.map((f: { status: string }) => f.status), [
      "missing",
      "missing",
      "missing",
    ]);
  });
});

Deno.test("--cwd to a subdirectory of the launch directory inspects that directory", async () => {
  await inTemp(FILES, async (dirs) => {
    for (const flag of ["project", "./project/", `${dirs.project}`]) {
      const result = await list(dirs, ["--cwd", flag, "--json"], dirs.root);
      assertEquals([result.code, result.stderr], [0, ""], flag);
      const json = JSON.parse(result.stdout);
      assertEquals(json.cwd, dirs.project, flag);
      assertEquals(json.hooks.length, 6, flag);
    }
    const table = await list(dirs, ["--cwd", "project"], dirs.root);
    assertEquals(table.stdout.split("\n")[0], `Settings chain for ${dirs.project}`);
    // Paths stay relative to the inspected directory, not to where it was launched.
    assertStringIncludes(lineWith(table.stdout, "./end.sh"), ".claude/settings.json:");
    assert(!table.stdout.includes("project/.claude"), table.stdout);
  });
});

Deno.test("a --cwd that does not exist is exit 2 with a message naming it", async () => {
  await inTemp(FILES, async (dirs) => {
    const result = await list(dirs, ["--cwd", "nope"]);
    assertEquals(result.code, 2);
    assertEquals(result.stdout, "");
    assertEquals(result.stderr, `Directory "${dirs.project}/nope" does not exist\n`);
  });
});

Deno.test("a --cwd that is a file is exit 2 with a message naming it", async () => {
  await inTemp({ ...FILES, "project/notes.txt": "hello" }, async (dirs) => {
    const result = await list(dirs, ["--cwd", "notes.txt"]);
    assertEquals([result.code, result.stdout], [2, ""]);
    assertEquals(result.stderr, '"--cwd notes.txt" is not a directory\n');
  });
});

/** Hooks written for Claude Code: three can never fire under profile llama, one always can. */
const FOR_CLAUDE_CODE = JSON.stringify(
  {
    hooks: {
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: "./bash.sh" }] },
        { hooks: [{ type: "command", command: "./commit.sh", if: "Bash(git commit:*)" }] },
        { matcher: "Edit|Write", hooks: [{ type: "command", command: "./fmt.sh" }] },
        { matcher: "*", hooks: [{ type: "command", command: "./all.sh" }] },
      ],
    },
  },
  null,
  2,
);

Deno.test("--compat llama: hooks whose matcher or if names Claude Code's tools are listed as never matching", async () => {
  await inTemp({ "project/.claude/settings.json": FOR_CLAUDE_CODE }, async (dirs) => {
    const table = await list(dirs, ["--compat", "llama"]);
    assertEquals([table.code, table.stderr], [0, ""]);
    assertMatch(
      lineWith(table.stdout, "./bash.sh"),
      new RegExp(
        escape(
          'never matches: matcher "Bash" names Claude Code\'s tool; run with --compat ' +
            "claude or hooks lint --fix",
        ) + "$",
      ),
    );
    assertMatch(
      lineWith(table.stdout, "./commit.sh"),
      /never matches: if "Bash\(git commit:\*\)" names Claude Code's tool; run with --compat claude$/,
    );
    assertMatch(lineWith(table.stdout, "./fmt.sh"), /never matches: matcher "Edit\|Write" names /);
    assertMatch(lineWith(table.stdout, "./all.sh"), /\s+fires$/);
    assertStringIncludes(
      table.stdout,
      '\n4 hooks (1 fire here, 3 never match: see "hooks lint"), 0 errors, 3 warnings\n',
    );

    const json = JSON.parse((await list(dirs, ["--compat", "llama", "--json"])).stdout);
    assertEquals(json.profile, "llama");
    const statuses = json.hooks.map((h: { status: string }) => h.status);
    assertEquals(statuses, ["never_matches", "never_matches", "never_matches", "fires"]);

    // The same count as hooks lint: its summary, and one finding per hook here.
    const lint = await runCli(["hooks", "lint", "--compat", "llama", "--format", "json"], {
      cwd: dirs.project,
      home: dirs.home,
    });
    const report = JSON.parse(lint.stdout);
    assertEquals(report.neverRun, 3);
    const neverCodes = ["LINT_TOOL_NEVER_MATCHES", "LINT_IF_FOREIGN_TOOL", "LINT_IF_NEVER_MATCHES"];
    const findings = report.diagnostics.filter((d: { code: string }) =>
      neverCodes.includes(d.code)
    );
    assertEquals(findings.length, 3);
  });
});

Deno.test("auto, the default: hooks written for Claude Code choose its tools, and the listing says why", async () => {
  await inTemp({ "project/.claude/settings.json": FOR_CLAUDE_CODE }, async (dirs) => {
    const table = await list(dirs);
    assertEquals([table.code, table.stderr], [0, ""]);
    const reason = `the hooks name Claude Code's tools in matcher "Bash", "if": ` +
      `"Bash(git commit:*)", matcher "Edit|Write"`;
    assertStringIncludes(table.stdout, `\nProfile: claude (auto: ${reason})\n`);
    assertStringIncludes(table.stdout, "\n4 hooks (4 fire here), 0 problems\n");
    const json = JSON.parse((await list(dirs, ["--json"])).stdout);
    assertEquals([json.profile, json.profileChoice], ["claude", { auto: true, reason }]);
  });
  await inTemp({ "project/.keep": "" }, async (dirs) => {
    const table = await list(dirs);
    assertStringIncludes(
      table.stdout,
      "\nProfile: llama (auto: no hook names Claude Code's tools)\n",
    );
  });
});

Deno.test("--compat claude: the same hooks all fire", async () => {
  await inTemp({ "project/.claude/settings.json": FOR_CLAUDE_CODE }, async (dirs) => {
    const table = await list(dirs, ["--compat", "claude"]);
    assertEquals([table.code, table.stderr], [0, ""]);
    assertStringIncludes(table.stdout, "\n4 hooks (4 fire here), 0 problems\n");
    const json = JSON.parse((await list(dirs, ["--compat", "claude", "--json"])).stdout);
    assertEquals(json.profile, "claude");
    assert(json.hooks.every((h: { status: string }) => h.status === "fires"));
  });
});

Deno.test("an if whose tool the group's matcher never lets through is listed and counted as never matching", async () => {
  const text = JSON.stringify(
    {
      hooks: {
        PreToolUse: [
          {
            matcher: "Write",
            hooks: [{ type: "command", command: "./edit.sh", if: "Edit(src/**)" }],
          },
          { matcher: "Bash", hooks: [{ type: "command", command: "./read.sh", if: "Read" }] },
          {
            matcher: "Bash",
            hooks: [{ type: "command", command: "./push.sh", if: "Bash(git *)" }],
          },
        ],
      },
    },
    null,
    2,
  );
  await inTemp({ "project/.claude/settings.json": text }, async (dirs) => {
    const table = await list(dirs, ["--compat", "claude"]);
    assertEquals([table.code, table.stderr], [0, ""]);
    assertMatch(
      lineWith(table.stdout, "./edit.sh"),
      /never matches: if "Edit\(src\/\*\*\)" names "Edit", which matcher "Write" never lets through$/,
    );
    assertMatch(lineWith(table.stdout, "./read.sh"), /never matches: if "Read" names "Read", /);
    assertMatch(lineWith(table.stdout, "./push.sh"), /\s+fires$/);
    assertStringIncludes(table.stdout, '\n3 hooks (1 fire here, 2 never match: see "hooks lint")');
    const lint = await runCli(["hooks", "lint", "--compat", "claude", "--format", "json"], {
      cwd: dirs.project,
      home: dirs.home,
    });
    assertEquals(JSON.parse(lint.stdout).neverRun, 2);
  });
});

Deno.test("in $HOME itself the user settings file is listed and counted once", async () => {
  await inTemp({
    "home/.claude/settings.json": JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: "shell", hooks: [{ type: "command", command: "./g.sh" }] }],
      },
    }),
  }, async (dirs) => {
    const table = await runCli(["hooks", "list"], { cwd: dirs.home, home: dirs.home });
    assertEquals([table.code, table.stderr], [0, ""]);
    assertEquals(table.stdout.split("\n").filter((l) => l.includes("./g.sh")).length, 1);
    assertStringIncludes(table.stdout, "\n1 hook (1 fire here), 0 problems\n");
    const json = JSON.parse((await list(dirs, ["--json"], dirs.home)).stdout);
    assertEquals(json.files.map((f: { scope: string }) => f.scope), ["user", "local"]);
  });
});

Deno.test("PreCompact and PostCompact fire with --compat claude, matcher and all; the llama profile never fires them", async () => {
  const text = JSON.stringify({
    hooks: {
      PreCompact: [{ matcher: "manual", hooks: [{ type: "command", command: "./pre.sh" }] }],
      PostCompact: [{ hooks: [{ type: "command", command: "./post.sh" }] }],
    },
  });
  await inTemp({ "project/.claude/settings.json": text }, async (dirs) => {
    const claude = JSON.parse((await list(dirs, ["--compat", "claude", "--json"])).stdout);
    assertEquals(
      claude.hooks.map((h: { event: string; matcher: string | null; status: string }) => [
        h.event,
        h.matcher,
        h.status,
      ]),
      [["PreCompact", "manual", "fires"], ["PostCompact", null, "fires"]],
    );
    const table = await list(dirs);
    assertEquals([table.code, table.stderr], [0, ""]);
    assertMatch(lineWith(table.stdout, "./pre.sh"), /"PreCompact" fires only with --compat claude/);
    assertMatch(lineWith(table.stdout, "./post.sh"), /never emitted/);
    assertStringIncludes(table.stdout, "\n2 hooks (0 fire here)");
  });
});
