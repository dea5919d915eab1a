/**
 * Figures 2 and 4 of bench/claude_profile.ts (its header says what each measures and why its
 * baseline is the one): `claude`-profile turns on the in-process agent of bench/seam_agent.ts,
 * each sample one tool turn in a fresh session.
 */
import { claudeTranscriptPathFor } from "../src/agent/transcript/claude_transcript_path.ts";
import type { ModelScript } from "../src/model/scripted/scripted_model.ts";
import { bareSpawn } from "./bare_spawn.ts";
import { median, printFigure, round, timeOnce } from "./bench_stats.ts";
import { sleep } from "./cut_turn.ts";
import { interleave } from "./interleave.ts";
import { commandHook, oneToolTurn, SeamAgent, type TimedPrompt } from "./seam_agent.ts";

/** Where the figures run, and what they share with the bench's other figures. */
export interface BenchPlace {
  /** The agents' launch directory; projects lie under it. */
  readonly launch: string;
  readonly home: string;
  /** A project under `launch`, with `.claude/settings.json` when settings are given. */
  readonly project: (name: string, settings?: unknown) => Promise<string>;
  readonly rounds: number;
  readonly warmUpRounds: number;
  /** Lines for the summary on stderr. */
  readonly summary: string[];
}

/** An idle pause before each timed prompt, so every one starts from a quiet event loop. */
const SETTLE_MS = 5;
const NO_CLAUDE_TRANSCRIPT_LOG = "No Claude-format transcript for session";

/** One checked tool turn in a fresh session of `agent` (`oneToolTurn`). */
function turnIn(
  agent: SeamAgent,
  cwd: string,
  firings: string,
  asks: number,
  after?: (sessionId: string) => Promise<void>,
): Promise<TimedPrompt> {
  return oneToolTurn({ agent, cwd, firings, asks, settleMs: SETTLE_MS, after });
}

