/**
 * Seam benchmarks: what hooks cost a prompt turn, measured on the agent itself (in this process,
 * on a scripted model: bench/seam_agent.ts says why) against the same turn without them. Every
 * figure is one JSON line on stdout with its baseline measured in the same run, interleaved, as
 * medians; a summary goes to stderr. Each sample is a fresh session (figure 1 times its first
 * and second turn apart), so samples do not drift as a conversation grows; opening and closing
 * sessions is not timed. About a minute on two cores.
 *
 *   deno task bench:seams
 *   deno run -A bench/seams.ts --quick     # fewer samples, for a smoke run
 */
import { median, printFigure, round } from "./bench_stats.ts";
import { sleep } from "./cut_turn.ts";
import { interleave } from "./interleave.ts";
import { commandHook, SeamAgent, type TimedPrompt } from "./seam_agent.ts";
import type { ModelScript } from "../src/model/scripted/scripted_model.ts";

const quick = Deno.args.includes("--quick");
const UNMATCHED_ROUNDS = quick ? 20 : 300;
const SPAWN_ROUNDS = quick ? 10 : 100;
const NOTIFICATION_ROUNDS = quick ? 3 : 12;
const WARM_UP_ROUNDS = quick ? 2 : 5;
/** An idle pause before each timed prompt, so every one starts from a quiet event loop. */
const SETTLE_MS = 5;
const PROMPT = "Read notes.txt and tell me what it says.";

/** One fs_read call, then an answer: the tool turn of figures 1 and 2, twice (two prompts). */
const TOOL_TURN: ModelScript = {
  turns: [1, 2].flatMap(() => [
    {
      text: "Let me read the notes first.",
      toolCalls: [{ name: "fs_read", input: { file_path: "notes.txt" } }],
    },
    { text: "The notes say to water the plants on Tuesday and to call the plumber." },
  ]),
};

/**
 * Three messages in one turn (one per model call; a Notification firing follows each), each of
 * several chunks: hooks that blocked the stream would hold back every chunk after the first
 * message.
 */
const THREE_MESSAGES: ModelScript = {
  turns: [
    {
      text: "Let me read the notes first, then the plan, before I answer you.",
      toolCalls: [{ name: "fs_read", input: { file_path: "notes.txt" } }],
    },
    {
      text: "The notes mention a plan, so I will read that file as well.",
      toolCalls: [{ name: "fs_read", input: { file_path: "plan.txt" } }],
    },
    { text: "The notes and the plan agree: water the plants on Tuesday, then call the plumber." },
  ],
};

/** Hooks of events and tools the tool turn never reaches (SessionStart fires at session/new). */
const UNMATCHED_SETTINGS = {
  hooks: {
    PreToolUse: [{ matcher: "shell", hooks: [commandHook("true")] }],
    PostToolUse: [{ matcher: "mcp__x__.*", hooks: [commandHook("true")] }],
    SessionStart: [{ hooks: [commandHook("true")] }],
  },
};

/** The same without SessionStart: no hook process runs in the session at all. */
const UNMATCHED_TOOL_SETTINGS = {
  hooks: {
    PreToolUse: UNMATCHED_SETTINGS.hooks.PreToolUse,
    PostToolUse: UNMATCHED_SETTINGS.hooks.PostToolUse,
  },
};

const PRE_TOOL_TRUE_SETTINGS = {
  hooks: { PreToolUse: [{ matcher: "fs_read", hooks: [commandHook("true")] }] },
};

/** Three distinct commands: identical ones would be deduplicated into one run. */
const SLEEP_NOTIFICATION_SETTINGS = {
  hooks: {
    Notification: [{ hooks: [1, 2, 3].map((n) => commandHook(`sleep 1 # hook ${n}`)) }],
  },
};

