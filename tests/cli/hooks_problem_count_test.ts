/**
 * `hooks list` and `hooks run` count the problems `hooks lint` finds, not only those found while
 * loading: a hook whose script is missing is an error in all three, never "0 problems" beside
 * lint's error.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { type CliRun, runCli, withTempProject } from "../helpers/run_cli.ts";

const MISSING_SCRIPT = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/missing.sh';

const SETTINGS = JSON.stringify({
  hooks: { Stop: [{ hooks: [{ type: "command", command: MISSING_SCRIPT }] }] },
});

function inProject(fn: (run: (args: string[]) => Promise<CliRun>) => Promise<void>) {
  return withTempProject(
    { "home/.keep": "", "project/.claude/settings.json": SETTINGS },
    (dir) =>
      fn((args) =>
        runCli(["hooks", ...args, "--compat", "llama"], {
          cwd: `${dir}/project`,
          home: `${dir}/home`,
        })
      ),
  );
}

interface JsonDiagnostic {
  readonly code: string;
  readonly severity: string;
  readonly line?: number;
}

function codes(diagnostics: readonly JsonDiagnostic[]): string[] {
  return diagnostics.map((d) => `${d.severity} ${d.code} line ${d.line}`);
}

Deno.test("hooks list counts and shows the missing script hooks lint calls an error", async () => {
  await inProject(async (run) => {
    const lint = await run(["lint", "--format", "json"]);
    assertEquals(lint.code, 1, lint.stderr);
    const linted = codes(JSON.parse(lint.stdout).diagnostics);
    assertEquals(linted, ["error LINT_SCRIPT_MISSING line 1"]);

    const table = await run(["list"]);
    assertEquals(table.code, 0, table.stderr);
    assertStringIncludes(table.stdout, "\n1 hook (1 fire here), 1 error, 0 warnings\n");
    assertStringIncludes(table.stdout, "\nProblems:\n");
    assertStringIncludes(table.stdout, "[LINT_SCRIPT_MISSING]");

    const json = await run(["list", "--json"]);
    assertEquals(codes(JSON.parse(json.stdout).diagnostics), linted);
  });
});

Deno.test("hooks run counts the problems hooks lint finds, and its JSON report lists them", async () => {
  await inProject(async (run) => {
    const result = await run(["run", "Stop", "--json"]);
    assertEquals(result.code, 0);
    assertEquals(
      result.stderr,
      '1 error, 0 warnings in the settings chain: run "llama-agent hooks lint" for details\n',
    );
    assertEquals(codes(JSON.parse(result.stdout).diagnostics), [
      "error LINT_SCRIPT_MISSING line 1",
    ]);
  });
});
