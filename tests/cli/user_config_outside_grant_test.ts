/**
 * The config file where llama-agent may not read (an XDG_CONFIG_HOME outside the places the
 * binary is granted): a missing one is no config file, as it is anywhere, with no warning; one
 * that is there is still named, with why its settings are not used. Run in a Deno whose reads are
 * limited as the agent's are, since these tests run with every permission.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { pinnedEnv } from "../helpers/pinned_env.ts";
import { withTempProject } from "../helpers/run_cli.ts";

const REPO_ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** What `loadUserConfig` answers for `path` in a Deno that may read only the repository. */
async function loadedBeyondGrant(dir: string, path: string): Promise<unknown> {
  const probe = `${dir}/probe.ts`;
  await Deno.writeTextFile(
    probe,
    `import { loadUserConfig } from "${REPO_ROOT}/src/cli/options/user_config_file.ts";\n` +
      "const loaded = await loadUserConfig(Deno.args[0], [], { launchDir: '/x', home: '/y' });\n" +
      "console.log(JSON.stringify(loaded.ok ? " +
      "{ exists: loaded.config.exists, unreadable: loaded.config.unreadable ?? null } : loaded));\n",
  );
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--config=${REPO_ROOT}/deno.json`,
      `--allow-read=${REPO_ROOT},${probe}`,
      "--allow-run",
      "--allow-env",
      "--allow-sys",
      "--allow-ffi",
      probe,
      path,
    ],
    cwd: dir,
    clearEnv: true,
    env: pinnedEnv(
      `${dir}/home`,
      Deno.env.has("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {},
    ),
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assertEquals(output.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

Deno.test("a config file that is not there, outside what llama-agent may read, is no config file and no warning", async () => {
  await withTempProject({ "home/.keep": "", "outside/.keep": "" }, async (dir) => {
    const loaded = await loadedBeyondGrant(dir, `${dir}/outside/llama-agent/config.json`);
    assertEquals(loaded, { exists: false, unreadable: null });
  });
});

Deno.test("a config file that is there, outside what llama-agent may read, is named with why it is not used", async () => {
  await withTempProject(
    { "home/.keep": "", "outside/llama-agent/config.json": "{}" },
    async (dir) => {
      const path = `${dir}/outside/llama-agent/config.json`;
      const loaded = await loadedBeyondGrant(dir, path) as { unreadable: string };
      assertStringIncludes(
        loaded.unreadable,
        `Cannot read config file "${path}", so its settings are not used: llama-agent may only read`,
      );
    },
  );
});
