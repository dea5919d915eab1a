/**
 * Session cases through the real launcher: whatever the scripted model does, the project and
 * what lies around it are untouched, and the report says which commands were only answered.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { LAUNCHER, withTempProject } from "../helpers/run_cli.ts";
import { hooksTest, PROJECT, reportLines, scenario, SETTINGS } from "./hooks_test_fixture.ts";

Deno.test("--help says session cases run in a copy and their shell commands are answered, not run", async () => {
  await hooksTest({}, ["--help"], (result) => {
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stdout, "Session cases run in a temporary copy of the project");
    assertStringIncludes(result.stdout, "answered from the scenario, not run");
  });
});

Deno.test("a session case whose guard never fires deletes nothing, and the report says the command was only answered", async () => {
  // Matched on Claude Code's "Bash": under --compat llama the guard never sees "shell".
  const settings = SETTINGS.replace('"matcher": "shell"', '"matcher": "Bash"');
  const unguarded = {
    name: "rm -rf victim is refused",
    session: {
      model: {
        turns: [
          { toolCalls: [{ name: "shell", input: { command: "rm -rf victim" } }] },
          {
            toolCalls: [{ name: "fs_write", input: { file_path: "../outside.txt", content: "x" } }],
          },
          { text: "Done." },
        ],
      },
      prompts: ["clean up"],
    },
    // The write leaves the case's copy (its ".." is the case's own place): refused.
    expect: {
      tools: [{ name: "shell", dispatched: false }, { name: "fs_write", status: "failed" }],
    },
  };
  await hooksTest(
    {
      ...PROJECT,
      "project/.claude/settings.json": settings,
      "project/victim/keep.txt": "precious\n",
      "project/.claude/hooks-tests/guard.test.jsonc": scenario([unguarded]),
    },
    ["--compat", "llama"],
    (result, dir) => {
      const lines = reportLines(result, 1);
      assertEquals(lines.slice(0, 4), [
        ".claude/hooks-tests/guard.test.jsonc",
        "  ✗ rm -rf victim is refused (N ms)",
        "      shell answered, not run: rm -rf victim → exit 0",
        `      expect.tools[0].dispatched at .claude/hooks-tests/guard.test.jsonc:${
          scenario([unguarded]).split("\n").findIndex((line) => line.includes('"dispatched"')) + 1
        }`,
      ]);
      assertStringIncludes(
        result.stdout,
        'Expected "shell" (call 1) not to run, but it was dispatched (the scripted terminal ' +
          "answered it; nothing was executed)",
      );
      assertEquals(Deno.readTextFileSync(`${dir}/project/victim/keep.txt`), "precious\n");
      // Only the shell expectation fails: the write out of the copy was refused.
      assert(!result.stdout.includes("expect.tools[1]"), result.stdout);
    },
  );
});

function existsSync(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

Deno.test("Ctrl-C ends the running session case at once, reports it and removes its copy of the project", async () => {
  // Unique, so the check for survivors finds only this test's processes.
  const seconds = `41.${Math.floor(Math.random() * 1e6)}`;
  const slow = JSON.stringify({
    hooks: {
      UserPromptSubmit: [{
        hooks: [{
          type: "command",
          command: `cat > /dev/null; touch "$STARTED"; sleep ${seconds}`,
        }],
      }],
    },
  });
  const session = {
    name: "first",
    session: { model: { turns: [{ text: "hi" }] }, prompts: ["hi"] },
    expect: { stopReason: "end_turn" },
  };
  await withTempProject(
    { "home/tmp/.keep": "", "project/.claude/settings.json": slow },
    async (dir) => {
      await Deno.mkdir(`${dir}/project/.claude/hooks-tests`);
      await Deno.writeTextFile(
        `${dir}/project/.claude/hooks-tests/slow.test.jsonc`,
        JSON.stringify({
          env: { STARTED: `${dir}/started` },
          cases: [session],
        }),
      );
      const child = new Deno.Command(LAUNCHER, {
        args: ["hooks", "test"],
        cwd: `${dir}/project`,
        clearEnv: true,
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: `${dir}/home`,
          TMPDIR: `${dir}/home/tmp`,
          LANG: "C.UTF-8",
          NO_COLOR: "1",
        },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      let ended = false;
      const output = child.output().finally(() => ended = true);
      const deadline = setTimeout(() => child.kill("SIGKILL"), 30_000);
      try {
        while (!ended && !existsSync(`${dir}/started`)) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        child.kill("SIGINT");
        const result = await output;
        const stdout = new TextDecoder().decode(result.stdout);
        const stderr = new TextDecoder().decode(result.stderr);
        assertEquals(result.code, 130, stdout + stderr);
        assertEquals(reportLines({ code: 130, stdout, stderr: "" }, 130).slice(0, 4), [
          ".claude/hooks-tests/slow.test.jsonc",
          "  ! first (N ms)",
          "      could not run at .claude/hooks-tests/slow.test.jsonc:1",
          "      Interrupted: the run was stopped before this case finished",
        ]);
        assertEquals(
          stderr,
          "Interrupted: the cases still running were stopped and their temporary places removed\n",
        );
      } finally {
        clearTimeout(deadline);
        await output.catch(() => {});
      }
      assertEquals([...Deno.readDirSync(`${dir}/home/.cache/llama-agent/hooks-test`)], []);
      assertEquals(await livingPidsMatching(`sleep ${seconds}`), []);
    },
  );
});