/** Lines in a file; 0 when there is none. */
async function linesIn(path: string): Promise<number> {
  try {
    return (await Deno.readTextFile(path)).split("\n").filter((line) => line !== "").length;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}

/**
 * Figure 2: what writing the Claude-format transcript costs a tool turn, with the two hooks that
 * make it flush before they fire, and (reported beside it) without hooks, which leaves only the
 * records and the flush when the turn answers.
 */
export async function benchClaudeTranscriptTurn(place: BenchPlace): Promise<void> {
  const { home } = place;
  const hooked = await place.project("transcript_turn", {
    hooks: {
      PreToolUse: [{ matcher: "Read", hooks: [commandHook("true")] }],
      Stop: [{ hooks: [commandHook("true")] }],
    },
  });
  const plain = await place.project("transcript_turn_plain");
  const script: ModelScript = {
    turns: [
      {
        text: "Let me read the notes first.",
        toolCalls: [{ name: "Read", input: { file_path: `${hooked}/notes.txt` } }],
      },
      { text: "The notes say to water the plants on Tuesday and to call the plumber." },
    ],
  };
  const stateHome = `${home}/.local/state`;
  let unwritten = 0;
  const withTranscript = await SeamAgent.open({
    launchCwd: place.launch,
    home,
    script,
    profile: "claude",
  });
  const withoutTranscript = await SeamAgent.open({
    launchCwd: place.launch,
    home: undefined,
    stateHome,
    script,
    profile: "claude",
    log: (line) => {
      if (line.startsWith(NO_CLAUDE_TRANSCRIPT_LOG)) unwritten++;
      else console.error(`bench agent: ${line}`);
    },
  });
  const claudeLines: number[] = [];
  /** Both arms keep raw.jsonl in one place; only one writes the Claude-format transcript. */
  const checked = (cwd: string, claude: boolean) => async (id: string) => {
    if (await linesIn(`${stateHome}/llama-agent/sessions/${id}/raw.jsonl`) === 0) {
      throw new Error(`No raw.jsonl for ${id}`);
    }
    // Flushed when the turn answered: its records are there without waiting.
    const lines = await linesIn(claudeTranscriptPathFor(home, cwd, id));
    if (claude ? lines < 4 : lines !== 0) {
      throw new Error(`The Claude-format transcript of a ${claude} arm holds ${lines} lines`);
    }
    if (claude && cwd === hooked) claudeLines.push(lines);
  };
  const arm = (agent: SeamAgent, cwd: string, claude: boolean) => () =>
    turnIn(agent, cwd, cwd === hooked ? "PreToolUse:1 Stop:1" : "", 0, checked(cwd, claude));
  let samples;
  try {
    samples = await interleave(place.rounds, place.warmUpRounds, [
      arm(withoutTranscript, hooked, false),
      arm(withTranscript, hooked, true),
      arm(withoutTranscript, plain, false),
      arm(withTranscript, plain, true),
    ]);
  } finally {
    await withTranscript.close();
    await withoutTranscript.close();
  }
  if (unwritten !== 2 * (place.rounds + place.warmUpRounds)) {
    throw new Error(`${unwritten} baseline sessions said they have no Claude transcript`);
  }
  const ms = (turns: readonly TimedPrompt[] = []) => median(turns.map((t) => t.responseMs));
  const faults = (turns: readonly TimedPrompt[] = []) => median(turns.map((t) => t.minorFaults));
  const figure = (
    bench: string,
    what: string,
    [without, withIt]: (TimedPrompt[] | undefined)[],
    extra: Record<string, number> = {},
  ) => {
    printFigure({
      bench,
      median_ms: ms(withIt),
      baseline: `the same claude-profile turn (Read, then an answer; ${what}) with HOME unset ` +
        "and XDG_STATE_HOME set: no Claude-format transcript, raw.jsonl where it was",
      baseline_median_ms: ms(without),
      ...{
        added_ms: round(ms(withIt) - ms(without)),
        samples: withIt?.length ?? 0,
        minor_faults_median: faults(withIt),
        baseline_minor_faults_median: faults(without),
        ...extra,
      },
    });
    return `${what}: ${ms(withIt).toFixed(2)} vs ${ms(without).toFixed(2)} ms (${
      (ms(withIt) / ms(without)).toFixed(3)
    }, ${(ms(withIt) - ms(without)).toFixed(2)} ms added)`;
  };
  const withHooks = figure(
    "claude_tool_turn_with_claude_transcript_vs_without",
    "true PreToolUse and Stop hooks",
    samples.slice(0, 2),
    { transcript_lines_median: median(claudeLines) },
  );
  const noHooks = figure(
    "claude_tool_turn_without_hooks_with_claude_transcript_vs_without",
    "no hooks",
    samples.slice(2),
  );
  place.summary.push(
    `claude tool turn, Claude-format transcript vs none (report): ${withHooks}`,
    `  the same turn, ${noHooks}`,
  );
}

/** Figure 4: a PermissionRequest hook that decides nothing, on a call the client is asked about. */
export async function benchPermissionRequest(place: BenchPlace): Promise<void> {
  const { home } = place;
  const withHook = await place.project("permission_hook", {
    hooks: { PermissionRequest: [{ matcher: "Bash", hooks: [commandHook("true")] }] },
  });
  const withoutHook = await place.project("permission_plain");
  const script: ModelScript = {
    turns: [
      {
        text: "Let me run the check first.",
        toolCalls: [{ name: "Bash", input: { command: "true", description: "Run the check" } }],
      },
      { text: "The check passed, so there is nothing to fix." },
    ],
  };
  const agent = await SeamAgent.open({
    launchCwd: place.launch,
    home,
    script,
    profile: "claude",
    permission: "allow_once",
  });
  let samples;
  try {
    samples = await interleave<TimedPrompt | number>(place.rounds, place.warmUpRounds, [
      () => turnIn(agent, withoutHook, "", 1),
      () => turnIn(agent, withHook, "PermissionRequest:1", 1),
      async () => {
        await sleep(SETTLE_MS);
        return await timeOnce(bareSpawn);
      },
    ]);
  } finally {
    await agent.close();
  }
  const turns = (values: readonly (TimedPrompt | number)[] = []) =>
    values.filter((v): v is TimedPrompt => typeof v !== "number").map((t) => t.responseMs);
  const withMs = median(turns(samples[1]));
  const withoutMs = median(turns(samples[0]));
  const spawnMs = median((samples[2] ?? []).filter((v): v is number => typeof v === "number"));
  const added = withMs - withoutMs;
  printFigure({
    bench: "asked_bash_call_with_permission_request_hook_vs_without",
    median_ms: withMs,
    baseline: "the same claude-profile turn (Bash true, asked, the client allowing at once) " +
      "without a PermissionRequest hook",
    baseline_median_ms: withoutMs,
    ...{
      added_ms: round(added),
      bare_spawn_median_ms: round(spawnMs),
      added_in_bare_spawns: round(added / spawnMs),
      samples: turns(samples[1]).length,
    },
  });
  place.summary.push(
    `asked Bash call with a PermissionRequest true hook ${withMs.toFixed(2)} vs without ` +
      `${withoutMs.toFixed(2)} ms (${(withMs / withoutMs).toFixed(3)}, ${added.toFixed(2)} ms ` +
      `added = ${(added / spawnMs).toFixed(2)} bare spawns of ${spawnMs.toFixed(2)} ms; report)`,
  );
}
