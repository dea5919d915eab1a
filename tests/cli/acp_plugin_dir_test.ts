/**
 * `acp --plugin-dir DIR` over real stdio: repeatable, relative to the launch directory, checked
 * before the protocol starts (exit 2 for a typo), and ignored with one warning under the llama
 * profile, which reads no plugins.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { AcpHarness } from "../helpers/acp_harness.ts";
import { runCli } from "../helpers/run_cli.ts";
import { pluginHooksJson, writeFiles, writePlugin } from "../hooks/plugin_fixture.ts";

async function inTemp<T>(fn: (dirs: { home: string; project: string }) => Promise<T>) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "acp_plugin_dir_" }));
  try {
    const dirs = { home: `${root}/home`, project: `${root}/project` };
    await Deno.mkdir(dirs.home);
    await Deno.mkdir(dirs.project);
    await Deno.writeTextFile(`${dirs.project}/script.json`, '{"turns":[]}');
    return await fn(dirs);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** A plugin whose SessionStart hook writes `<name>` into the project's `started` file. */
function startingPlugin(dir: string, name: string): Promise<string> {
  return writePlugin(dir, name, {
    hooksJson: pluginHooksJson({
      SessionStart: [{
        hooks: [{ type: "command", command: `echo ${name} >> "$CLAUDE_PROJECT_DIR/started"` }],
      }],
    }),
  });
}

async function startSession(project: string, home: string, args: readonly string[]) {
  const agent = await AcpHarness.start({
    cwd: project,
    home,
    args: ["--model", "scripted:script.json", ...args],
  });
  try {
    await agent.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await agent.call("session/new", { cwd: project, mcpServers: [] }, { timeoutMs: 30_000 });
    return await agent.close({ timeoutMs: 10_000 });
  } finally {
    await agent.close({ allowViolations: true });
  }
}

Deno.test("acp --plugin-dir that is missing or not a directory exits 2 before the protocol, naming it", async () => {
  await inTemp(async ({ home, project }) => {
    await writeFiles(project, { "file.txt": "x" });
    const cases: [string, string][] = [
      ["missing", 'Cannot load --plugin-dir "missing": no such directory'],
      ["file.txt", 'Cannot load --plugin-dir "file.txt": not a directory'],
    ];
    for (const [dir, message] of cases) {
      const result = await runCli(
        ["acp", "--compat", "claude", "--plugin-dir", dir],
        { cwd: project, home, stdin: "" },
      );
      assertEquals([result.code, result.stdout], [2, ""], result.stderr);
      assertStringIncludes(result.stderr, message);
    }
  });
});

Deno.test("acp --plugin-dir is repeatable and relative to the launch directory: each plugin's SessionStart runs", async () => {
  await inTemp(async ({ home, project }) => {
    await startingPlugin(`${project}/plugins/first`, "first");
    await startingPlugin(`${project}/plugins/second`, "second");
    const { code, stderr } = await startSession(project, home, [
      "--compat",
      "claude",
      "--plugin-dir",
      "plugins/first",
      "--plugin-dir=plugins/second",
    ]);
    assertEquals(code, 0, stderr);
    const started = (await Deno.readTextFile(`${project}/started`)).trim().split("\n");
    assertEquals(started.toSorted(), ["first", "second"]);
  });
});

Deno.test("acp --plugin-dir under the llama profile warns once on stderr and loads no plugin", async () => {
  await inTemp(async ({ home, project }) => {
    await startingPlugin(`${project}/plugin`, "plug");
    const { code, stderr } = await startSession(project, home, [
      "--compat",
      "llama",
      "--plugin-dir",
      "plugin",
    ]);
    assertEquals(code, 0, stderr);
    const warning = "--plugin-dir is ignored: plugins load only with --compat claude";
    assertEquals(stderr.split(warning).length - 1, 1, stderr);
    const started = await Deno.stat(`${project}/started`).then(() => true, () => false);
    assertEquals(started, false, "no plugin hook ran");
  });
});

Deno.test("acp --plugin-dir without --compat: the plugin asked for decides Claude Code's tools, and its SessionStart runs", async () => {
  await inTemp(async ({ home, project }) => {
    await startingPlugin(`${project}/plugin`, "plug");
    const { code, stderr } = await startSession(project, home, ["--plugin-dir", "plugin"]);
    assertEquals(code, 0, stderr);
    assertStringIncludes(
      stderr,
      "profile claude (auto: --plugin-dir asks for plugins, which load only with Claude Code's " +
        "tools)",
    );
    assertEquals((await Deno.readTextFile(`${project}/started`)).trim(), "plug");
  });
});
