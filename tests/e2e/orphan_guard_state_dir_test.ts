/**
 * Where the real program keeps its orphan guard's log: `$XDG_STATE_HOME/llama-agent` when that
 * can be written, else `$HOME/.local/state/llama-agent`, which the agent may always write. A
 * guard that cannot start says so on stderr, so a run that says nothing had one.
 */
import { assertEquals } from "../helpers/assert.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";
import { exists } from "../hooks/engine_project.ts";

/** A project whose SessionStart hook starts one process group: the guard's first. */
const FILES = {
  "home/.keep": "",
  "outside/.keep": "",
  "project/.claude/settings.json": JSON.stringify({
    hooks: { SessionStart: [{ hooks: [{ type: "command", command: "true" }] }] },
  }),
};

async function runHookWithStateHome(dir: string, stateHome: string) {
  return await runCli(["hooks", "run", "SessionStart"], {
    cwd: `${dir}/project`,
    home: `${dir}/home`,
    env: { XDG_STATE_HOME: stateHome },
  });
}

Deno.test({
  name: "an $XDG_STATE_HOME the agent may not write: the guard keeps its log under $HOME instead",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await withTempProject(FILES, async (dir) => {
      // The launcher lets the agent write only its launch directory and $HOME.
      const run = await runHookWithStateHome(dir, `${dir}/outside`);
      assertEquals([run.code, run.stderr], [0, ""]);
      assertEquals(await exists(`${dir}/outside/llama-agent`), false);
      assertEquals(await exists(`${dir}/home/.local/state/llama-agent`), true, "the guard ran");
    });
  },
});

Deno.test({
  name:
    "a relative $XDG_STATE_HOME is ignored, as the XDG specification says: nothing lands in the project",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await withTempProject(FILES, async (dir) => {
      const run = await runHookWithStateHome(dir, "state");
      assertEquals([run.code, run.stderr], [0, ""]);
      assertEquals(await exists(`${dir}/project/state`), false);
      assertEquals(await exists(`${dir}/home/.local/state/llama-agent`), true, "the guard ran");
    });
  },
});
