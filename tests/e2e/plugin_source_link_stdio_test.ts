/**
 * An installed plugin of a local marketplace whose `source` is a symlink leading out of the
 * marketplace, in a real session (`bin/llama-agent acp --compat claude` over real stdio): its
 * hooks do not run, as a `"../outside"` source's do not, and the agent's log says why. The same
 * plugin inside the marketplace runs, so the refusal is the link's.
 */
import { dirname } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import { pluginHooksJson, writeInstallRecords, writePlugin } from "../hooks/plugin_fixture.ts";
import { commandGroup } from "../hooks/temp_chain.ts";
import { INITIALIZE_PARAMS, withScriptedAgent } from "./scripted_agent.ts";

const LOG_RUN = pluginHooksJson({
  SessionStart: [commandGroup('echo ran >> "$CLAUDE_PROJECT_DIR/plugin.log"')],
});

async function runs(project: string): Promise<number> {
  try {
    return (await Deno.readTextFile(`${project}/plugin.log`)).split("\n").filter(Boolean).length;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}

Deno.test("a local marketplace's plugin whose source is a symlink out of the marketplace: its hooks do not run, and the agent says why", async () => {
  await withScriptedAgent({ args: ["--compat", "claude"] }, async ({ agent, project }) => {
    // Both under HOME, where the agent may read: what a link there leads to is readable.
    const home = `${dirname(project)}/home`;
    const market = `${home}/market`;
    const { sourceDir } = await writeInstallRecords(home, market, {
      enabled: true,
      source: "directory",
    });
    await writePlugin(sourceDir, "t2plug", { hooksJson: LOG_RUN });
    await agent.call("initialize", INITIALIZE_PARAMS);
    await agent.call("session/new", { cwd: project, mcpServers: [] });
    await waitUntil(async () => await runs(project) === 1, "the plugin's hook inside the market");

    // The same plugin moved out, its source now a link to it.
    const outside = `${home}/outside/t2plug`;
    await Deno.mkdir(dirname(outside), { recursive: true });
    await Deno.rename(sourceDir, outside);
    await Deno.symlink(outside, sourceDir);
    await agent.call("session/new", { cwd: project, mcpServers: [] });
    const { code, stderr } = await agent.close();
    assertEquals(code, 0);
    assertEquals(await runs(project), 1, "the linked plugin's hook ran");
    assertStringIncludes(
      stderr,
      `its source "./plugins/t2plug" is not inside the marketplace directory: it leads through ` +
        `a symlink to "${outside}", outside "${market}"`,
    );
    assert(stderr.includes("PLUGIN_SOURCE_OUTSIDE_MARKETPLACE"), stderr);
  });
});
