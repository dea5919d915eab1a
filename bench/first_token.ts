/**
 * A new session's time to first token, with the fixed prompt's state kept (prefix_state_cache.ts)
 * against without, and against a session's second turn: a new session of the same project, of
 * the same project in a model loaded again (as the next process loads it), and of another
 * project. Then the default thread count against llama.cpp's usual choice. All on the agent's
 * real prompt (system prompt and the llama profile's tools), through the agent's own llama
 * backend, side by side in one run.
 *
 * Time to first token is a `generate` capped at one token: the prompt's evaluation and one
 * decode. "open" adds opening the session's context, as a new session's first turn does.
 *
 *   deno run -A bench/first_token.ts                     # SmolLM2-135M and a random-weights one
 *   deno run -A bench/first_token.ts --model m.gguf      # another model
 *   deno run -A bench/first_token.ts --runs 5 --ctx 4096 # more runs; another context size
 *   deno run -A bench/first_token.ts --no-cache          # threads only (--no-threads: cache only)
 *   deno run -A bench/first_token.ts --no-cache --counts 1,4  # only these thread counts
 *
 * SmolLM2-135M-Instruct is taken from the test parts (tools/install_test_parts.sh) when they are
 * installed; the random-weights model of its shape is written into a temporary directory.
 * Prints one JSON line per figure, then a table on stderr.
 */
import { parseArgs } from "node:util";
import { createToolKit } from "../src/agent/tools/tool_kits.ts";
import { systemPromptItem } from "../src/acp/turn/system_prompt.ts";
import { openLlamaRuntime } from "../src/model/llama/llama_model.ts";
import type { ConversationItem, GenerateResult, Model, ModelSession } from "../src/model/model.ts";
import { writeRandomWeightsModel } from "../src/model/scripted/random_weights_gguf.ts";
import { compatProfile } from "../src/profile/compat_profile.ts";
import { median, round } from "./bench_stats.ts";

const CWD = "/home/you/projects/app";
const FIRST = "Say hello.";
const SECOND = "Now in French.";
/** Tokens decoded when threads are compared. */
const DECODE_TOKENS = 32;

interface Sample {
  readonly ms: number;
  readonly prompt: number;
  readonly evaluated: number;
}

const profile = compatProfile("llama");
const tools = createToolKit(profile).definitions();
const system = systemPromptItem({ cwd: CWD, additionalDirectories: [] }, profile);
const firstTurn: ConversationItem[] = [system, { role: "user", text: FIRST }];
/** The first turn of a session in another project: the shared part is kept, its place is new. */
const otherProjectTurn: ConversationItem[] = [
  systemPromptItem({ cwd: "/home/you/projects/other", additionalDirectories: [] }, profile),
  { role: "user", text: FIRST },
];

async function generate(
  session: ModelSession,
  conversation: readonly ConversationItem[],
  maxTokens = 1,
): Promise<{ sample: Sample; result: GenerateResult }> {
  const started = performance.now();
  const result = await session.generate({
    conversation,
    tools,
    maxTokens,
    signal: new AbortController().signal,
    onTextChunk: () => {},
    onThoughtChunk: () => {},
  });
  const ms = performance.now() - started;
  return {
    sample: { ms, prompt: result.tokens.prompt, evaluated: result.tokens.evaluated },
    result,
  };
}

/** A new session's first turn: opening its context, then the turn. */
async function newSessionTurn(
  model: Model,
  conversation = firstTurn,
): Promise<{ open: number; turn: Sample }> {
  const started = performance.now();
  const session = await model.openSession();
  const open = performance.now() - started;
  try {
    return { open, turn: (await generate(session, conversation)).sample };
  } finally {
    await session.dispose();
  }
}

interface Run {
  readonly withoutCache: Sample;
  readonly withoutCacheOpen: number;
  readonly secondTurn: Sample;
  readonly building: Sample;
  readonly cachedInProcess: Sample;
  readonly cachedInProcessOpen: number;
  readonly cachedOtherProject: Sample;
  readonly cachedNextLoad: Sample;
}

