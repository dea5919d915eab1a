/**
 * `hooks test --compat` and a scenario's own `"compat"`: which profile a case's hooks see. A hook
 * gated by `"if": "Bash(git commit:*)"` and matched on `Bash` runs only where the agent presents
 * itself as Claude Code, and the payload carries `effort` only there.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hooksTest, reportLines, scenario } from "./hooks_test_fixture.ts";

const COMMIT_CHECK = {
  text: '#!/bin/sh\ncat > "$CLAUDE_PROJECT_DIR/../payload.json"\n' +
    "echo 'commit messages need a ticket' >&2\nexit 2\n",
  mode: 0o755,
};

const SETTINGS = JSON.stringify({
  hooks: {
    PreToolUse: [{
      matcher: "Bash",
      hooks: [{
        type: "command",
        if: "Bash(git commit:*)",
        command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/commit-check.sh',
      }],
    }],
  },
});

const commit = (extra: Record<string, unknown> = {}) => ({
  name: "a commit is checked",
  event: "PreToolUse",
  input: { tool_name: "Bash", tool_input: { command: "git commit -m wip" } },
  expect: { decision: "deny", matched: ["commit-check.sh"] },
  ...extra,
});

const FILES = {
  "project/.claude/settings.json": SETTINGS,
  "project/.claude/hooks/commit-check.sh": COMMIT_CHECK,
};

Deno.test("--compat claude: an if-gated Bash hook runs for git commit and sees effort", async () => {
  await hooksTest(
    {
      ...FILES,
      "project/.claude/hooks-tests/c.test.jsonc": scenario([commit()]),
    },
    ["--compat", "claude"],
    (result) => {
      assertStringIncludes(reportLines(result, 0).join("\n"), "1 passed, 0 failed");
    },
  );
});

Deno.test("with --compat llama the same case fails: the if rule names a tool this profile lacks", async () => {
  await hooksTest(
    {
      ...FILES,
      "project/.claude/hooks-tests/c.test.jsonc": scenario([commit()]),
    },
    ["--compat", "llama"],
    (result) => {
      assertEquals(result.code, 1, result.stdout + result.stderr);
      assertStringIncludes(result.stdout, "0 passed, 1 failed");
    },
  );
});

Deno.test("without --compat the case's hooks decide: an if rule on Bash gives Claude Code's tools, and it passes", async () => {
  await hooksTest(
    {
      ...FILES,
      "project/.claude/hooks-tests/c.test.jsonc": scenario([commit()]),
    },
    [],
    (result, dir) => {
      assertEquals(result.code, 0, result.stdout + result.stderr);
      assertStringIncludes(reportLines(result, 0).join("\n"), "1 passed, 0 failed");
      const payload = JSON.parse(Deno.readTextFileSync(`${dir}/payload.json`));
      assertEquals(payload.effort, { level: "medium" });
    },
  );
});

Deno.test("a scenario file's compat wins over the flag, and a case's over the file's", async () => {
  const file = {
    compat: "claude",
    cases: [
      commit(),
      commit({ name: "the case asks for llama", compat: "llama", expect: { decision: "none" } }),
    ],
  };
  await hooksTest(
    {
      ...FILES,
      "project/.claude/hooks-tests/c.test.jsonc": JSON.stringify(file),
    },
    ["--compat", "llama"],
    (result, dir) => {
      assertStringIncludes(reportLines(result, 0).join("\n"), "2 passed, 0 failed");
      // The claude-profile case's hook saw Claude Code's payload, effort included.
      const payload = JSON.parse(Deno.readTextFileSync(`${dir}/payload.json`));
      assertEquals(payload.effort, { level: "medium" });
      assertEquals(payload.tool_name, "Bash");
    },
  );
});

Deno.test("a bad --compat is a usage error that names the value", async () => {
  await hooksTest(FILES, ["--compat", "codex"], (result) => {
    assertEquals([result.code, result.stdout], [2, ""]);
    assertStringIncludes(result.stderr, '"codex"');
  });
});
