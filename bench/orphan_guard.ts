/**
 * What ending the agent's process groups on its death costs, and what it buys, against the
 * alternatives: `PR_SET_PDEATHSIG` through util-linux `setpriv` (one more exec per spawn), and the
 * registrations sent as lines on the supervisor's pipe instead of appended to its log.
 * Spawn figures are ratios against a bare `Deno.Command` `sh -c true` measured in the same run
 * (interleaved, medians); the survivor figures count, after `kill -9` of a stand-in agent that
 * runs `sh -c "sleep N; :"` each way, the processes still alive.
 *
 *   deno task bench:orphans            # all figures
 *   deno run -A bench/orphan_guard.ts --quick
 */
import { guardGroup, installOrphanGuard } from "../src/os/process/guard_group.ts";
import { createOrphanGuard } from "../src/os/process/orphan_guard.ts";
import type { GroupChild } from "../src/os/process/group_child.ts";
import { spawnInOwnGroup } from "../src/os/process/process_group.ts";
import { bareSpawn } from "./bare_spawn.ts";
import { median, printFigure, timeOnce } from "./bench_stats.ts";
import { interleave } from "./interleave.ts";
import { systemProgram } from "./system_program.ts";
import { waitUntil } from "../tests/helpers/wait_until.ts";

const quick = Deno.args.includes("--quick");
const ROUNDS = quick ? 30 : 200;
const STARTS = quick ? 10 : 50;
const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const SETPRIV = systemProgram("setpriv");
const SETSID = systemProgram("setsid");
/** The time spent in the guard's calls, per guarded spawn. */
const guardCalls: number[] = [];

const logDir = await Deno.makeTempDir({ prefix: "llama-agent-bench-" });
try {
  await benchSpawns();
  await benchFirstSpawn();
  await benchSurvivors();
} finally {
  await Deno.remove(logDir, { recursive: true });
}

/** What `.output()` is to a Deno.ChildProcess: both pipes read to their end, and the status. */
async function finished(child: GroupChild): Promise<Deno.CommandStatus> {
  const [status] = await Promise.all([
    child.status,
    new Response(child.stdout).arrayBuffer(),
    new Response(child.stderr).arrayBuffer(),
  ]);
  return status;
}

async function groupSpawn(program = "/bin/sh", args = ["-c", "true"]): Promise<void> {
  const child = spawnInOwnGroup({ program, args }, { cwd: "/", env: { PATH }, stdin: "null" });
  const output = await finished(child);
  if (!output.success) throw new Error(`${program} failed`);
}

async function guardedGroupSpawn(): Promise<void> {
  const child = spawnInOwnGroup(
    { program: "/bin/sh", args: ["-c", "true"] },
    { cwd: "/", env: { PATH }, stdin: "null" },
  );
  const registering = performance.now();
  const release = guardGroup(child.pid);
  const registered = performance.now() - registering;
  const output = await finished(child);
  const releasing = performance.now();
  release();
  guardCalls.push(registered + performance.now() - releasing);
  if (!output.success) throw new Error("sh -c true failed");
}

/**
 * The design the guard did not take: the same registrations as lines on the supervisor's stdin.
 * Deno writes to a pipe only asynchronously, and the reader wakes for every line.
 */
function pipeLinesSpawner(): { spawn: () => Promise<void>; close: () => Promise<void> } {
  const reader = spawnInOwnGroup(
    {
      program: "/bin/sh",
      args: ["-c", "while IFS= read -r line; do case $line in +*) ;; esac; done"],
    },
    { cwd: "/", env: { PATH }, stdin: "piped", output: "null" },
  );
  const writer = reader.stdin.getWriter();
  const encoder = new TextEncoder();
  return {
    async spawn() {
      const child = spawnInOwnGroup(
        { program: "/bin/sh", args: ["-c", "true"] },
        { cwd: "/", env: { PATH }, stdin: "null" },
      );
      writer.write(encoder.encode(`+${child.pid}\n`)).catch(() => {});
      const output = await finished(child);
      writer.write(encoder.encode(`-${child.pid}\n`)).catch(() => {});
      if (!output.success) throw new Error("sh -c true failed");
    },
    async close() {
      await writer.close();
      await reader.status;
    },
  };
}