async function oneRun(modelPath: string, contextSize: number, threads: number): Promise<Run> {
  const runtime = await openLlamaRuntime({ gpu: "off", log: (line) => console.error(line) });
  const states = await Deno.makeTempDir({ prefix: "first_token_states_" });
  try {
    // Without a cache: the first turn, then the second turn of the same session.
    const bare = await runtime.loadModel({ modelPath, contextSize, threads });
    let withoutCache: Sample;
    let withoutCacheOpen: number;
    let secondTurn: Sample;
    try {
      const started = performance.now();
      const session = await bare.openSession();
      withoutCacheOpen = performance.now() - started;
      try {
        const first = await generate(session, firstTurn);
        withoutCache = first.sample;
        secondTurn = (await generate(session, [
          ...firstTurn,
          { role: "assistant", segments: [{ type: "text", text: first.result.text }] },
          { role: "user", text: SECOND },
        ])).sample;
      } finally {
        await session.dispose();
      }
    } finally {
      await bare.dispose();
    }
    // With a cache: the session that builds and keeps the state, then a new one in the same
    // process, then one of a model loaded again (what the next process does).
    const cached = await runtime.loadModel({
      modelPath,
      contextSize,
      threads,
      prefixStateDir: states,
    });
    let building: Sample;
    let inProcess: { open: number; turn: Sample };
    let otherProject: Sample;
    try {
      building = (await newSessionTurn(cached)).turn;
      inProcess = await newSessionTurn(cached);
      otherProject = (await newSessionTurn(cached, otherProjectTurn)).turn;
    } finally {
      await cached.dispose();
    }
    const reloaded = await runtime.loadModel({
      modelPath,
      contextSize,
      threads,
      prefixStateDir: states,
    });
    let nextLoad: Sample;
    try {
      nextLoad = (await newSessionTurn(reloaded)).turn;
    } finally {
      await reloaded.dispose();
    }
    return {
      withoutCache,
      withoutCacheOpen,
      secondTurn,
      building,
      cachedInProcess: inProcess.turn,
      cachedInProcessOpen: inProcess.open,
      cachedOtherProject: otherProject,
      cachedNextLoad: nextLoad,
    };
  } finally {
    await runtime.dispose();
    await Deno.remove(states, { recursive: true });
  }
}

/** Prefill and decode speed of a fresh session at `threads`. */
async function threadRun(
  modelPath: string,
  contextSize: number,
  threads: number,
): Promise<{ prefillPerS: number; decodePerS: number }> {
  const runtime = await openLlamaRuntime({ gpu: "off", log: (line) => console.error(line) });
  try {
    const model = await runtime.loadModel({ modelPath, contextSize, threads });
    try {
      const session = await model.openSession();
      try {
        const prefill = (await generate(session, firstTurn)).sample;
        const started = performance.now();
        const { result } = await generate(session, [
          ...firstTurn,
          { role: "assistant", segments: [{ type: "text", text: "" }] },
        ], DECODE_TOKENS);
        const decodeMs = performance.now() - started;
        return {
          prefillPerS: prefill.evaluated / (prefill.ms / 1000),
          decodePerS: result.tokens.generated / (decodeMs / 1000),
        };
      } finally {
        await session.dispose();
      }
    } finally {
      await model.dispose();
    }
  } finally {
    await runtime.dispose();
  }
}

/** Physical cores as Linux's topology gives them: distinct (package, core) pairs. */
async function linuxPhysicalCores(): Promise<number | undefined> {
  const cores = new Set<string>();
  try {
    for await (const entry of Deno.readDir("/sys/devices/system/cpu")) {
      if (!/^cpu\d+$/.test(entry.name)) continue;
      const topology = `/sys/devices/system/cpu/${entry.name}/topology`;
      const read = async (name: string) => (await Deno.readTextFile(`${topology}/${name}`)).trim();
      cores.add(`${await read("physical_package_id")}:${await read("core_id")}`);
    }
  } catch {
    return undefined;
  }
  return cores.size > 0 ? cores.size : undefined;
}

