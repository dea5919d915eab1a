/**
 * `hooks lint` under each profile: hooks whose matcher, `if` or script names the other profile's
 * tools never fire, and say so with what to do.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { comparedForeignNames } from "../../src/hooks/lint/foreign_tool_references.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { group, lintProject, only, PROJECT, run, settings, summary } from "./lint_project.ts";

/** A settings file written for Claude Code. */
const CLAUDE_CODE_FILE = settings({
  PreToolUse: [
    group("Bash", run("echo guard")),
    group(undefined, run("echo commit", { if: "Bash(git commit:*)" })),
    group("shell|Edit", run("echo partly")),
  ],
  PostToolUse: [group("Edit|Write", run("echo fmt", { if: "Write(src/**)" }))],
});

const codes = (d: { code: string; pointer: string }[]) => d.map((x) => `${x.code} ${x.pointer}`);

Deno.test("profile llama: Claude Code matchers and if rules are found, each with its advice", async () => {
  await lintProject({ [PROJECT]: CLAUDE_CODE_FILE }, (diagnostics) => {
    assertEquals(codes(diagnostics), [
      "LINT_TOOL_NEVER_MATCHES /hooks/PreToolUse/0/matcher",
      "LINT_IF_FOREIGN_TOOL /hooks/PreToolUse/1/hooks/0/if",
      "LINT_TOOL_PARTLY_MATCHES /hooks/PreToolUse/2/matcher",
      "LINT_TOOL_NEVER_MATCHES /hooks/PostToolUse/0/matcher",
      "LINT_IF_FOREIGN_TOOL /hooks/PostToolUse/0/hooks/0/if",
    ]);
    assert(diagnostics.every((d) => d.severity === "warning"));
    assertStringIncludes(diagnostics[0]!.message, 'use "Bash|shell" to match in both');
    assertEquals(
      diagnostics[1]!.message,
      '"if": "Bash(git commit:*)" names Claude Code\'s tool, so this hook never runs here ' +
        '("Bash" is Claude Code\'s name for "shell"): write "shell(git commit:*)" (Claude Code ' +
        "would then not run it), or run llama-agent with --compat claude, which keeps this file " +
        "as it is",
    );
    assertStringIncludes(diagnostics[2]!.message, 'use "shell|Edit|fs_edit"');
    assertStringIncludes(diagnostics[3]!.message, 'use "Edit|Write|fs_edit|fs_write"');
    assertStringIncludes(diagnostics[4]!.message, 'write "fs_write(src/**)"');
  });
});

Deno.test("profile claude: the same file is fine, and llama-agent's own names are found", async () => {
  await lintProject({ [PROJECT]: CLAUDE_CODE_FILE }, (diagnostics) => {
    assertEquals(summary(diagnostics), [
      "warning LINT_TOOL_PARTLY_MATCHES /hooks/PreToolUse/2/matcher: " +
      '"shell" in matcher "shell|Edit" never matches a tool of --compat claude: "shell" is ' +
      'llama-agent\'s own name for "Bash"; use "shell|Edit|Bash" to match with and without ' +
      '--compat claude ("hooks lint --fix" does this)',
    ]);
  }, { profile: "claude" });
  const ours = settings({
    PreToolUse: [group("shell", run("a")), group(undefined, run("b", { if: "shell(git *)" }))],
  });
  await lintProject({ [PROJECT]: ours }, (diagnostics) => {
    assertEquals(codes(diagnostics), [
      "LINT_TOOL_NEVER_MATCHES /hooks/PreToolUse/0/matcher",
      "LINT_IF_FOREIGN_TOOL /hooks/PreToolUse/1/hooks/0/if",
    ]);
    assertStringIncludes(diagnostics[1]!.message, 'write "Bash(git *)"');
    assertStringIncludes(diagnostics[1]!.message, "or run llama-agent without --compat claude");
  }, { profile: "claude" });
  await lintProject({ [PROJECT]: ours }, (diagnostics) => assertEquals(diagnostics, []));
});

