/**
 * Agent benchmarks: the real `bin/llama-agent acp` over stdio against the same work done without
 * the agent. Every figure is one JSON line on stdout with a baseline measured in the same run
 * (these machines are shared and noisy: only ratios mean anything); a summary goes to stderr.
 * Both sides of every comparison run llama.cpp on one thread, on the CPU.
 *
 *   deno task bench:agent
 *   deno run -A bench/agent.ts --quick     # fewer and shorter runs, for a smoke run
 *   deno task bench:agent --startup-only   # only the start-up figure (no model is loaded)
 *   deno task bench:agent --endpoint-only  # only the endpoint figures (bench/agent_endpoint.ts)
 */
import { compatProfile } from "../src/profile/compat_profile.ts";
import { writeRandomWeightsModel } from "../src/model/scripted/random_weights_gguf.ts";
import { writeScriptedModel } from "../src/model/scripted/scripted_gguf.ts";
import { LAUNCHER, REPO_ROOT } from "../tests/helpers/run_cli.ts";
import { BenchAgent } from "./agent_client.ts";
import { BareLlamaChat } from "./bare_llama_chat.ts";
import { systemPrompt } from "../src/acp/turn/system_prompt.ts";
import { type Figure, measureInterleaved, median, printFigure, round } from "./bench_stats.ts";
import { type CutTurn, msPerToken } from "./cut_turn.ts";
import { childPids, commandLine, residentBytes } from "./proc_status.ts";
import { benchEndpoint } from "./agent_endpoint.ts";

const quick = Deno.args.includes("--quick");
const startupOnly = Deno.args.includes("--startup-only");
const endpointOnly = Deno.args.includes("--endpoint-only");
/** Interleaved agent/bare turn pairs, after one warm-up turn on each side. */
const TURN_PAIRS = quick ? 1 : 4;
/** How long a turn generates after its first text before it is cancelled. */
const CUT_AFTER_MS = quick ? 1_500 : 4_000;
const STARTUPS = quick ? 3 : 10;
/**
 * Room for the agent's prompt (~980 tokens: its three tools' documentation, in the random
 * model's byte-heavy vocabulary) and a cut turn's tokens, so that no turn needs a context shift.
 */
const CONTEXT_SIZE = 2048;
const THREADS = 1;
const TURN_PROMPT =
  "Write a short story about a lighthouse keeper who finds a message in a bottle.";
const DENO = `${REPO_ROOT}/node_modules/deno/deno`;

