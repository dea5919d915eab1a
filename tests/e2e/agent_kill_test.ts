/**
 * `kill -9` of the real agent (`bin/llama-agent acp`) while it runs a shell command, a hook or an
 * MCP stdio server: nothing it started may outlive it. Nothing runs in the agent after SIGKILL,
 * so what ends them is the agent's orphan guard, a supervisor process that sees its pipe from
 * the agent close. Every process the agent starts inherits a mark in its environment
 * (`LLAMA_AGENT_TEST_MARK`), so `/proc` shows all of them, however deep; the supervisor gets no
 * environment of the agent's and is found as the agent's child by its name.
 */
import { assertEquals } from "../helpers/assert.ts";
import { AcpHarness } from "../helpers/acp_harness.ts";
import { pinnedEnv } from "../helpers/pinned_env.ts";
import { LAUNCHER, withTempProject } from "../helpers/run_cli.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { writeToolCallModel } from "../helpers/test_models.ts";
import { stdioFixture } from "../mcp/fixture_servers.ts";
import { allowAndRecord, textPrompt as text } from "./e2e_project.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import { group, hook, type HookProject, uniqueSeconds, withHookProject } from "./hook_project.ts";
import {
  childrenOf,
  killAll,
  MARK_VARIABLE,
  processesMarked,
  type ProcessInfo,
  stillRunning,
} from "./marked_processes.ts";

/** How long the processes may take to end after the agent is killed (the guard's grace is 1 s). */
const SURVIVOR_BOUND_MS = 10_000;
const GUARD_NAME = "llama-agent-orphan-guard";
const linuxOnly = Deno.build.os !== "linux";

async function startMarkedAgent(p: HookProject, model: string, mark: string) {
  const agent = await AcpHarness.start({
    cwd: p.cwd,
    home: p.home,
    args: ["--model", model, "--threads", "1", "--gpu", "off"],
    env: { [MARK_VARIABLE]: mark },
  });
  await agent.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
  allowAndRecord(agent);
  return agent;
}

/**
 * The guard's log files left in the agent's state directory (the supervisor removes its own).
 * The directory must exist: the guard made it, so its absence means the log went elsewhere.
 */
