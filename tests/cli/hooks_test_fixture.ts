/**
 * The project `hooks test` runs against in the CLI tests: a guard hook that refuses "rm -rf",
 * cases for it, and `hooksTest`, which runs the real launcher there with a pinned environment.
 */
import { assertEquals } from "../helpers/assert.ts";
import { type CliRun, runCli, withTempProject } from "../helpers/run_cli.ts";

/** Blocks a shell command that contains "rm -rf", says nothing otherwise. */
export const GUARD = {
  text: "#!/bin/sh\n" +
    "if grep -q 'rm -rf'; then echo 'Refusing rm -rf' >&2; exit 2; fi\n" +
    "exit 0\n",
  mode: 0o755,
};

export const SETTINGS = JSON.stringify(
  {
    hooks: {
      PreToolUse: [{
        matcher: "shell",
        hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh' }],
      }],
    },
  },
  null,
  2,
);

export const shell = (command: string) => ({ tool_name: "shell", tool_input: { command } });

export function scenario(cases: readonly unknown[]): string {
  return JSON.stringify({ cases }, null, 2) + "\n";
}

export const ALLOWS_LS = {
  name: "allows ls",
  event: "PreToolUse",
  input: shell("ls"),
  expect: { decision: "none" },
};

export const DENIES_RM = {
  name: "denies rm -rf",
  event: "PreToolUse",
  input: shell("rm -rf /"),
  // Claude Code prefixes an exit-2 reason with the command.
  expect: { decision: "deny", reason: { matches: "guard\\.sh\\]: Refusing rm -rf$" } },
};

/** Expects a reason the hook does not give. */
export const WRONG_REASON = {
  ...DENIES_RM,
  name: "denies rm -rf politely",
  expect: { decision: "deny", reason: { matches: "^Please" } },
};

/** The line of `"reason"` in the scenario of `ALLOWS_LS` and `WRONG_REASON`. */
export const REASON_LINE = scenario([ALLOWS_LS, WRONG_REASON]).split("\n")
  .findIndex((line) => line.includes('"reason"')) + 1;

/**
 * Runs `hooks test` in `<tmp>/project`, HOME at `<tmp>/home`, colors off (not a terminal); the
 * cases' temporary places go under `<tmp>/home/.cache`. TMPDIR is `<tmp>/home/tmp`: the
 * launcher lets llama-agent write only under the launch directory and HOME.
 */
export function hooksTest(
  files: Readonly<Record<string, string | { text: string; mode: number }>>,
  args: readonly string[],
  check: (result: CliRun, dir: string) => void,
): Promise<void> {
  return withTempProject({ "home/tmp/.keep": "", "project/.keep": "", ...files }, async (dir) => {
    const result = await runCli(["hooks", "test", ...args], {
      cwd: `${dir}/project`,
      home: `${dir}/home`,
      env: { TMPDIR: `${dir}/home/tmp` },
    });
    check(result, dir);
  });
}

export const PROJECT = {
  "project/.claude/settings.json": SETTINGS,
  "project/.claude/hooks/guard.sh": GUARD,
};

/** Durations vary: `(12 ms)` → `(N ms)`, `in 0.12 s` → `in N s`. */
function normalize(text: string): string {
  return text.replace(/\(\d+ ms\)/g, "(N ms)").replace(/ in \d+\.\d+ s$/m, " in N s");
}

/**
 * The readable report's lines, durations normalized, once the run exited with `code` and said
 * nothing on stderr.
 */
export function reportLines(result: CliRun, code: number): string[] {
  assertEquals(result.code, code, result.stdout + result.stderr);
  assertEquals(result.stderr, "");
  return normalize(result.stdout).split("\n");
}
