/**
 * SessionEnd over real stdio, on the real agent (`bin/llama-agent acp --compat claude`, a
 * scripted model): it runs when the agent is told to stop (SIGTERM, or stdin closing), within
 * its budget, which CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS in the agent's environment sets.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { AcpHarness, isObject } from "../helpers/acp_harness.ts";
import { withTempProject } from "../helpers/run_cli.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { settings } from "../acp/hook_fixtures.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import { INITIALIZE_PARAMS, withScriptedAgent } from "./scripted_agent.ts";

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

async function newSession(agent: AcpHarness, cwd: string): Promise<string> {
  await agent.call("initialize", INITIALIZE_PARAMS);
  const created = await agent.call("session/new", { cwd, mcpServers: [] });
  assert(isObject(created) && typeof created.sessionId === "string", JSON.stringify(created));
  return created.sessionId;
}

Deno.test("SIGTERM of the agent runs the SessionEnd hooks of its open session, then it exits 0", async () => {
  await withScriptedAgent({
    args: ["--compat", "claude"],
    files: {
      ".claude/settings.json": settings({
        SessionEnd: [[null, 'cat > "$CLAUDE_PROJECT_DIR/end.json"']],
      }),
    },
  }, async ({ agent, project, model }) => {
    const sessionId = await newSession(agent, project);
    const [pid, ...others] = await livingPidsMatching(`--model ${model}`);
    assert(pid !== undefined && others.length === 0, "exactly one agent process");
    Deno.kill(pid, "SIGTERM");
    // Its stdin still open: the signal, not EOF, ends the session.
    await waitUntil(async () => !(await livingPidsMatching(`--model ${model}`)).length, "the exit");
    const { code, signal } = await agent.close();
    assertEquals([code, signal], [0, null]);
    const payload = JSON.parse(await Deno.readTextFile(`${project}/end.json`));
    assertEquals([payload.session_id, payload.hook_event_name, payload.reason], [
      sessionId,
      "SessionEnd",
      "other",
    ]);
  });
});

/** The real agent in the claude profile with `env` added, its project holding `hooks`. */
async function withClaudeAgent(
  env: Readonly<Record<string, string>>,
  sessionEndHook: Record<string, unknown>,
  fn: (agent: AcpHarness, project: string) => Promise<void>,
): Promise<void> {
  const files = {
    "home/.keep": "",
    "project/script.json": JSON.stringify({ turns: [] }),
    "project/.claude/settings.json": JSON.stringify({
      hooks: { SessionEnd: [{ hooks: [{ type: "command", ...sessionEndHook }] }] },
    }),
  };
  await withTempProject(files, async (dir) => {
    const agent = await AcpHarness.start({
      cwd: `${dir}/project`,
      home: `${dir}/home`,
      args: ["--model", "scripted:script.json", "--compat", "claude"],
      env,
    });
    try {
      await fn(agent, `${dir}/project`);
    } finally {
      await agent.close({ allowViolations: true });
    }
  });
}

Deno.test("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS raises the budget, for a hook without a timeout of its own too", async () => {
  await withClaudeAgent(
    { CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS: "20000" },
    { command: 'sleep 2; touch "$CLAUDE_PROJECT_DIR/finished"' },
    async (agent, project) => {
      await newSession(agent, project);
      const { code } = await agent.close();
      assertEquals(code, 0);
      assert(await exists(`${project}/finished`), "it ran past 1.5 s to its end");
    },
  );
});

Deno.test("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS lowers the budget below a hook's own timeout: it is killed", async () => {
  const marker = `20.${Math.floor(Math.random() * 1e6)}`;
  await withClaudeAgent(
    { CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS: "300" },
    {
      command: `touch "$CLAUDE_PROJECT_DIR/started"; sleep ${marker}; ` +
        'touch "$CLAUDE_PROJECT_DIR/late"',
      timeout: 60,
    },
    async (agent, project) => {
      await newSession(agent, project);
      const { code, stderr } = await agent.close();
      assertEquals(code, 0);
      assert(await exists(`${project}/started`), "the hook ran");
      assertEquals(await livingPidsMatching(`sleep ${marker}`), [], "nothing of it survives");
      assertEquals(await exists(`${project}/late`), false);
      assert(stderr.includes("0.3 s budget"), stderr);
    },
  );
});
