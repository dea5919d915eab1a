/**
 * `scaffoldSuite` (what `hooks init` writes) on real projects: the bundled guard-rails example
 * and the two fixtures of fixtures/hooks_init. The suite it returns must pass under the same
 * `runScenarios` that `hooks test` runs, record what the guards do to the dangerous calls their
 * scripts suggest, and leave the user's HOME untouched.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { copyTree } from "../../src/testing/runner/copy_tree.ts";
import { runScenarios } from "../../src/testing/runner/run_scenarios.ts";
import { loadScenarioFile } from "../../src/testing/scenarios/scenario_file.ts";
import { type Scaffold, scaffoldSuite } from "../../src/testing/scaffold/scaffold_suite.ts";
import { SCENARIO_SCHEMA_URL } from "../../src/testing/scenarios/scenario_json_schema.ts";

interface Scaffolded {
  readonly project: string;
  readonly scaffold: Scaffold;
  /** The suite written into the project and run as `hooks test` runs it. */
  readonly run: Awaited<ReturnType<typeof runScenarios>> | undefined;
  readonly realHomeEntries: readonly string[];
}

/** Copies `source` to a temp project (without its suites), scaffolds, then runs the suite. */
async function scaffoldCopy(
  source: string,
  check: (done: Scaffolded) => void | Promise<void>,
  profile = compatProfile("llama"),
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "scaffold_test_" }));
  try {
    const project = `${root}/project`;
    const realHome = `${root}/real_home`;
    await Deno.mkdir(realHome);
    await copyTree(source, project, {});
    await Deno.remove(`${project}/.claude/hooks-tests`, { recursive: true }).catch(() => {});
    const outer: Record<string, string> = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: realHome,
      XDG_CACHE_HOME: `${root}/cache`,
    };
    const env = (name: string) => outer[name];
    const scaffold = await scaffoldSuite({ projectDir: project, profile, env });
    let run: Scaffolded["run"];
    if (scaffold.ok) {
      const file = `${project}/.claude/hooks-tests/init.test.jsonc`;
      await Deno.mkdir(`${project}/.claude/hooks-tests`, { recursive: true });
      await Deno.writeTextFile(file, scaffold.text);
      run = await runScenarios({ projectDir: project, files: [file], env, profile });
    }
    const realHomeEntries = (await Array.fromAsync(Deno.readDir(realHome))).map((e) => e.name);
    await check({ project, scaffold, run, realHomeEntries });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function passedNames(done: Scaffolded): string[] {
  assert(done.scaffold.ok, done.scaffold.ok ? "" : done.scaffold.message);
  assert(done.run !== undefined);
  assertEquals(done.run.problems, []);
  const notPassed = done.run.results.filter((r) => r.status !== "passed");
  assertEquals(notPassed, [], "every scaffolded case passes at once");
  assertEquals(done.realHomeEntries, [], "the real HOME is never written");
  return done.run.results.map((r) => r.name);
}

Deno.test("init's suite for examples/guard-rails passes at once and refuses rm -rf / as the guard does", async () => {
  await scaffoldCopy(`${REPO_ROOT}/examples/guard-rails`, (done) => {
    const names = passedNames(done);
    assert(
      names.includes('PreToolUse shell "rm -rf /": denied by block-destructive.sh'),
      names.join("\n"),
    );
    assert(names.includes('PreToolUse shell "cat README.md": denied by prefer-fs-read.sh'));
    assert(names.includes("Stop: stop-reminder.sh shows a message"));
    assert(names.some((name) => name.startsWith("session: ")), "one session case");
    if (!done.scaffold.ok) return;
    assertEquals(done.scaffold.sessionCases, 1);
    // The prompt hook gets a note saying how to test it, not an event case that only errs.
    assertMatch(done.scaffold.text, /\(prompt hook, UserPromptSubmit\): event cases do not\s/);
    assert(!names.some((name) => name.startsWith("UserPromptSubmit")));
  });
});

