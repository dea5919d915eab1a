/**
 * The real agent over stdio with configuration files that are not small regular files: a
 * settings file that is a FIFO costs only itself (`session/new` answers, the rest of the chain
 * runs, stdin EOF still ends the agent), and a `--rules` FIFO is refused before the protocol.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { AcpHarness } from "../helpers/acp_harness.ts";
import { withTempProject } from "../helpers/run_cli.ts";
import { runCliWatched } from "../helpers/watched_cli.ts";
import { makeFifo } from "../hooks/special_files.ts";

/** A HOME and a project, each with an empty `.claude`. */
function inTemp(fn: (dirs: { home: string; project: string }) => Promise<void>): Promise<void> {
  return withTempProject(
    { "home/.claude/.keep": "", "project/.claude/.keep": "" },
    (root) => fn({ home: `${root}/home`, project: `${root}/project` }),
  );
}

Deno.test("a settings file that is a FIFO: session/new answers, the rest of the chain runs, EOF ends the agent", async () => {
  await inTemp(async ({ home, project }) => {
    await makeFifo(`${project}/.claude/settings.json`);
    await Deno.writeTextFile(
      `${project}/.claude/settings.local.json`,
      JSON.stringify({
        hooks: {
          SessionStart: [{
            hooks: [{ type: "command", command: 'printf started > "$CLAUDE_PROJECT_DIR/started"' }],
          }],
        },
      }),
    );
    await Deno.writeTextFile(`${project}/script.json`, '{"turns":[]}');
    const agent = await AcpHarness.start({
      cwd: project,
      home,
      args: ["--model", "scripted:script.json"],
    });
    try {
      await agent.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const answer = await agent.request("session/new", { cwd: project, mcpServers: [] }, {
        timeoutMs: 30_000,
      });
      assertEquals(answer.error, undefined);
      assertEquals(typeof (answer.result as { sessionId?: unknown }).sessionId, "string");
      // SessionStart runs before session/new answers: the local file was loaded.
      assertEquals(await Deno.readTextFile(`${project}/started`), "started");
      const { code, stderr } = await agent.close({ timeoutMs: 10_000 });
      assertEquals(code, 0);
      assertStringIncludes(
        stderr,
        `hooks: ${project}/.claude/settings.json: error: Cannot read settings file: ` +
          "it is a FIFO, not a regular file [SETTINGS_UNREADABLE]\n",
      );
    } finally {
      await agent.close({ allowViolations: true });
    }
  });
});

Deno.test("a --rules file that is a FIFO is refused before the protocol: exit 2, naming it", async () => {
  await inTemp(async ({ home, project }) => {
    await makeFifo(`${project}/rules.json`);
    const result = await runCliWatched(["acp", "--rules", "rules.json"], {
      cwd: project,
      home,
      deadlineMs: 30_000,
    });
    assert(result.killed === undefined, `acp was killed: ${result.killed}\n${result.stderr}`);
    assertEquals([result.code, result.stdout], [2, ""]);
    assertStringIncludes(
      result.stderr,
      `Cannot load permission rules from "${project}/rules.json" (--rules): it is a FIFO, not a ` +
        "regular file",
    );
  });
});
