/**
 * The claude-code example is the promise of the `claude` profile: a settings file written for
 * Claude Code, with scripts that check Claude Code's tool names, passes its suite unmodified.
 */
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { REPO_ROOT, runCli } from "../helpers/run_cli.ts";

Deno.test("examples/claude-code: its hooks test suite passes unmodified with the claude profile", async () => {
  const home = await Deno.makeTempDir({ prefix: "claude_code_example_home_" });
  try {
    const run = await runCli(["hooks", "test"], { cwd: `${REPO_ROOT}/examples/claude-code`, home });
    assertEquals(
      run.code,
      0,
      `${run.stdout}\n${run.stderr}\n(the example's hooks need bash, jq and python3)`,
    );
    assertMatch(run.stdout, /^12 passed, 0 failed in [\d.]+ s$/m);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