/** llama.cpp's count of cores useful for math (`common_cpu_get_num_math`). */
async function llamaMathCores(): Promise<number> {
  const { getLlama } = await import("node-llama-cpp");
  const llama = await getLlama({
    gpu: false,
    build: "never",
    skipDownload: true,
    progressLogs: false,
  });
  try {
    return llama.cpuMathCores;
  } finally {
    await llama.dispose();
  }
}

function medianOf(runs: readonly Run[], pick: (run: Run) => number): number {
  return median(runs.map(pick));
}

async function benchModel(
  name: string,
  modelPath: string,
  contextSize: number,
  threads: number,
  runs: number,
  table: string[],
): Promise<void> {
  const samples: Run[] = [];
  // One untimed run: page cache, llama.cpp's first-use costs.
  await oneRun(modelPath, contextSize, threads);
  for (let i = 0; i < runs; i++) samples.push(await oneRun(modelPath, contextSize, threads));
  const ms = (pick: (run: Run) => Sample) => medianOf(samples, (run) => pick(run).ms);
  const tokens = (pick: (run: Run) => Sample) => medianOf(samples, (run) => pick(run).evaluated);
  const second = ms((run) => run.secondTurn);
  const rows: [string, (run: Run) => Sample, number?][] = [
    ["first turn, no cache", (run) => run.withoutCache],
    ["first turn, building the cache", (run) => run.building],
    ["first turn, cached (same process)", (run) => run.cachedInProcess],
    ["first turn, cached (model loaded again)", (run) => run.cachedNextLoad],
    ["first turn, cached, another project", (run) => run.cachedOtherProject],
    ["second turn of a session", (run) => run.secondTurn],
  ];
  table.push(`${name}: context ${contextSize}, ${threads} threads, median of ${runs} runs`);
  table.push(
    `  ${"case".padEnd(42)} ${"ttft ms".padStart(9)} ${"evaluated".padStart(9)} ` +
      `${"/ 2nd turn".padStart(10)}`,
  );
  for (const [label, pick] of rows) {
    const value = ms(pick);
    console.log(JSON.stringify({
      bench: "first_token",
      model: name,
      case: label,
      median_ms: round(value, 1),
      evaluated: tokens(pick),
      prompt: medianOf(samples, (run) => pick(run).prompt),
      ratio_to_second_turn: round(value / second, 2),
      context_size: contextSize,
      threads,
    }));
    table.push(
      `  ${label.padEnd(42)} ${value.toFixed(0).padStart(9)} ` +
        `${String(tokens(pick)).padStart(9)} ${(value / second).toFixed(2).padStart(10)}`,
    );
  }
  const cached = ms((run) => run.cachedInProcess);
  const open = medianOf(samples, (run) => run.cachedInProcessOpen);
  console.log(JSON.stringify({
    bench: "first_token_target",
    model: name,
    cached_over_second_turn: round(cached / second, 2),
    target_ratio_max: 1.2,
    meets_target: cached / second <= 1.2,
    no_cache_over_cached: round(ms((run) => run.withoutCache) / cached, 1),
    context_open_ms: round(open, 1),
  }));
  table.push(
    `  cached first turn / second turn: ${(cached / second).toFixed(2)} (target <= 1.2); ` +
      `no cache / cached: ${(ms((run) => run.withoutCache) / cached).toFixed(1)}x; ` +
      `opening the context: ${open.toFixed(0)} ms more`,
  );
}