const started = performance.now();
const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama-agent-bench-seams-" }));
const home = `${root}/home`;
const launch = `${root}/launch`;
const summary: string[] = [];
try {
  await Deno.mkdir(home);
  await Deno.mkdir(launch);
  await benchUnmatchedHooks();
  await benchPreToolUseTrueHook();
  await benchNotificationHooks();
} finally {
  await Deno.remove(root, { recursive: true });
}
summary.push(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.error(summary.map((line) => `bench/seams: ${line}`).join("\n"));

/** A project under the launch directory, with `.claude/settings.json` when settings are given. */
async function project(name: string, settings?: unknown): Promise<string> {
  const dir = `${launch}/${name}`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(`${dir}/notes.txt`, "Water the plants on Tuesday.\nCall the plumber.\n");
  await Deno.writeTextFile(`${dir}/plan.txt`, "1. Plants\n2. Plumber\n");
  if (settings !== undefined) {
    await Deno.mkdir(`${dir}/.claude`);
    await Deno.writeTextFile(`${dir}/.claude/settings.json`, JSON.stringify(settings, null, 2));
  }
  return dir;
}

/** A turn that did what its script says: every tool call completed, every message streamed. */
function checkTurn(turn: TimedPrompt, messages: number): void {
  const failed = turn.updates.filter((u) =>
    u.sessionUpdate === "tool_call_update" && u.status === "failed"
  );
  if (turn.stopReason !== "end_turn" || turn.messages !== messages || failed.length > 0) {
    throw new Error(
      `The bench turn went wrong: stop "${turn.stopReason}", ${turn.messages} message(s) ` +
        `(expected ${messages}), ${failed.length} failed tool call(s)`,
    );
  }
}

interface SessionPlan {
  readonly cwd: string;
  /** Prompts in the session, each timed. */
  readonly prompts: number;
  /** Agent messages each turn streams. */
  readonly messages: number;
  /** The firings the session must have finished, as `Event:runs`, before it closes. */
  readonly firings?: (prompts: number) => string;
  /** Runs before the session closes (a wait for hooks that run beside the turn). */
  readonly after?: (sessionId: string) => Promise<void>;
}

/** Timed turns in a fresh session; opening and closing it is not timed. */
async function sessionTurns(agent: SeamAgent, plan: SessionPlan): Promise<TimedPrompt[]> {
  const sessionId = await agent.newSession(plan.cwd);
  const turns: TimedPrompt[] = [];
  for (let i = 0; i < plan.prompts; i++) {
    await sleep(SETTLE_MS);
    const turn = await agent.prompt(sessionId, PROMPT);
    checkTurn(turn, plan.messages);
    turns.push(turn);
  }
  await plan.after?.(sessionId);
  const firings = agent.firings(sessionId);
  if (plan.firings) {
    const seen = firings.map((f) => `${f.event}:${f.runs.length}`).join(" ");
    const expected = plan.firings(plan.prompts);
    if (seen !== expected) {
      throw new Error(`The bench session fired "${seen}", expected "${expected}"`);
    }
  }
  for (const run of firings.flatMap((f) => f.runs)) {
    if (run.outcome.kind !== "success") {
      throw new Error(`A bench hook failed: ${JSON.stringify(run.outcome)}`);
    }
  }
  await agent.closeSession(sessionId);
  return turns;
}

function repeat(text: string, times: number): string {
  return Array(times).fill(text).join(" ");
}

type TurnKey = "responseMs" | "firstChunkMs" | "lastMessageMs" | "minorFaults";

/** The median of one measure over the `index`-th turn of each session. */
function medianOf(sessions: readonly TimedPrompt[][], index: number, key: TurnKey): number {
  return median(sessions.map((turns) => turns[index]?.[key] ?? Number.NaN));
}

/**
 * Figure 1: a `.claude/settings.json` whose hooks never match the turn costs it nothing. Each
 * session runs two tool turns. Beside the figure's settings, the same without SessionStart
 * separates what the turn's own seams cost (firings that select nothing) from what running a
 * hook process at session/new leaves to the turns after it.
 */
async function benchUnmatchedHooks(): Promise<void> {
  const plain = await project("plain");
  const unmatched = await project("unmatched", UNMATCHED_SETTINGS);
  const toolOnly = await project("unmatched_tool_hooks", UNMATCHED_TOOL_SETTINGS);
  const agent = await SeamAgent.open({ launchCwd: launch, home, script: TOOL_TURN });
  let samples;
  try {
    samples = await interleave(UNMATCHED_ROUNDS, WARM_UP_ROUNDS, [
      () => sessionTurns(agent, { cwd: plain, prompts: 2, messages: 2, firings: () => "" }),
      () =>
        sessionTurns(agent, {
          cwd: unmatched,
          prompts: 2,
          messages: 2,
          // SessionStart runs its hook; in each turn PreToolUse and PostToolUse fire (their
          // events have hooks) and select nothing.
          firings: (n) => ["SessionStart:1", repeat("PreToolUse:0 PostToolUse:0", n)].join(" "),
        }),
      () =>
        sessionTurns(agent, {
          cwd: toolOnly,
          prompts: 2,
          messages: 2,
          firings: (n) => repeat("PreToolUse:0 PostToolUse:0", n),
        }),
    ]);
  } finally {
    await agent.close();
  }
  const [without = [], withSettings = [], withToolHooks = []] = samples;
  const faults = (sessions: readonly TimedPrompt[][], index: number) => ({
    minor_faults_median: medianOf(sessions, index, "minorFaults"),
  });
  const line = (
    bench: string,
    sessions: readonly TimedPrompt[][],
    index: number,
    target: number | undefined,
    what: string,
  ) => {
    const measured = medianOf(sessions, index, "responseMs");
    const baseline = medianOf(without, index, "responseMs");
    printFigure({
      bench,
      median_ms: measured,
      baseline: `the same tool turn (fs_read, then an answer; turn ${index + 1} of its session) ` +
        "in a cwd without .claude",
      baseline_median_ms: baseline,
      ...(target === undefined ? {} : { target_ratio_max: target }),
      ...{
        settings: what,
        turn_of_session: index + 1,
        samples: sessions.length,
        ...faults(sessions, index),
        baseline_minor_faults_median: medianOf(without, index, "minorFaults"),
      },
    });
    return `${measured.toFixed(3)} vs ${baseline.toFixed(3)} ms (${
      (measured / baseline).toFixed(3)
    }, minor faults ${medianOf(sessions, index, "minorFaults")} vs ${
      medianOf(without, index, "minorFaults")
    })`;
  };
  const specified = "PreToolUse matcher shell, PostToolUse matcher mcp__x__.*, SessionStart";
  const first = line(
    "tool_turn_claude_dir_without_matching_hooks_vs_no_claude_dir",
    withSettings,
    0,
    1.02,
    specified,
  );
  const second = line(
    "second_tool_turn_claude_dir_without_matching_hooks_vs_no_claude_dir",
    withSettings,
    1,
    1.02,
    specified,
  );
  const toolFirst = line(
    "tool_turn_unmatched_tool_hooks_no_sessionstart_vs_no_claude_dir",
    withToolHooks,
    0,
    undefined,
    "PreToolUse matcher shell, PostToolUse matcher mcp__x__.* (no SessionStart)",
  );
  const toolSecond = line(
    "second_tool_turn_unmatched_tool_hooks_no_sessionstart_vs_no_claude_dir",
    withToolHooks,
    1,
    undefined,
    "PreToolUse matcher shell, PostToolUse matcher mcp__x__.* (no SessionStart)",
  );
  summary.push(
    `unmatched hooks (target <= 1.02): first turn ${first}; second turn ${second}`,
    `  without SessionStart (report): first turn ${toolFirst}; second turn ${toolSecond}`,
  );
}

/**
 * A bare spawn and wait, as the brief for figure 2 words it: `Deno.Command("/bin/sh", {args})`,
 * its stdio inherited (`true` writes nothing). `spawn()`, not `output()`: in Deno 2.9 `output()`
 * ignores `detached` (its child stays in the agent's process group and is started with vfork),
 * while `spawn()` with `detached` forks the whole process and calls setsid(), as hooks do.
 */
async function bareSpawn(detached: boolean): Promise<number> {
  await sleep(SETTLE_MS);
  const start = performance.now();
  const status = await new Deno.Command("/bin/sh", { args: ["-c", "true"], detached }).spawn()
    .status;
  const elapsed = performance.now() - start;
  if (!status.success) throw new Error("/bin/sh -c true failed");
  return elapsed;
}

/** Figure 2: the time one matching `true` PreToolUse hook adds to a turn, in spawns. */
async function benchPreToolUseTrueHook(): Promise<void> {
  const plain = `${launch}/plain`;
  const preTrue = await project("pre_true", PRE_TOOL_TRUE_SETTINGS);
  const agent = await SeamAgent.open({ launchCwd: launch, home, script: TOOL_TURN });
  let samples;
  try {
    samples = await interleave<TimedPrompt | number>(SPAWN_ROUNDS, WARM_UP_ROUNDS, [
      async () => (await sessionTurns(agent, { cwd: plain, prompts: 1, messages: 2 }))[0]!,
      async () =>
        (await sessionTurns(agent, {
          cwd: preTrue,
          prompts: 1,
          messages: 2,
          firings: () => "PreToolUse:1",
        }))[0]!,
      () => bareSpawn(false),
      () => bareSpawn(true),
    ]);
  } finally {
    await agent.close();
  }
  const turnsOf = (values: readonly (TimedPrompt | number)[] = []) =>
    values.filter((v): v is TimedPrompt => typeof v !== "number");
  const timesOf = (values: readonly (TimedPrompt | number)[] = []) =>
    values.filter((v): v is number => typeof v === "number");
  const without = turnsOf(samples[0]);
  const withHook = turnsOf(samples[1]);
  const withoutMs = median(without.map((t) => t.responseMs));
  const withMs = median(withHook.map((t) => t.responseMs));
  const added = withMs - withoutMs;
  const spawnMs = median(timesOf(samples[2]));
  const detachedMs = median(timesOf(samples[3]));
  const turns = {
    turn_with_hook_median_ms: round(withMs),
    turn_without_hook_median_ms: round(withoutMs),
    turn_ratio: round(withMs / withoutMs),
    turn_with_hook_minor_faults_median: median(withHook.map((t) => t.minorFaults)),
    turn_without_hook_minor_faults_median: median(without.map((t) => t.minorFaults)),
    samples: withHook.length,
  };
  printFigure({
    bench: "pretooluse_true_hook_added_time_in_spawns",
    median_ms: added,
    baseline: 'Deno.Command("/bin/sh", {args: ["-c", "true"]}).spawn() and its status, ' +
      "from the agent's process",
    baseline_median_ms: spawnMs,
    target_ratio_max: 1.2,
    ...{
      ...turns,
      detached_spawn_median_ms: round(detachedMs),
      ratio_vs_detached_spawn: round(added / detachedMs),
    },
  });
  printFigure({
    bench: "pretooluse_true_hook_added_time_in_detached_spawns",
    median_ms: added,
    baseline: "the same spawn with detached: true (fork + setsid, as every hook is started)",
    baseline_median_ms: detachedMs,
    target_ratio_max: 1.2,
    ...turns,
  });
  summary.push(
    `one true PreToolUse hook: turn ${withMs.toFixed(2)} ms vs ${withoutMs.toFixed(2)} ms, ` +
      `added ${added.toFixed(2)} ms = ${(added / spawnMs).toFixed(2)} bare spawns ` +
      `(${spawnMs.toFixed(2)} ms) = ${(added / detachedMs).toFixed(2)} detached spawns ` +
      `(${detachedMs.toFixed(2)} ms) (target <= 1.2 spawns)`,
  );
}

/**
 * Figure 3: Notification hooks run beside the turn. Each hook-side sample waits for its three
 * firings (one per message, each three `sleep 1`) to finish before its session closes, so no
 * timed turn shares the machine with the previous turn's hooks.
 */
async function benchNotificationHooks(): Promise<void> {
  const plain = `${launch}/plain`;
  const notify = await project("notify", SLEEP_NOTIFICATION_SETTINGS);
  const agent = await SeamAgent.open({ launchCwd: launch, home, script: THREE_MESSAGES });
  let samples;
  try {
    samples = await interleave(NOTIFICATION_ROUNDS, Math.min(WARM_UP_ROUNDS, 2), [
      () => sessionTurns(agent, { cwd: plain, prompts: 1, messages: 3, firings: () => "" }),
      () =>
        sessionTurns(agent, {
          cwd: notify,
          prompts: 1,
          messages: 3,
          after: (id) => agent.untilFirings(id, "Notification", 3),
          firings: () => "Notification:3 Notification:3 Notification:3",
        }),
    ]);
  } finally {
    await agent.close();
  }
  const [without = [], withHooks = []] = samples;
  const extra = { samples: withHooks.length, messages_per_turn: 3 };
  const figure = (bench: string, key: TurnKey, what: string, target?: number) => {
    printFigure({
      bench,
      median_ms: medianOf(withHooks, 0, key),
      baseline: `the same turn without hooks: request to ${what}`,
      baseline_median_ms: medianOf(without, 0, key),
      ...(target === undefined ? {} : { target_ratio_max: target }),
      ...extra,
    });
    return `${what} ${medianOf(withHooks, 0, key).toFixed(2)} vs ${
      medianOf(without, 0, key).toFixed(2)
    } ms`;
  };
  const parts = [
    figure(
      "first_chunk_with_three_sleep_notification_hooks_vs_none",
      "firstChunkMs",
      "first agent_message_chunk",
      1.05,
    ),
    figure(
      "last_message_first_chunk_with_three_sleep_notification_hooks_vs_none",
      "lastMessageMs",
      "third message's first chunk",
    ),
    // The brief: Notification hooks must not delay the response either.
    figure(
      "response_with_three_sleep_notification_hooks_vs_none",
      "responseMs",
      "prompt response",
      1.05,
    ),
  ];
  summary.push(`three sleep 1 Notification hooks (target <= 1.05): ${parts.join(", ")}`);
}