const started = performance.now();
const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama-agent-bench-" }));
const home = `${root}/home`;
const project = `${root}/project`;
const summary: string[] = [];
try {
  await Deno.mkdir(`${home}/models`, { recursive: true });
  await Deno.mkdir(project);
  if (!endpointOnly) await benchStartup();
  if (!startupOnly && !endpointOnly) {
    await benchSecondTurn();
    await benchTurnThroughput();
  }
  if (!startupOnly) {
    await benchEndpoint({ project, home, pairs: TURN_PAIRS, cutAfterMs: CUT_AFTER_MS, summary });
  }
} finally {
  await Deno.remove(root, { recursive: true });
}
summary.push(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.error(summary.map((line) => `bench/agent: ${line}`).join("\n"));

function agentArgs(modelPath: string, contextSize: number): string[] {
  return [
    "--model",
    modelPath,
    "--threads",
    String(THREADS),
    "--gpu",
    "off",
    "--ctx-size",
    String(contextSize),
  ];
}

/** `printFigure` with this benchmark's own fields (token counts, memory) added to its line. */
function printFigureWith(figure: Figure, extra: Readonly<Record<string, unknown>>): void {
  printFigure({ ...figure, ...extra });
}

/** Runs a program as the agent's users would, in the project with the bench HOME. */
async function runQuietly(program: string, args: readonly string[]): Promise<void> {
  const output = await new Deno.Command(program, {
    args: [...args],
    cwd: project,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr);
    throw new Error(`Benchmark command "${program}" failed (code ${output.code}): ${stderr}`);
  }
}

/** `llama-agent --version` against Deno running an empty script with the launcher's flags. */
async function benchStartup(): Promise<void> {
  const empty = `${project}/empty.ts`;
  await Deno.writeTextFile(empty, "");
  const readOnly = [REPO_ROOT, "/lib", "/lib64", "/usr/lib", "/usr/lib64"].filter((dir) => {
    try {
      return Deno.statSync(dir).isDirectory;
    } catch {
      return false;
    }
  });
  const denoArgs = [
    "run",
    "--quiet",
    "--no-prompt",
    "--unstable-lazy-dynamic-imports",
    "--config",
    `${REPO_ROOT}/deno.json`,
    `--allow-read=${[project, home, ...readOnly].join(",")}`,
    `--allow-write=${project},${home}`,
    "--allow-run",
    "--allow-env",
    "--allow-sys",
    "--allow-ffi",
    "--allow-net",
    empty,
  ];
  const { baseline, measured } = await measureInterleaved(
    STARTUPS,
    () => runQuietly(DENO, denoArgs),
    () => runQuietly(LAUNCHER, ["--version"]),
  );
  await Deno.remove(empty);
  printFigure({
    bench: "startup_version_vs_deno_empty",
    median_ms: median(measured),
    baseline: "node_modules/deno/deno run (the launcher's flags) of an empty script",
    baseline_median_ms: median(baseline),
    target_ratio_max: 1.5,
  });
  summary.push(
    `startup: --version ${median(measured).toFixed(0)} ms, empty Deno script ` +
      `${median(baseline).toFixed(0)} ms (target ratio <= 1.5)`,
  );
}

/**
 * Two prompts in one session on a scripted model: real llama.cpp through the agent's llama
 * backend, with a reply that ends its turn and reads back as the tokens it was generated as (a
 * random-weights reply does not: its text re-tokenizes differently, which says nothing about the
 * agent's reuse of its context).
 */
async function benchSecondTurn(): Promise<void> {
  const modelPath = `${home}/models/reply.gguf`;
  await writeScriptedModel(modelPath, { kind: "reply", text: "Hello from the scripted model." });
  // The scripted vocabulary spells most of the tool prompt byte by byte: ~2,100 tokens.
  const agent = await BenchAgent.start({
    cwd: project,
    home,
    args: agentArgs(modelPath, 8192),
  });
  let first, second;
  try {
    const sessionId = await agent.newSession();
    first = await agent.prompt(sessionId, "Say hello.");
    second = await agent.prompt(
      sessionId,
      "Now tell me, in a few words, what you would need to know to review a small pull request " +
        "that renames a function in a TypeScript project.",
    );
  } finally {
    await agent.close();
  }
  const one = first._meta.tokens;
  const two = second._meta.tokens;
  // `prompt` is the whole rendered history, ending with the generation prefix; `generated`
  // counts the sampled tokens, the end-of-turn token included (src/model/llama/llama_model.ts). The
  // end token is sampled but never fed back, so the context holds `prompt + generated - 1`
  // tokens after a turn that ended; the second history repeats all of them (the reply reads back
  // as the same tokens, the end token included), so everything past them is new.
  const cached = one.prompt + one.generated - (first.stopReason === "end_turn" ? 1 : 0);
  const newTokens = two.prompt - cached;
  const ratio = two.evaluated / newTokens;
  printFigureWith({
    bench: "second_turn_evaluated_vs_new_tokens",
    baseline: "tokens new in the second prompt's history",
    target_ratio_max: 1.1,
  }, {
    evaluated: two.evaluated,
    new_tokens: newTokens,
    ratio: round(ratio),
    meets_target: ratio <= 1.1,
    first_turn: { stop: first.stopReason, ...one },
    second_turn: { stop: second.stopReason, ...two },
    model: "scripted reply model (llama.cpp)",
  });
  summary.push(
    `second turn: evaluated ${two.evaluated} tokens for ${newTokens} new ` +
      `(prompt ${one.prompt} -> ${two.prompt}, first reply ${one.generated}; target ratio <= 1.1)`,
  );
}

/**
 * Tokens/s of agent turns against node-llama-cpp alone, on a random-weights model of
 * SmolLM2-135M's shape; then the agent's resident memory with that model loaded.
 */
async function benchTurnThroughput(): Promise<void> {
  const modelPath = `${home}/models/random_smollm2_135m.gguf`;
  await writeRandomWeightsModel(modelPath, { layers: 30 });
  const modelBytes = (await Deno.stat(modelPath)).size;
  // The agent loads its model in the background from its start, while the bench loads its own.
  const [agent, bare] = await Promise.all([
    BenchAgent.start({ cwd: project, home, args: agentArgs(modelPath, CONTEXT_SIZE) }),
    BareLlamaChat.open({ modelPath, contextSize: CONTEXT_SIZE, threads: THREADS }),
  ]);
  const agentTurns: CutTurn[] = [];
  const bareTurns: CutTurn[] = [];
  let rss = 0;
  try {
    const agentTurn = async (cutAfterMs: number, keep: boolean) => {
      const sessionId = await agent.newSession();
      const turn = await agent.cutTurn(sessionId, TURN_PROMPT, cutAfterMs);
      // With the model loaded and this session's context still open.
      rss = await residentBytes(await agentPid());
      await agent.closeSession(sessionId);
      if (keep) agentTurns.push(turn);
    };
    const bareTurn = async (cutAfterMs: number, keep: boolean) => {
      const turn = await bare.cutTurn(
        TURN_PROMPT,
        cutAfterMs,
        systemPrompt({ cwd: project, additionalDirectories: [] }, compatProfile()),
      );
      if (keep) bareTurns.push(turn);
    };
    // Warm-up, both at once: the agent's waits for its model to load.
    await Promise.all([agentTurn(0, false), bareTurn(0, false)]);
    for (let i = 0; i < TURN_PAIRS; i++) {
      if (i % 2 === 0) {
        await bareTurn(CUT_AFTER_MS, true);
        await agentTurn(CUT_AFTER_MS, true);
      } else {
        await agentTurn(CUT_AFTER_MS, true);
        await bareTurn(CUT_AFTER_MS, true);
      }
    }
  } finally {
    await Promise.all([agent.close(), bare.dispose()]);
  }
  printThroughput("wall", agentTurns, bareTurns);
  printThroughput("decode", agentTurns, bareTurns);
  printFigureWith({ bench: "rss_with_model_vs_model_file", baseline: "model file size" }, {
    rss_mib: round(rss / 2 ** 20, 1),
    model_file_mib: round(modelBytes / 2 ** 20, 1),
    ratio: round(rss / modelBytes),
    context_size: CONTEXT_SIZE,
  });
  summary.push(
    `memory: agent VmRSS ${(rss / 2 ** 20).toFixed(0)} MiB after a turn, model file ` +
      `${(modelBytes / 2 ** 20).toFixed(0)} MiB (report only)`,
  );
}

function printThroughput(
  phase: "wall" | "decode",
  agentTurns: readonly CutTurn[],
  bareTurns: readonly CutTurn[],
): void {
  const agentMs = median(agentTurns.map((turn) => msPerToken(turn, phase)));
  const bareMs = median(bareTurns.map((turn) => msPerToken(turn, phase)));
  const tokensPerS = 1000 / agentMs;
  const bareTokensPerS = 1000 / bareMs;
  const name = phase === "wall" ? "agent_turn" : "agent_decode";
  printFigureWith({
    bench: `${name}_tokens_per_s_vs_bare_llamachat`,
    // Time per token, so that the ratio is "lower is better" as everywhere: tokens/s at >= 0.95
    // of the baseline's is ms/token at <= 1/0.95 of it.
    median_ms: agentMs,
    baseline: phase === "wall"
      ? "LlamaChat.generateResponse in the bench process: fresh context to answer"
      : "LlamaChat.generateResponse in the bench process: first text to answer",
    baseline_median_ms: bareMs,
    target_ratio_max: 1 / 0.95,
  }, {
    unit: "ms per generated token",
    tokens_per_s: round(tokensPerS, 2),
    baseline_tokens_per_s: round(bareTokensPerS, 2),
    tokens_per_s_ratio: round(tokensPerS / bareTokensPerS),
    target_tokens_per_s_ratio_min: 0.95,
    generated: agentTurns.map((turn) => turn.tokens.generated),
    baseline_generated: bareTurns.map((turn) => turn.tokens.generated),
    prompt_tokens: agentTurns[0]?.tokens.prompt,
    baseline_prompt_tokens: bareTurns[0]?.tokens.prompt,
    cut_after_ms: CUT_AFTER_MS,
    context_size: CONTEXT_SIZE,
    threads: THREADS,
  });
  const what = phase === "wall" ? "turn (request to answer)" : "decode (first text to answer)";
  summary.push(
    `${what}: agent ${tokensPerS.toFixed(1)} tok/s, bare LlamaChat ` +
      `${bareTokensPerS.toFixed(1)} tok/s, ratio ${(tokensPerS / bareTokensPerS).toFixed(3)} ` +
      `(target >= 0.95; generated ${agentTurns.map((t) => t.tokens.generated).join("/")} vs ` +
      `${bareTurns.map((t) => t.tokens.generated).join("/")})`,
  );
}

/**
 * The agent's own process: the bench's child running main.ts. The launcher execs Deno, so the
 * child it spawned is that Deno process (checked: its executable is deno, not sh).
 */
async function agentPid(): Promise<number> {
  const candidates: number[] = [];
  for (const pid of await childPids(Deno.pid)) {
    const args = await commandLine(pid).catch((): string[] => []);
    if (args.includes(`${REPO_ROOT}/main.ts`) && args.includes("acp")) candidates.push(pid);
  }
  const [pid, ...others] = candidates;
  if (pid === undefined || others.length > 0) {
    throw new Error(`Cannot tell the agent's process: ${candidates.length} candidates`);
  }
  const executable = (await commandLine(pid))[0] ?? "";
  if (!executable.endsWith("/deno")) {
    throw new Error(`The agent's process ${pid} runs "${executable}", not deno`);
  }
  return pid;
}
