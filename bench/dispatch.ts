/**
 * Hook dispatch benchmarks. Every figure is printed as one JSON line with a baseline measured in
 * the same run (these machines are shared and noisy, so only ratios mean anything), and with the
 * target the project holds it to. The orphan guard is installed as main.ts installs it, so each
 * hook pays for its group's registration as it does in the agent.
 *
 *   deno task bench            # all figures
 *   deno run -A bench/dispatch.ts --quick   # fewer iterations, for a smoke run
 */
import { installOrphanGuard } from "../src/os/process/guard_group.ts";
import { createHandlerRunner } from "../src/hooks/handlers/handler_dispatch.ts";
import { fireHooks } from "../src/hooks/hook_engine.ts";
import { selectRegistrations } from "../src/hooks/registry.ts";
import { loadSessionHooks, type SessionHooks } from "../src/hooks/session_hooks.ts";
import { loadSettingsChain } from "../src/hooks/settings/settings_chain.ts";
import { createOrphanGuard } from "../src/os/process/orphan_guard.ts";
import { compatProfile } from "../src/profile/compat_profile.ts";
import { bareSpawn } from "./bare_spawn.ts";
import { measureInterleaved, median, printFigure, timeOnce } from "./bench_stats.ts";

const quick = Deno.args.includes("--quick");
const SPAWNS = quick ? 30 : 200;
const SLEEPS = quick ? 3 : 8;
const LOADS = quick ? 500 : 5000;

/** How a baseline starts `sh -c <script>` in a process group of its own. */
interface GroupSpawn {
  readonly baseline: string;
  readonly start: (script: string) => Deno.ChildProcess;
}

const PIPED = { stdout: "piped", stderr: "piped" } as const;

/**
 * `detached` through `spawn()`: Deno calls setsid() in a pre-exec hook, which makes Rust fork the
 * whole process instead of using posix_spawn. (`output()` ignores `detached` in Deno 2.9: its
 * child stays in the bench's group, so it measured a plain spawn.)
 */
const DETACHED: GroupSpawn = {
  baseline: "Deno.Command sh -c true, detached, spawn() (fork + setsid: own process group)",
  start: (script) =>
    new Deno.Command("sh", { args: ["-c", script], ...PIPED, detached: true }).spawn(),
};

/** setsid(1) exec'ing the shell: posix_spawn in the bench, and one more exec in the child. */
const SETSID: GroupSpawn = {
  baseline: "Deno.Command /usr/bin/setsid sh -c true (own session and process group)",
  start: (script) =>
    new Deno.Command("/usr/bin/setsid", { args: ["sh", "-c", script], ...PIPED }).spawn(),
};

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama-agent-bench-" }));
const guard = createOrphanGuard({
  dir: `${root}/state`,
  onFailure: (message) => {
    throw new Error(`The bench needs the orphan guard: ${message}`);
  },
});
const previousGuard = installOrphanGuard(guard);
try {
  await benchOneHookVsBareSpawn();
  if (guard.supervisorPid === undefined) throw new Error("The hooks ran without the orphan guard");
  await benchParallelHooks();
  await benchNodeSpawn();
  await benchChainLoading();
  await benchIfRules();
} finally {
  installOrphanGuard(previousGuard);
  await guard.close();
  await Deno.remove(root, { recursive: true });
}

async function project(name: string, settings: unknown): Promise<string> {
  const dir = `${root}/${name}`;
  await Deno.mkdir(`${dir}/.claude`, { recursive: true });
  await Deno.writeTextFile(`${dir}/.claude/settings.json`, JSON.stringify(settings, null, 2));
  return dir;
}

function commandHooks(commands: readonly string[]) {
  return {
    hooks: {
      PreToolUse: [{
        matcher: "shell",
        hooks: commands.map((command) => ({ type: "command", command })),
      }],
    },
  };
}

async function firePreToolUse(dir: string, hooks: SessionHooks): Promise<void> {
  const runHandler = createHandlerRunner({ baseEnv: { PATH: Deno.env.get("PATH") ?? "" } });
  const selection = selectRegistrations(hooks.registry, "PreToolUse", "shell");
  const firing = await fireHooks({
    event: "PreToolUse",
    matcherValue: "shell",
    payload: {
      session_id: "bench",
      transcript_path: `${dir}/raw.jsonl`,
      cwd: dir,
      hook_event_name: "PreToolUse",
      tool_name: "shell",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_bench",
    },
    registrations: selection.matched,
    runHandler,
    context: { event: "PreToolUse", cwd: dir, sessionId: "bench" },
  });
  for (const run of firing.runs) {
    if (run.outcome.kind !== "success") {
      throw new Error(`bench hook failed: ${JSON.stringify(run.outcome)}`);
    }
  }
}