async function benchThreads(
  name: string,
  modelPath: string,
  contextSize: number,
  runs: number,
  table: string[],
  counts?: readonly number[],
): Promise<void> {
  const logical = navigator.hardwareConcurrency;
  const math = await llamaMathCores();
  const physical = await linuxPhysicalCores();
  const candidates = counts ??
    [...new Set([logical, math, physical ?? math, 1, logical * 2])].sort((a, b) => a - b);
  table.push(
    `${name}: threads (hardwareConcurrency ${logical}, llama.cpp math cores ${math}, ` +
      `Linux physical cores ${physical ?? "unknown"})`,
  );
  // Interleaved, one of each count per round, so that other work on the machine falls on all.
  const results = new Map<number, { prefillPerS: number; decodePerS: number }[]>(
    candidates.map((threads) => [threads, []]),
  );
  for (const threads of candidates) await threadRun(modelPath, contextSize, threads);
  for (let i = 0; i < runs; i++) {
    for (const threads of candidates) {
      results.get(threads)!.push(await threadRun(modelPath, contextSize, threads));
    }
  }
  for (const threads of candidates) {
    const samples = results.get(threads)!;
    const prefill = median(samples.map((r) => r.prefillPerS));
    const decode = median(samples.map((r) => r.decodePerS));
    const roles = [
      threads === logical ? "hardwareConcurrency" : "",
      threads === math ? "llama.cpp math cores" : "",
      threads === physical ? "Linux physical cores" : "",
    ].filter((role) => role !== "").join(", ");
    console.log(JSON.stringify({
      bench: "threads",
      model: name,
      threads,
      is: roles,
      prefill_tokens_per_s: round(prefill, 1),
      decode_tokens_per_s: round(decode, 1),
    }));
    table.push(
      `  ${String(threads).padStart(3)} threads: prefill ${prefill.toFixed(0)} tok/s, ` +
        `decode ${decode.toFixed(1)} tok/s${roles === "" ? "" : ` (${roles})`}`,
    );
  }
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      model: { type: "string" },
      runs: { type: "string", default: "3" },
      ctx: { type: "string", default: "8192" },
      threads: { type: "string" },
      "no-threads": { type: "boolean", default: false },
      "no-cache": { type: "boolean", default: false },
      counts: { type: "string" },
    },
  });
  const runs = Number(values.runs);
  const contextSize = Number(values.ctx);
  const threads = values.threads === undefined ? await llamaMathCores() : Number(values.threads);
  const temp = await Deno.makeTempDir({ prefix: "first_token_" });
  const table: string[] = [];
  // Other work on the machine skews every figure (llama.cpp's threads wait on each other when a
  // core is taken): the load is printed with them.
  const loadBefore = Deno.loadavg();
  try {
    const models: [string, string][] = [];
    if (values.model !== undefined) models.push([values.model, values.model]);
    else {
      const parts = Deno.env.get("LLAMA_AGENT_TEST_PARTS") ||
        `${
          Deno.env.get("XDG_CACHE_HOME") || `${Deno.env.get("HOME")}/.cache`
        }/llama-agent-test-parts`;
      const real = `${parts}/instruct.gguf`;
      if (await Deno.stat(real).then((info) => info.isFile, () => false)) {
        models.push(["SmolLM2-135M-Instruct Q4_1", real]);
      } else {
        console.error(`SmolLM2-135M is not in ${parts} (tools/install_test_parts.sh): skipped`);
      }
      const random = `${temp}/random_smollm2_135m.gguf`;
      await writeRandomWeightsModel(random, { layers: 30 });
      models.push(["random weights, SmolLM2-135M shape, F16", random]);
    }
    if (!values["no-cache"]) {
      for (const [name, path] of models) {
        await benchModel(name, path, contextSize, threads, runs, table);
      }
    }
    if (!values["no-threads"]) {
      const counts = values.counts?.split(",").map(Number);
      for (const [name, path] of models) {
        await benchThreads(name, path, contextSize, runs, table, counts);
      }
    }
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
  const loadAfter = Deno.loadavg();
  console.log(JSON.stringify({
    bench: "machine",
    cpus: navigator.hardwareConcurrency,
    load_average_before: loadBefore,
    load_average_after: loadAfter,
  }));
  table.push(
    `load average (1, 5, 15 min): ${loadBefore.join(", ")} before, ${loadAfter.join(", ")} after`,
  );
  for (const line of table) console.error(line);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