Deno.test("an if that can never hold says the hook never runs, and why", async () => {
  const text = settings({
    PreToolUse: [group(undefined, run("a", { if: "Bash(echo" }), run("b", { if: "bash(x *)" }))],
    PostToolUse: [group("*", run("c", { if: "terminal(git *)" }), run("d", { if: "" }))],
    Stop: [group(undefined, run("e", { if: "shell" }))],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(summary(only(diagnostics, "LINT_IF_NEVER_MATCHES")), [
      "warning LINT_IF_NEVER_MATCHES /hooks/PreToolUse/0/hooks/0/if: " +
      '"if": "Bash(echo" never matches, so this hook never runs: unbalanced parenthesis: close ' +
      'the pattern with ")"',
      "warning LINT_IF_NEVER_MATCHES /hooks/PreToolUse/0/hooks/1/if: " +
      '"if": "bash(x *)" never matches a llama-agent tool, so this hook never runs: llama-agent ' +
      'has no "bash" tool; its tools are "shell", "fs_read", "fs_write", "fs_edit", "fs_glob", ' +
      '"fs_grep" and "mcp__<server>__<tool>"',
      "warning LINT_IF_NEVER_MATCHES /hooks/PostToolUse/0/hooks/0/if: " +
      '"if": "terminal(git *)" never matches, so this hook never runs: a pattern applies only ' +
      'to the name the model is offered, "shell"; write "shell(git *)"',
      "warning LINT_IF_NEVER_MATCHES /hooks/Stop/0/hooks/0/if: " +
      '"if": "shell" keeps this hook from ever running: "Stop" has no tool call to test it ' +
      'against, so Claude Code and llama-agent skip the hook; remove the "if"',
    ]);
    assertEquals(diagnostics.length, 4, "an empty if is no if");
  });
});

Deno.test('"if" is a field of every handler, and "async": false asks for nothing', async () => {
  const text = settings({
    PreToolUse: [group("shell|fs_read", run("a", { if: "shell(git *)", async: false }), {
      type: "http",
      url: "http://localhost/x",
      if: "shell",
      async: true,
    }, { type: "prompt", prompt: "ok?", if: "fs_read(*.md)" })],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(summary(diagnostics), [
      "warning LINT_FIELD_NO_EFFECT /hooks/PreToolUse/0/hooks/1/async: " +
      '"async" has no effect in llama-agent: the action waits for every hook to finish',
    ]);
  });
});

Deno.test("scripts and commands that check tool_name against Claude Code's names are found", async () => {
  const text = settings({
    PreToolUse: [group("Bash|shell", run('"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh'))],
    PostToolUse: [group(
      "*",
      run('python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/fmt.py"'),
      run('[ "$(jq -r .tool_name)" = Bash ] && echo ok'),
      run("$CLAUDE_PROJECT_DIR/.claude/hooks/both.sh"),
      run("$CLAUDE_PROJECT_DIR/.claude/hooks/missing.sh"),
    )],
    SessionStart: [group(undefined, run('jq -r .tool_name | grep -q "^Bash$"'))],
  });
  const files = {
    [PROJECT]: text,
    "project/.claude/hooks/guard.sh": {
      text: '#!/bin/sh\nt=$(jq -r .tool_name)\nif [ "$t" != "Bash" ]; then exit 0; fi\nexit 2\n',
      mode: 0o755,
    },
    "project/.claude/hooks/fmt.py": {
      text:
        'import json,sys\nd=json.load(sys.stdin)\nif d["tool_name"] in ["Read","Edit","Write"]:\n' +
        "  pass\n",
      mode: 0o644,
    },
    "project/.claude/hooks/both.sh": {
      text: '#!/bin/sh\ncase "$(jq -r .tool_name)" in\n  Bash|shell) exit 2;;\nesac\n',
      mode: 0o755,
    },
  };
  await lintProject(files, (diagnostics) => {
    const found = only(diagnostics, "LINT_TOOL_NAME_CHECK_FOREIGN");
    assertEquals(found.map((d) => d.pointer), [
      "/hooks/PreToolUse/0/hooks/0/command",
      "/hooks/PostToolUse/0/hooks/0/command",
      "/hooks/PostToolUse/0/hooks/1/command",
    ]);
    assertEquals(
      found[0]!.message,
      'Script "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh" compares tool_name with Claude ' +
        'Code\'s "Bash", but llama-agent sends "shell" as tool_name, so its check never sees ' +
        "the tool: run llama-agent with --compat claude, which sends Claude Code's names, or " +
        'make it accept "shell" too',
    );
    assertStringIncludes(
      found[1]!.message,
      'Claude Code\'s "Read", "Write" and "Edit", but llama-agent sends "fs_read", "fs_write" ' +
        'or "fs_edit"',
    );
    assertStringIncludes(found[2]!.message, "This command compares tool_name");
  });
  await lintProject(files, (diagnostics) => {
    assertEquals(only(diagnostics, "LINT_TOOL_NAME_CHECK_FOREIGN"), []);
  }, { profile: "claude" });
});

