/**
 * The files the `hooks` commands write into a project are written as the agent's own confined
 * writes: never through a symlink that leads out of the launch directory, HOME and the project,
 * and a refusal names the link, where it leads and what to do. Each "outside" is a temp dir of
 * its own, and each test checks that nothing there was written or created.
 *
 * `hooks init` runs through the real launcher, where its write escaped. `hooks test --update` and
 * `hooks lint --fix` run in-process (`runCli` with this test's permissions): the launcher cannot
 * even read a file outside its grant, so only there does the confinement alone stand between a
 * link and the file it leads to.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { runCli as runLauncher, withTempProject } from "../helpers/run_cli.ts";
import { runCli } from "../../src/cli/run_cli.ts";
import type { CliIo } from "../../src/cli/command_spec.ts";
import { GUARD, PROJECT, scenario, SETTINGS, WRONG_REASON } from "./hooks_test_fixture.ts";
// A case's hooks run through the spawn path, which opens the C library for the rest of the
// process: loaded here, it is not counted as a test's open resource.
import "../../src/os/process/spawn_path.ts";

/** A temp dir outside the project, removed after `fn`; its real path. */
async function withOutside(fn: (outside: string) => Promise<void>): Promise<void> {
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "outside_" }));
  try {
    await fn(outside);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
}

/** Every entry under `dir`, relative, sorted. */
async function entriesOf(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string, prefix: string) => {
    for await (const entry of Deno.readDir(path)) {
      found.push(prefix + entry.name);
      if (entry.isDirectory) await walk(`${path}/${entry.name}`, `${prefix}${entry.name}/`);
    }
  };
  await walk(dir, "");
  return found.sort();
}

/** The reason a write through `link` (shown as given) to `target` is refused. */
function leadsOut(link: string, target: string, roots: readonly string[]): string {
  return `"${link}" is a symlink to "${target}", outside the allowed directories (` +
    `${roots.map((root) => `"${root}"`).join(", ")}), and llama-agent writes nothing through a ` +
    "link that leads out of them: make it a directory, or a link that stays inside them";
}

interface InProcessRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `runCli` in this process, launched in `cwd` with `home` as HOME. */
async function runInProcess(
  args: readonly string[],
  cwd: string,
  home: string,
): Promise<InProcessRun> {
  let stdout = "";
  let stderr = "";
  const env: Record<string, string> = { HOME: home, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdoutIsTty: false,
    stderrIsTty: false,
    env: (name) => env[name],
    cwd,
    stdinStream: () => new ReadableStream(),
    stdoutStream: () => new WritableStream(),
    routeConsoleToStderr: () => Promise.resolve(),
    onTermination: () => () => {},
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

const INIT_PROJECT = {
  "home/tmp/.keep": "",
  "project/.claude/settings.json": SETTINGS,
  "project/.claude/hooks/guard.sh": GUARD,
};

function hooksInit(dir: string) {
  return runLauncher(["hooks", "init"], {
    cwd: `${dir}/project`,
    home: `${dir}/home`,
    env: { TMPDIR: `${dir}/home/tmp` },
  });
}

Deno.test("hooks init refuses a .claude/hooks-tests linked out of the project, naming the link, and writes nothing there", async () => {
  await withOutside(async (outside) => {
    await withTempProject(INIT_PROJECT, async (dir) => {
      await Deno.symlink(outside, `${dir}/project/.claude/hooks-tests`);
      const init = await hooksInit(dir);
      assertEquals([init.code, init.stdout], [2, ""]);
      assertEquals(
        init.stderr,
        'Cannot write ".claude/hooks-tests/project.test.jsonc": ' +
          leadsOut(".claude/hooks-tests", outside, [`${dir}/project`, `${dir}/home`]) + "\n",
      );
      assertEquals(await entriesOf(outside), []);
    });
  });
});

Deno.test("hooks init through a dangling link leading out creates no directory where it leads", async () => {
  await withOutside(async (outside) => {
    await withTempProject(INIT_PROJECT, async (dir) => {
      await Deno.symlink(`${outside}/a/b`, `${dir}/project/.claude/hooks-tests`);
      const init = await hooksInit(dir);
      assertEquals(init.code, 2, init.stdout);
      assertStringIncludes(
        init.stderr,
        leadsOut(".claude/hooks-tests", `${outside}/a/b`, [`${dir}/project`, `${dir}/home`]),
      );
      assertEquals(await entriesOf(outside), []);
    });
  });
});

Deno.test("hooks init through a link that stays in the project writes there and says where", async () => {
  await withTempProject({ ...INIT_PROJECT, "project/tests/.keep": "" }, async (dir) => {
    await Deno.symlink("../tests", `${dir}/project/.claude/hooks-tests`);
    const init = await hooksInit(dir);
    assertEquals([init.code, init.stderr], [0, ""], init.stdout);
    assertStringIncludes(
      init.stdout,
      'Wrote .claude/hooks-tests/project.test.jsonc (written to "tests/project.test.jsonc"): ',
    );
    assert((await Deno.lstat(`${dir}/project/tests/project.test.jsonc`)).isFile);
  });
});

Deno.test("hooks test --update leaves a scenario linked from outside the project as it was, and says why", async () => {
  await withOutside(async (outside) => {
    const text = scenario([WRONG_REASON]);
    await Deno.writeTextFile(`${outside}/guard.test.jsonc`, text);
    await withTempProject(PROJECT, async (dir) => {
      const link = `${dir}/project/.claude/hooks-tests/guard.test.jsonc`;
      await Deno.mkdir(`${dir}/project/.claude/hooks-tests`);
      await Deno.symlink(`${outside}/guard.test.jsonc`, link);
      const run = await runInProcess(
        ["hooks", "test", "--update"],
        `${dir}/project`,
        `${dir}/home`,
      );
      // The failure was not updated, so the run still fails.
      assertEquals([run.code, run.stderr], [1, ""]);
      assertStringIncludes(
        run.stdout,
        `Cannot update "${link}": ` +
          leadsOut(
            ".claude/hooks-tests/guard.test.jsonc",
            `${outside}/guard.test.jsonc`,
            [`${dir}/project`, `${dir}/home`],
          ) + "\n",
      );
      assertEquals(await Deno.readTextFile(`${outside}/guard.test.jsonc`), text);
      assertEquals(await entriesOf(outside), ["guard.test.jsonc"]);
    });
  });
});

const FOR_CLAUDE_CODE = JSON.stringify({
  hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] },
});

Deno.test("hooks lint --fix leaves a settings file linked from outside the project as it was, and says why", async () => {
  await withOutside(async (outside) => {
    await Deno.writeTextFile(`${outside}/claude.json`, FOR_CLAUDE_CODE);
    await withTempProject({ "home/.keep": "", "project/.claude/.keep": "" }, async (dir) => {
      const link = `${dir}/project/.claude/settings.json`;
      await Deno.symlink(`${outside}/claude.json`, link);
      const run = await runInProcess(
        ["hooks", "lint", "--fix", "--compat", "llama"],
        `${dir}/project`,
        `${dir}/home`,
      );
      assertEquals(run.code, 1, run.stdout);
      assertEquals(
        run.stderr,
        `Cannot fix "${link}": ` +
          leadsOut(".claude/settings.json", `${outside}/claude.json`, [
            `${dir}/project`,
            `${dir}/home`,
          ]) + "\n",
      );
      assertEquals(await Deno.readTextFile(`${outside}/claude.json`), FOR_CLAUDE_CODE);
      assertEquals(await entriesOf(outside), ["claude.json"]);
    });
  });
});