/** `setpriv` before the program, as a pdeathsig spawner would need on any spawn path. */
async function pdeathsigSpawn(viaSetsid: boolean): Promise<void> {
  const pdeathsig = [SETPRIV!, "--pdeathsig", "KILL", "/bin/sh", "-c", "true"];
  const [program, ...args] = viaSetsid ? [SETSID!, ...pdeathsig] : pdeathsig;
  const output = await new Deno.Command(program!, {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error("setpriv failed");
}

async function benchSpawns(): Promise<void> {
  const guard = createOrphanGuard({ dir: logDir });
  const previous = installOrphanGuard(guard);
  const pipeLines = pipeLinesSpawner();
  const arms: (() => Promise<void>)[] = [
    bareSpawn,
    () => groupSpawn(),
    guardedGroupSpawn,
    pipeLines.spawn,
  ];
  if (SETPRIV && SETSID) arms.push(() => pdeathsigSpawn(true), () => pdeathsigSpawn(false));
  try {
    const samples = await interleave(ROUNDS, 5, arms.map((arm) => () => timeOnce(arm)));
    const baseline = median(samples[0]!);
    const figure = (bench: string, index: number, target?: number) =>
      printFigure({
        bench,
        median_ms: median(samples[index]!),
        baseline: "Deno.Command sh -c true",
        baseline_median_ms: baseline,
        ...(target === undefined ? {} : { target_ratio_max: target }),
      });
    figure("spawn_in_own_group_vs_bare_spawn", 1);
    figure("spawn_in_own_group_with_orphan_guard_vs_bare_spawn", 2);
    figure("spawn_in_own_group_with_lines_on_a_pipe_vs_bare_spawn", 3);
    if (samples.length > 4) {
      figure("setsid_setpriv_pdeathsig_vs_bare_spawn", 4);
      figure("setpriv_pdeathsig_alone_vs_bare_spawn", 5);
    } else {
      printFigure({ bench: "setpriv_pdeathsig_vs_bare_spawn", error: "no setpriv or setsid" });
    }
    // What the guard adds to each spawn, as a share of a bare spawn: the part of a hook's
    // budget (1.15 bare spawns) it takes.
    printFigure({
      bench: "orphan_guard_added_per_spawn",
      median_ms: median(samples[2]!) - median(samples[1]!),
      baseline: "Deno.Command sh -c true",
      baseline_median_ms: baseline,
    });
    printFigure({
      bench: "orphan_guard_calls_per_spawn",
      median_ms: median(guardCalls),
      baseline: "Deno.Command sh -c true",
      baseline_median_ms: baseline,
    });
  } finally {
    installOrphanGuard(previous);
    await guard.close();
    await pipeLines.close();
  }
}

/** What the first group of a process pays once: starting the supervisor. */
async function benchFirstSpawn(): Promise<void> {
  const starts: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    bare.push(await timeOnce(bareSpawn));
    const guard = createOrphanGuard({ dir: logDir });
    const started = performance.now();
    // A number that names no group, released before the end: the supervisor signals nothing.
    guard.register(2 ** 22 + 1);
    starts.push(performance.now() - started);
    guard.release(2 ** 22 + 1);
    await guard.close();
  }
  printFigure({
    bench: "orphan_guard_start_on_first_spawn",
    median_ms: median(starts),
    baseline: "Deno.Command sh -c true (whole run)",
    baseline_median_ms: median(bare),
  });
}

type Mechanism = "own_group" | "own_group_setpriv_pdeathsig" | "own_group_orphan_guard";

/**
 * A stand-in agent: spawns the command one way, says so, and waits to be killed. Its spawn goes
 * through the project's own spawner, so "own_group" is what the agent did before the guard.
 */
function standInAgent(mechanism: Mechanism, command: string): string {
  const root = new URL("../", import.meta.url).href;
  const program = mechanism === "own_group_setpriv_pdeathsig"
    ? `["${SETPRIV}", "--pdeathsig", "KILL", "/bin/sh", "-c", ${JSON.stringify(command)}]`
    : `["/bin/sh", "-c", ${JSON.stringify(command)}]`;
  return `
const { spawnInOwnGroup } = await import("${root}src/os/process/process_group.ts");
const { guardGroup, installOrphanGuard } = await import("${root}src/os/process/guard_group.ts");
const { createOrphanGuard } = await import("${root}src/os/process/orphan_guard.ts");
if (${
    mechanism === "own_group_orphan_guard"
  }) installOrphanGuard(createOrphanGuard({ dir: "${logDir}" }));
const [program, ...args] = ${program};
const child = spawnInOwnGroup({ program, args }, { cwd: "/", env: { PATH: "${PATH}" }, stdin: "null", output: "null" });
guardGroup(child.pid);
console.log("spawned");
setInterval(() => {}, 1e9);`;
}

async function benchSurvivors(): Promise<void> {
  const mechanisms: Mechanism[] = ["own_group", "own_group_orphan_guard"];
  if (SETPRIV) mechanisms.splice(1, 0, "own_group_setpriv_pdeathsig");
  for (const mechanism of mechanisms) {
    const seconds = `600.${Math.floor(Math.random() * 1e6)}`;
    const agent = new Deno.Command(Deno.execPath(), {
      args: ["eval", "--quiet", standInAgent(mechanism, `sleep ${seconds}; :`)],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = agent.stdout.getReader();
    await reader.read();
    await waitUntil(async () => (await living(seconds)).length === 2, "the commands to start");
    const started = (await living(seconds)).length;
    agent.kill("SIGKILL");
    await agent.status;
    await reader.cancel();
    // The guard's grace is 1 s; give every mechanism the same 5 s.
    await waitUntil(async () => (await living(seconds)).length === 0, "the survivors to end", 5_000)
      .catch(() => {});
    const survivors = await living(seconds);
    console.log(JSON.stringify({
      bench: "survivors_after_kill_9",
      mechanism,
      started,
      survivors: survivors.length,
      survivor_commands: survivors.map((process) => process.args),
    }));
    for (const { pid } of survivors) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
  }
}

async function living(marker: string): Promise<{ pid: number; args: string }[]> {
  const { stdout } = await new Deno.Command("ps", {
    args: ["-e", "-o", "pid=,stat=,args="],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(stdout).split("\n").flatMap((line) => {
    const match = line.trim().match(/^(\d+)\s+(\S+)\s+(.*)$/);
    if (!match || match[2]!.startsWith("Z") || !match[3]!.includes(marker)) return [];
    if (match[3]!.startsWith("ps ") || match[3]!.includes("deno")) return [];
    return [{ pid: Number(match[1]), args: match[3]! }];
  });
}