Deno.test("init's suite for a bash + jq guard records the sudo refusal and the ask for curl | sh", async () => {
  await scaffoldCopy(`${REPO_ROOT}/fixtures/hooks_init/bash_jq_guard`, (done) => {
    const names = passedNames(done);
    assert(
      names.includes('PreToolUse shell "sudo rm -rf /var/lib": denied by no-sudo.sh'),
      names.join("\n"),
    );
    assert(names.some((n) => /^PreToolUse shell "curl .*": no-sudo\.sh asks the user$/.test(n)));
    assert(names.includes('PreToolUse shell "ls -la": no-sudo.sh lets it through'));
    if (!done.scaffold.ok) return;
    // An "ask" has no reason an event case can assert: the decision is what is recorded.
    assertStringIncludes(done.scaffold.text, '"decision": "ask"');
  });
});

Deno.test("init's suite for a python JSON guard records the .env denial and the SessionStart context", async () => {
  await scaffoldCopy(`${REPO_ROOT}/fixtures/hooks_init/python_json_guard`, (done) => {
    const names = passedNames(done);
    assert(
      names.includes('PreToolUse fs_read ".env": denied by secrets_guard.py'),
      names.join("\n"),
    );
    assert(names.includes('PreToolUse fs_read "README.md": secrets_guard.py lets it through'));
    if (!done.scaffold.ok) return;
    assertStringIncludes(done.scaffold.text, '"reason": ".env holds secrets: leave it alone"');
    assertStringIncludes(done.scaffold.text, '"context": "Use pnpm, not npm"');
  });
});

Deno.test("init's suite starts with $schema and comments that say what to change", async () => {
  await scaffoldCopy(`${REPO_ROOT}/fixtures/hooks_init/bash_jq_guard`, async (done) => {
    assert(done.scaffold.ok);
    const lines = done.scaffold.text.split("\n");
    const firstKey = lines.find((line) => /^\s*"/.test(line));
    assertEquals(firstKey, `  "$schema": ${JSON.stringify(SCENARIO_SCHEMA_URL)},`);
    assertMatch(done.scaffold.text, /\/\/ Each "expect" is what the hooks do now\. Change it/);
    // A comment above each case says where its input comes from.
    assertMatch(
      done.scaffold.text,
      /\/\/ A call no-sudo\.sh may exist to stop, as its own text suggests/,
    );
    // And the file is a valid scenario as written.
    const file = `${done.project}/.claude/hooks-tests/init.test.jsonc`;
    const loaded = await loadScenarioFile(file);
    assert(loaded.ok, loaded.ok ? "" : JSON.stringify(loaded.problems));
  });
});

Deno.test("init on Claude Code hooks under the claude profile writes a suite that says so and passes", async () => {
  await scaffoldCopy(`${REPO_ROOT}/examples/claude-code`, (done) => {
    const names = passedNames(done);
    assert(
      names.includes('PreToolUse Read ".env": denied by protect_secrets.py'),
      names.join("\n"),
    );
    // The "if" rule "Bash(git commit:*)" gets a commit for its hook to judge.
    assert(
      names.some((n) =>
        n.startsWith('PreToolUse Bash "git commit') && n.endsWith("check-commit-message.sh")
      ),
    );
    if (done.scaffold.ok) assertStringIncludes(done.scaffold.text, '"compat": "claude"');
  }, compatProfile("claude"));
});

Deno.test("a project without hooks gets a message that says what to do, and no suite", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "scaffold_test_" }));
  try {
    await Deno.mkdir(`${root}/.claude`);
    await Deno.writeTextFile(`${root}/.claude/settings.json`, '{"model": "x"}');
    const env = (name: string) =>
      ({ HOME: root, XDG_CACHE_HOME: `${root}/cache` } as Record<string, string>)[name];
    const scaffold = await scaffoldSuite({
      projectDir: root,
      profile: compatProfile("llama"),
      env,
    });
    assert(!scaffold.ok);
    assertMatch(scaffold.message, /^No hooks to test: .*Add hooks to \.claude\/settings\.json/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("hooks that never run under the profile give a message naming the other profile", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "scaffold_test_" }));
  try {
    await copyTree(`${REPO_ROOT}/examples/claude-code`, `${root}/p`, {});
    const env = (name: string) =>
      ({ HOME: root, XDG_CACHE_HOME: `${root}/cache` } as Record<string, string>)[name];
    const scaffold = await scaffoldSuite({
      projectDir: `${root}/p`,
      profile: compatProfile("llama"),
      env,
    });
    assert(!scaffold.ok);
    assertMatch(scaffold.message, /never run under the "llama" profile.*--compat claude$/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
