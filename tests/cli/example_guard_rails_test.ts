/**
 * The guard-rails example is a promise to users: its scenario suite passes with the real
 * launcher, as their CI would run it.
 */
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { REPO_ROOT, runCli } from "../helpers/run_cli.ts";

Deno.test("examples/guard-rails: its hooks test suite passes", async () => {
  const home = await Deno.makeTempDir({ prefix: "guard_rails_home_" });
  try {
    const run = await runCli(["hooks", "test"], { cwd: `${REPO_ROOT}/examples/guard-rails`, home });
    assertEquals(
      run.code,
      0,
      `${run.stdout}\n${run.stderr}\n(the example's hooks need jq and a POSIX shell)`,
    );
    assertMatch(run.stdout, /^15 passed, 0 failed in [\d.]+ s$/m);
    // Nothing was left behind in the user's scratch space.
    const scratch = await Array.fromAsync(Deno.readDir(`${home}/.cache/llama-agent/hooks-test`))
      .catch(() => []);
    assertEquals(scratch, []);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
