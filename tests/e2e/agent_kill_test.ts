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
import { writeToolCallModel } from "../helpers/test_models.ts";
import { stdioFixture } from "../mcp/fixture_servers.ts";
import { allowAndRecord, textPrompt as text, waitUntil } from "./e2e_project.ts";
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

/** The guard's log files left in the agent's state directory (the supervisor removes its own). */
async function guardFilesIn(home: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(`${home}/.local/state/llama-agent`)) {
      if (entry.name.startsWith("orphan-guard-")) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
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

Deno.test({
  name: "llama: kill -9 of the agent during a shell tool call ends the command and its children",
  ignore: linuxOnly,
  fn: async (t) => {
    await withHookProject(async (p) => {
      const mark = crypto.randomUUID();
      const seconds = uniqueSeconds(29);
      const model = await writeToolCallModel(p.models, {
        toolName: "shell",
        params: { command: `sleep ${seconds}` },
        answer: "The command finished.",
      });
      const agent = await startMarkedAgent(p, model, mark);
      const sessionId = await p.newSession(agent);
      const prompt = agent.call("session/prompt", { sessionId, prompt: text("wait a bit") })
        .catch(() => undefined);
      const run = await killAgentOnce(
        agent,
        mark,
        (started) => started.some((process) => process.args === `sleep ${seconds}`),
        "the shell command's sleep",
      );
      await prompt;
      await assertNothingSurvives(t, run, p.home);
    });
  },
});

Deno.test({
  name:
    "kill -9 of the agent during a running UserPromptSubmit hook ends the hook and its children",
  ignore: linuxOnly,
  fn: async (t) => {
    await withHookProject(async (p) => {
      const mark = crypto.randomUUID();
      const seconds = uniqueSeconds(29);
      const dir = await p.sessionDir("slow", {
        settings: { hooks: { UserPromptSubmit: [group(undefined, hook("slow"))] } },
        replies: { slow: { sleep: seconds } },
      });
      const model = await p.scriptedModel([{ text: "Hello." }]);
      const agent = await startMarkedAgent(p, model, mark);
      const sessionId = await p.newSessionIn(agent, dir);
      const prompt = agent.call("session/prompt", { sessionId, prompt: text("hi") })
        .catch(() => undefined);
      const run = await killAgentOnce(
        agent,
        mark,
        (started) => started.some((process) => process.args === `sleep ${seconds}`),
        "the hook's sleep",
      );
      await prompt;
      await assertNothingSurvives(t, run, p.home);
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