/** Runs `script` as the baseline starts it: stdout read, stderr drained, status awaited. */
async function runInGroup(spawn: GroupSpawn, script: string): Promise<string> {
  const output = await spawn.start(script).output();
  if (!output.success) throw new Error(`${spawn.baseline}: sh -c ${script} failed`);
  return new TextDecoder().decode(output.stdout);
}

/**
 * Fails unless the baseline's child leads a process group of its own: its pgrp (field 5 of
 * /proc/<pid>/stat, counted after the parenthesised command name) is its pid, and not the bench's.
 */
async function checkOwnGroup(spawn: GroupSpawn): Promise<void> {
  const stat = await runInGroup(spawn, 'read -r l < /proc/$$/stat; echo "$l"');
  const pid = Number(stat.slice(0, stat.indexOf(" ")));
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const pgrp = Number(fields[2]);
  const ours = Number((await Deno.readTextFile("/proc/self/stat")).split(") ")[1]?.split(" ")[2]);
  if (!Number.isInteger(pid) || pid <= 1 || pgrp !== pid || pgrp === ours) {
    throw new Error(
      `The baseline "${spawn.baseline}" is not in a process group of its own ` +
        `(pid ${pid}, pgrp ${pgrp}, the bench's pgrp ${ours}): its figure would be wrong`,
    );
  }
}

async function benchOneHookVsBareSpawn(): Promise<void> {
  const dir = await project("one-hook", commandHooks(["true"]));
  const hooks = await loadSessionHooks(dir, undefined);
  // A hook runs more JavaScript than a bare spawn (the engine, the spawner's streams), which V8
  // optimises only after some hundreds of calls: the first figure of a process is a cold one,
  // printed for the record, and the figure held to its target is the steady state after it.
  const cold = await measureInterleaved(SPAWNS, bareSpawn, () => firePreToolUse(dir, hooks));
  printFigure({
    bench: "pretooluse_one_true_hook_vs_bare_spawn_first_in_process",
    median_ms: median(cold.measured),
    baseline: "Deno.Command sh -c true",
    baseline_median_ms: median(cold.baseline),
  });
  const { baseline, measured } = await measureInterleaved(
    SPAWNS,
    bareSpawn,
    () => firePreToolUse(dir, hooks),
  );
  printFigure({
    bench: "pretooluse_one_true_hook_vs_bare_spawn",
    median_ms: median(measured),
    baseline: "Deno.Command sh -c true",
    baseline_median_ms: median(baseline),
    target_ratio_max: 1.15,
  });
  for (
    const [bench, spawn] of [
      ["pretooluse_one_true_hook_vs_process_group_spawn", DETACHED],
      ["pretooluse_one_true_hook_vs_setsid_spawn", SETSID],
    ] as const
  ) {
    await checkOwnGroup(spawn);
    const grouped = await measureInterleaved(
      SPAWNS,
      () => runInGroup(spawn, "true").then(() => undefined),
      () => firePreToolUse(dir, hooks),
    );
    printFigure({
      bench,
      median_ms: median(grouped.measured),
      baseline: spawn.baseline,
      baseline_median_ms: median(grouped.baseline),
      target_ratio_max: 1.15,
    });
  }
  // Where a hook's time goes: what setsid(1)'s extra exec costs over the bare spawn.
  const setsidCost = await measureInterleaved(
    SPAWNS,
    bareSpawn,
    () => runInGroup(SETSID, "true").then(() => undefined),
  );
  printFigure({
    bench: "setsid_spawn_vs_bare_spawn",
    median_ms: median(setsidCost.measured),
    baseline: "Deno.Command sh -c true",
    baseline_median_ms: median(setsidCost.baseline),
  });
}

async function benchParallelHooks(): Promise<void> {
  const one = await project("sleep-one", commandHooks(["sleep 0.2"]));
  // Distinct command strings, or dedup would run them once.
  const eight = await project(
    "sleep-eight",
    commandHooks(Array.from({ length: 8 }, (_, i) => `sleep 0.2 # ${i}`)),
  );
  const oneHooks = await loadSessionHooks(one, undefined);
  const eightHooks = await loadSessionHooks(eight, undefined);
  const { baseline, measured } = await measureInterleaved(
    SLEEPS,
    () => firePreToolUse(one, oneHooks),
    () => firePreToolUse(eight, eightHooks),
  );
  printFigure({
    bench: "eight_sleep_hooks_vs_one",
    median_ms: median(measured),
    baseline: "one matching sleep 0.2 hook",
    baseline_median_ms: median(baseline),
    target_ratio_max: 1.3,
  });
}

