/**
 * The claude-code example under a forced llama profile: what a user who passes `--compat llama`
 * is told, and what `hooks lint --fix` can and cannot repair. The fixed file
 * still matches Claude Code's names, so it keeps guarding Claude Code too.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { REPO_ROOT, runCli } from "../helpers/run_cli.ts";
import { compileMatcher, matches } from "../../src/hooks/matching/matcher.ts";

interface ListedRow {
  readonly matcher: string | null;
  readonly status: string;
  readonly handler: { readonly summary: string } | null;
}

async function withExampleCopy(fn: (project: string, home: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "claude_code_example_llama_" });
  try {
    const project = `${dir}/project`;
    const copied = await new Deno.Command("cp", {
      args: ["-r", `${REPO_ROOT}/examples/claude-code`, project],
    }).output();
    assert(copied.success, "the example was copied");
    await Deno.mkdir(`${dir}/home`);
    await fn(project, `${dir}/home`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("examples/claude-code under profile llama: lint names every hook that never runs", async () => {
  await withExampleCopy(async (project, home) => {
    const lint = await runCli(["hooks", "lint", "--compat", "llama"], { cwd: project, home });
    assertEquals(lint.code, 0, lint.stdout + lint.stderr);
    assertStringIncludes(lint.stdout, "5 hooks never run here");
    assertStringIncludes(lint.stdout, '"if": "Bash(git commit:*)" names Claude Code\'s tool');
    const claude = await runCli(["hooks", "lint", "--compat", "claude"], { cwd: project, home });
    assertEquals([claude.code, claude.stdout.trim()], [
      0,
      "No problems found\nProfile: claude (set by --compat)",
    ]);
  });
});

Deno.test("examples/claude-code: after lint --fix its matchers fire here and still match Claude Code's names", async () => {
  await withExampleCopy(async (project, home) => {
    const fix = await runCli(["hooks", "lint", "--compat", "llama", "--fix"], {
      cwd: project,
      home,
    });
    assertStringIncludes(fix.stdout, 'Fixed matcher "Bash" to "Bash|shell"');
    const list = await runCli(["hooks", "list", "--compat", "llama", "--json"], {
      cwd: project,
      home,
    });
    assertEquals(list.code, 0, list.stderr);
    const rows: ListedRow[] = JSON.parse(list.stdout).hooks;
    for (const row of rows) {
      const compiled = compileMatcher(row.matcher ?? undefined);
      assert(compiled.ok);
      const claudeName = row.matcher?.split("|")[0] ?? "";
      assert(matches(compiled.matcher, claudeName), `${row.matcher} still matches ${claudeName}`);
    }
    // Every matcher now fires here; only the if-gated commit check cannot be fixed by a matcher.
    const never = rows.filter((row) => row.status !== "fires");
    assertEquals(never.map((row) => row.handler?.summary), [
      '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check-commit-message.sh',
    ]);
    // And lint still says that the scripts check Claude Code's tool names themselves.
    const after = await runCli(["hooks", "lint", "--compat", "llama"], { cwd: project, home });
    assertStringIncludes(after.stdout, "LINT_TOOL_NAME_CHECK_FOREIGN");
    assertStringIncludes(after.stdout, "block-dangerous.sh");
    assertStringIncludes(after.stdout, "protect_secrets.py");
  });
});