Deno.test("a tool_name comparison is a quoted, compared or case-pattern name, not a mention", () => {
  const llama = compatProfile("llama");
  const found = (text: string) => comparedForeignNames(text, llama);
  assertEquals(found('if tool_name != "Bash": sys.exit(0)'), ["Bash"]);
  assertEquals(found('tool_name in ["Read","Edit","Write"]'), ["Read", "Write", "Edit"]);
  assertEquals(found('t=$(jq -r .tool_name); [ "$t" == "Bash" ] && exit 2'), ["Bash"]);
  assertEquals(found('case "$(jq -r .tool_name)" in\n  Edit|Write) exit 2;;\nesac'), [
    "Write",
    "Edit",
  ]);
  assertEquals(found(`jq -e '.tool_name | test("^(Bash|Glob)$")'`), ["Bash", "Glob"]);
  assertEquals(found("# Read the tool_name (Read it twice)\necho Bash"), []);
  assertEquals(found('if tool == "Bash"'), [], "no tool_name, no guess");
  assertEquals(found('tool_name == "Bash" or tool_name == "shell"'), []);
  assertEquals(
    comparedForeignNames('jq -r .tool_name | grep -qx "fs_write"', compatProfile("claude")),
    ["fs_write"],
  );
});

Deno.test("an if naming a tool its group's matcher never lets through never runs, and says so", async () => {
  const text = settings({
    PreToolUse: [
      group("Write", run("a", { if: "Edit(src/**)" })),
      group("Bash", run("b", { if: "Read" })),
      group("Edit|Write", run("c", { if: "Edit(src/**)" })),
      group("mcp__.*", run("d", { if: "mcp__github__create_issue" })),
      group(undefined, run("e", { if: "Read" })),
    ],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(summary(diagnostics), [
      "warning LINT_IF_NEVER_MATCHES /hooks/PreToolUse/0/hooks/0/if: " +
      '"if": "Edit(src/**)" never matches, so this hook never runs: the "if" is tested only ' +
      'on the calls its group\'s matcher "Write" lets through, and that matcher never lets ' +
      '"Edit" through; make the matcher accept "Edit", or move the hook to a group whose ' +
      "matcher does",
      "warning LINT_IF_NEVER_MATCHES /hooks/PreToolUse/1/hooks/0/if: " +
      '"if": "Read" never matches, so this hook never runs: the "if" is tested only on the ' +
      'calls its group\'s matcher "Bash" lets through, and that matcher never lets "Read" ' +
      'through; make the matcher accept "Read", or move the hook to a group whose matcher does',
    ]);
  }, { profile: "claude" });
  // Under llama a foreign if whose translation the matcher lets through is advice to translate;
  // one whose translation it would still stop is the matcher's doing.
  const llama = settings({
    PreToolUse: [
      group("fs_read", run("a", { if: "Bash(git push:*)" })),
      group("shell", run("b", { if: "Bash(git push:*)" })),
      group("shell", run("c", { if: "fs_read" })),
    ],
  });
  await lintProject({ [PROJECT]: llama }, (diagnostics) => {
    assertEquals(codes(diagnostics), [
      "LINT_IF_NEVER_MATCHES /hooks/PreToolUse/0/hooks/0/if",
      "LINT_IF_FOREIGN_TOOL /hooks/PreToolUse/1/hooks/0/if",
      "LINT_IF_NEVER_MATCHES /hooks/PreToolUse/2/hooks/0/if",
    ]);
    assertStringIncludes(diagnostics[0]!.message, 'matcher "fs_read" lets through');
  });
});