/** The same spawn from Node's child_process, as the reference runtime. */
async function benchNodeSpawn(): Promise<void> {
  const script = `
    const { spawn } = require("node:child_process");
    const once = () => new Promise((resolve, reject) => {
      const child = spawn("sh", ["-c", "true"], { stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.resume(); child.stderr.resume();
      child.on("error", reject);
      child.on("close", (code) => code === 0 ? resolve() : reject(new Error("exit " + code)));
    });
    (async () => {
      const times = [];
      for (let i = 0; i < ${SPAWNS}; i++) {
        const start = performance.now(); await once(); times.push(performance.now() - start);
      }
      console.log(JSON.stringify(times));
    })();`;
  const deno: number[] = [];
  for (let i = 0; i < SPAWNS; i++) deno.push(await timeOnce(bareSpawn));
  const output = await new Deno.Command("node", { args: ["-e", script], stdout: "piped" }).output();
  if (!output.success) {
    printFigure({ bench: "node_spawn_reference", error: "node is not available" });
    return;
  }
  const node: number[] = JSON.parse(new TextDecoder().decode(output.stdout));
  printFigure({
    bench: "deno_spawn_vs_node_child_process",
    median_ms: median(deno),
    baseline: "node child_process.spawn sh -c true",
    baseline_median_ms: median(node),
  });
}

async function benchChainLoading(): Promise<void> {
  const empty = `${root}/no-claude`;
  await Deno.mkdir(empty);
  const failedOpens = async () => {
    for (
      const path of [
        `${root}/h/.claude/settings.json`,
        `${empty}/.claude/settings.json`,
        `${empty}/.claude/settings.local.json`,
      ]
    ) {
      try {
        await Deno.readTextFile(path);
      } catch { /* the baseline is three failed opens */ }
    }
  };
  const { baseline, measured } = await measureInterleaved(
    LOADS,
    failedOpens,
    () => loadSettingsChain({ cwd: empty, home: `${root}/h` }).then(() => undefined),
  );
  printFigure({
    bench: "load_chain_without_claude_dir",
    median_ms: median(measured),
    baseline: "three failed Deno.readTextFile opens",
    baseline_median_ms: median(baseline),
    target_median_ms_max: 0.2,
  });

  const groups = Array.from({ length: 50 }, (_, i) => ({
    matcher: i % 2 === 0 ? `tool_${i}|shell` : `^mcp__server${i}__.*`,
    hooks: [{
      type: "command",
      command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/hook_${i}.sh`,
      timeout: 30,
    }],
  }));
  const fifty = await project("fifty-groups", {
    hooks: { PreToolUse: groups.slice(0, 25), PostToolUse: groups.slice(25) },
  });
  const parse = async () => {
    JSON.parse(await Deno.readTextFile(`${fifty}/.claude/settings.json`));
  };
  const loads = await measureInterleaved(
    quick ? 100 : 1000,
    parse,
    () => loadSessionHooks(fifty, `${root}/h`).then(() => undefined),
  );
  printFigure({
    bench: "load_chain_fifty_groups",
    median_ms: median(loads.measured),
    baseline: "read + JSON.parse of the same file",
    baseline_median_ms: median(loads.baseline),
    target_median_ms_max: 5,
  });
}

/**
 * What `if` rules add to choosing the hooks of one tool call: 50 `Bash` hooks, each gated by a
 * rule, on a compound command (split, each part tested), against the same 50 hooks without `if`.
 */
async function benchIfRules(): Promise<void> {
  const hooks = (withIf: boolean) =>
    Array.from({ length: 50 }, (_, i) => ({
      type: "command",
      command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/hook_${i}.sh`,
      ...(withIf ? { if: i % 2 === 0 ? `Bash(git commit:*)` : `Bash(npm test *)` } : {}),
    }));
  const plain = await project("if-plain", {
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: hooks(false) }] },
  });
  const gated = await project("if-gated", {
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: hooks(true) }] },
  });
  const plainHooks = await loadSessionHooks(plain, `${root}/h`);
  const gatedHooks = await loadSessionHooks(gated, `${root}/h`);
  const subject = (cwd: string) => ({
    profile: compatProfile("claude"),
    projectDir: cwd,
    toolInput: { command: 'cd src && npm test -- --grep "a && b" | tee log; git status' },
  });
  const select = (loaded: SessionHooks, cwd: string) => () => {
    for (let i = 0; i < 100; i++) {
      selectRegistrations(loaded.registry, "PreToolUse", "Bash", subject(cwd));
    }
    return Promise.resolve();
  };
  const runs = await measureInterleaved(
    quick ? 50 : 300,
    select(plainHooks, plain),
    select(gatedHooks, gated),
  );
  printFigure({
    bench: "select_fifty_if_gated_hooks_vs_fifty_plain (per call)",
    median_ms: median(runs.measured) / 100,
    baseline: "the same 50 hooks without if",
    baseline_median_ms: median(runs.baseline) / 100,
  });
}