async function guardFilesIn(home: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${home}/.local/state/llama-agent`)) {
    if (entry.name.startsWith("orphan-guard-")) names.push(entry.name);
  }
  return names;
}

function isAgent(process: ProcessInfo): boolean {
  return process.args.includes("/main.ts acp ");
}

function describe(processes: readonly ProcessInfo[]): string[] {
  return processes.map((process) => `${process.pid} (group ${process.pgid}): ${process.args}`);
}

interface KillRun {
  /** What the agent had started when it was killed. */
  readonly started: readonly ProcessInfo[];
  readonly guards: readonly ProcessInfo[];
  /** What still lived `SURVIVOR_BOUND_MS` after the kill. */
  readonly survivors: readonly ProcessInfo[];
  readonly guardSurvivors: readonly ProcessInfo[];
}

/**
 * Once `ready` holds for what the agent started, SIGKILLs the agent and waits for all of it (and
 * its guard) to end. Whatever survives is SIGKILLed before this returns: no test leaves orphans,
 * on code without the guard either.
 */
async function killAgentOnce(
  agent: AcpHarness,
  mark: string,
  ready: (started: readonly ProcessInfo[]) => boolean,
  what: string,
): Promise<KillRun> {
  let marked: ProcessInfo[] = [];
  let guards: ProcessInfo[] = [];
  try {
    await waitUntil(
      async () => {
        marked = await processesMarked(mark);
        return ready(marked.filter((process) => !isAgent(process)));
      },
      what,
      60_000,
    );
    const agents = marked.filter(isAgent);
    assertEquals(agents.length, 1, `one agent process: ${describe(marked).join("; ")}`);
    const agentPid = agents[0]!.pid;
    guards = (await childrenOf(agentPid)).filter((child) => child.args.includes(GUARD_NAME));
    Deno.kill(agentPid, "SIGKILL");
    await agent.close({ allowViolations: true });
    let survivors: ProcessInfo[] = [];
    let guardSurvivors: ProcessInfo[] = [];
    const settled = async () => {
      survivors = await processesMarked(mark);
      guardSurvivors = await stillRunning(guards);
      return survivors.length === 0 && guardSurvivors.length === 0;
    };
    await waitUntil(settled, "the agent's processes to end", SURVIVOR_BOUND_MS).catch(() => {});
    return {
      started: marked.filter((process) => !isAgent(process)),
      guards,
      survivors,
      guardSurvivors,
    };
  } finally {
    await killAll([...await processesMarked(mark), ...await stillRunning(guards)]);
    await agent.close({ allowViolations: true });
  }
}

/** The checks every kill scenario makes. */
async function assertNothingSurvives(
  t: Deno.TestContext,
  run: KillRun,
  home: string,
): Promise<void> {
  await t.step("a supervisor runs beside the agent", () => {
    assertEquals(run.guards.length, 1, "the agent's children named " + GUARD_NAME);
  });
  await t.step("no process the agent started survives its kill -9", () => {
    assertEquals(
      describe(run.survivors),
      [],
      `survivors after kill -9: ${run.survivors.length} of ${run.started.length}`,
    );
  });
  await t.step("the supervisor exits once it has ended them, leaving no file", async () => {
    assertEquals(describe(run.guardSurvivors), []);
    assertEquals(await guardFilesIn(home), []);
  });
}

/** How a scenario has its prompt run `sleep <seconds>`: the model, and the session to use. */
interface SleepingPrompt {
  readonly model: string;
  readonly newSession: (agent: AcpHarness) => Promise<string>;
  readonly prompt: string;
  /** What runs the sleep, for the wait's message. */
  readonly what: string;
}

/** Sends the prompt, kills the agent once the sleep runs, and checks that nothing survives. */
async function killDuringSleep(
  t: Deno.TestContext,
  p: HookProject,
  seconds: string,
  scenario: SleepingPrompt,
): Promise<void> {
  const mark = crypto.randomUUID();
  const agent = await startMarkedAgent(p, scenario.model, mark);
  const sessionId = await scenario.newSession(agent);
  const prompt = agent.call("session/prompt", { sessionId, prompt: text(scenario.prompt) })
    .catch(() => undefined);
  const run = await killAgentOnce(
    agent,
    mark,
    (started) => started.some((process) => process.args === `sleep ${seconds}`),
    scenario.what,
  );
  await prompt;
  await assertNothingSurvives(t, run, p.home);
}

Deno.test({
  name: "llama: kill -9 of the agent during a shell tool call ends the command and its children",
  ignore: linuxOnly,
  fn: async (t) => {
    await withHookProject(async (p) => {
      const seconds = uniqueSeconds(29);
      const model = await writeToolCallModel(p.models, {
        toolName: "shell",
        params: { command: `sleep ${seconds}` },
        answer: "The command finished.",
      });
      await killDuringSleep(t, p, seconds, {
        model,
        newSession: (agent) => p.newSession(agent),
        prompt: "wait a bit",
        what: "the shell command's sleep",
      });
    });
  },
});

Deno.test({
  name:
    "kill -9 of the agent during a running UserPromptSubmit hook ends the hook and its children",
  ignore: linuxOnly,
  fn: async (t) => {
    await withHookProject(async (p) => {
      const seconds = uniqueSeconds(29);
      const dir = await p.sessionDir("slow", {
        settings: { hooks: { UserPromptSubmit: [group(undefined, hook("slow"))] } },
        replies: { slow: { sleep: seconds } },
      });
      await killDuringSleep(t, p, seconds, {
        model: await p.scriptedModel([{ text: "Hello." }]),
        newSession: (agent) => p.newSessionIn(agent, dir),
        prompt: "hi",
        what: "the hook's sleep",
      });
    });
  },
});

Deno.test({
  name: "kill -9 of the agent ends its MCP stdio servers' whole process groups",
  ignore: linuxOnly,
  fn: async (t) => {
    await withHookProject(async (p) => {
      const mark = crypto.randomUUID();
      const model = await p.scriptedModel([]);
      const agent = await startMarkedAgent(p, model, mark);
      await agent.call("session/new", {
        cwd: p.cwd,
        mcpServers: [stdioFixture({ args: ["--child", "--marker", mark] })],
      });
      const run = await killAgentOnce(
        agent,
        mark,
        (started) =>
          started.some((process) => process.args.includes("fixture_server.ts")) &&
          started.some((process) => process.args === "sleep 600"),
        "the MCP server and its child",
      );
      await assertNothingSurvives(t, run, p.home);
    });
  },
});

Deno.test({
  name: "an agent that exits normally takes its supervisor with it",
  ignore: linuxOnly,
  fn: async () => {
    await withHookProject(async (p) => {
      const mark = crypto.randomUUID();
      const agent = await startMarkedAgent(p, await p.scriptedModel([]), mark);
      let guards: ProcessInfo[] = [];
      try {
        await agent.call("session/new", { cwd: p.cwd, mcpServers: [stdioFixture()] });
        const [agentProcess] = (await processesMarked(mark)).filter(isAgent);
        guards = (await childrenOf(agentProcess!.pid)).filter((child) =>
          child.args.includes(GUARD_NAME)
        );
        assertEquals(guards.length, 1, "a supervisor runs once the agent has started a group");
        const closed = await agent.close();
        assertEquals(closed.code, 0);
        const gone = async () =>
          (await stillRunning(guards)).length === 0 && (await processesMarked(mark)).length === 0;
        await waitUntil(gone, "the supervisor to exit", SURVIVOR_BOUND_MS);
        assertEquals(await guardFilesIn(p.home), [], "the guard's log is gone");
      } finally {
        await killAll([...await processesMarked(mark), ...await stillRunning(guards)]);
        await agent.close({ allowViolations: true });
      }
    });
  },
});

Deno.test({
  name: "kill -9 of hooks test while a session case's hook runs ends the hook and its children",
  ignore: linuxOnly,
  fn: async () => {
    // Hooks under `hooks test` get a hermetic environment, without the mark: found by the sleep.
    const sleep = `sleep ${uniqueSeconds(29)}`;
    const slowHook = { hooks: [{ type: "command", command: `${sleep}; :` }] };
    const slowCase = {
      name: "session: a slow hook",
      session: { model: { turns: [{ text: "Hello." }] }, prompts: ["hi"] },
      expect: { stopReason: "end_turn" },
    };
    await withTempProject({
      "home/.keep": "",
      "project/.claude/settings.json": JSON.stringify({ hooks: { UserPromptSubmit: [slowHook] } }),
      "project/.claude/hooks-tests/slow.test.jsonc": JSON.stringify({ cases: [slowCase] }),
    }, async (dir) => {
      const tester = new Deno.Command(LAUNCHER, {
        args: ["hooks", "test"],
        cwd: `${dir}/project`,
        clearEnv: true,
        env: pinnedEnv(`${dir}/home`),
        stdout: "null",
        stderr: "null",
      }).spawn();
      try {
        await waitUntil(async () => (await livingPidsMatching(sleep)).length > 0, sleep, 60_000);
        // The launcher execs Deno: its pid is the tester's.
        tester.kill("SIGKILL");
        await tester.status;
        const gone = async () => (await livingPidsMatching(sleep)).length === 0;
        await waitUntil(gone, "the hook to end", SURVIVOR_BOUND_MS);
      } finally {
        for (const pid of await livingPidsMatching(sleep)) Deno.kill(pid, "SIGKILL");
        try {
          tester.kill("SIGKILL");
        } catch {
          // It is gone.
        }
        await tester.status;
      }
    });
  },
});
