/**
 * `llama-agent hooks init` through the real launcher: it writes a suite that `hooks test` passes
 * at once and says what to run next; it never overwrites a file without --force; a project with
 * no hooks gets a message that says what to do (exit 2).
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { REPO_ROOT, runCli } from "../helpers/run_cli.ts";
import { copyTree } from "../../src/testing/runner/copy_tree.ts";

const SUITE = ".claude/hooks-tests/project.test.jsonc";

/** A copy of a fixture project at `<tmp>/project` (its own suites removed), HOME beside it. */
async function withProject(
  source: string,
  fn: (project: string, home: string) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "hooks_init_cli_" }));
  try {
    await copyTree(source, `${root}/project`, {});
    await Deno.remove(`${root}/project/.claude/hooks-tests`, { recursive: true }).catch(() => {});
    await Deno.mkdir(`${root}/home`);
    await fn(`${root}/project`, `${root}/home`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("hooks init writes a suite that hooks test passes at once, and says what to run next", async () => {
  await withProject(`${REPO_ROOT}/examples/guard-rails`, async (project, home) => {
    const init = await runCli(["hooks", "init"], { cwd: project, home });
    assertEquals(init.code, 0, init.stderr);
    assertEquals(init.stderr, "");
    assertMatch(
      init.stdout,
      /^Wrote \.claude\/hooks-tests\/project\.test\.jsonc: \d+ event case\(s\) and 1 session case/,
    );
    assertStringIncludes(init.stdout, "\nNext: llama-agent hooks test\n");
    const text = await Deno.readTextFile(`${project}/${SUITE}`);
    assertStringIncludes(
      text,
      '"name": "PreToolUse shell \\"rm -rf /\\": denied by block-destructive.sh"',
    );
    const test = await runCli(["hooks", "test"], { cwd: project, home });
    assertEquals(test.code, 0, test.stdout + test.stderr);
    assertMatch(test.stdout, /^\d+ passed, 0 failed in [\d.]+ s$/m);
    // The hooks fired in hermetic places only: the audit hook's log never reached this HOME.
    const written = await Deno.lstat(`${home}/.llama-agent-audit.log`).then(
      () => true,
      () => false,
    );
    assertEquals(written, false);
  });
});

Deno.test("hooks init --cwd --name writes that file, and the next command names the directory", async () => {
  await withProject(`${REPO_ROOT}/fixtures/hooks_init/python_json_guard`, async (project, home) => {
    const launch = project.slice(0, project.lastIndexOf("/"));
    const init = await runCli(["hooks", "init", "--cwd", "project", "--name", "guards"], {
      cwd: launch,
      home,
    });
    assertEquals(init.code, 0, init.stderr);
    assertStringIncludes(init.stdout, "Wrote project/.claude/hooks-tests/guards.test.jsonc");
    assertStringIncludes(init.stdout, "Next: llama-agent hooks test --cwd project\n");
    const test = await runCli(["hooks", "test", "--cwd", "project"], { cwd: launch, home });
    assertEquals(test.code, 0, test.stdout + test.stderr);
  });
});

Deno.test("hooks init refuses to overwrite a suite (exit 2, naming --force); --force overwrites it", async () => {
  await withProject(`${REPO_ROOT}/fixtures/hooks_init/bash_jq_guard`, async (project, home) => {
    await Deno.mkdir(`${project}/.claude/hooks-tests`, { recursive: true });
    await Deno.writeTextFile(`${project}/${SUITE}`, "mine\n");
    const refused = await runCli(["hooks", "init"], { cwd: project, home });
    assertEquals(refused.code, 2);
    assertEquals(refused.stdout, "");
    assertEquals(
      refused.stderr,
      `"${SUITE}" exists: pass --force to overwrite it, or --name NAME to write another file\n`,
    );
    assertEquals(await Deno.readTextFile(`${project}/${SUITE}`), "mine\n");
    const forced = await runCli(["hooks", "init", "--force"], { cwd: project, home });
    assertEquals(forced.code, 0, forced.stderr);
    const text = await Deno.readTextFile(`${project}/${SUITE}`);
    assert(text.startsWith('{\n  // Written by "llama-agent hooks init"'), text.slice(0, 80));
    assertStringIncludes(text, "sudo rm -rf /var/lib");
  });
});

Deno.test("hooks init in a project without hooks says what to do and writes nothing (exit 2)", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "hooks_init_cli_" }));
  try {
    await Deno.mkdir(`${root}/home`);
    await Deno.mkdir(`${root}/project`);
    const run = await runCli(["hooks", "init"], { cwd: `${root}/project`, home: `${root}/home` });
    assertEquals(run.code, 2);
    assertEquals(run.stdout, "");
    assertMatch(run.stderr, /^No hooks to test: .*Add hooks to \.claude\/settings\.json/);
    assertEquals(await Array.fromAsync(Deno.readDir(`${root}/project`)), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("hooks init --name refuses a path (exit 2)", async () => {
  await withProject(`${REPO_ROOT}/fixtures/hooks_init/bash_jq_guard`, async (project, home) => {
    const run = await runCli(["hooks", "init", "--name", "../x"], { cwd: project, home });
    assertEquals(run.code, 2);
    assertStringIncludes(
      run.stderr,
      '--name must be a file name of letters, digits, ".", "_" and "-"',
    );
  });
});
