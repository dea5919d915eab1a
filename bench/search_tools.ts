/**
 * What the glob and grep tools cost against the programs a model would otherwise run through the
 * shell: `fs_glob "**\/*.ts"` against `find . -name '*.ts'`, and `fs_grep` (files and content
 * modes) against `grep -rl` / `grep -rn`, on a generated tree of 2,000 files (200 ignored by
 * `.gitignore`). The baselines are spawned programs (a spawn included, as a shell call pays it);
 * ours run in process through the confined walk. Medians of interleaved runs, as ratios.
 *
 *   deno task bench:search
 *   deno run -A bench/search_tools.ts --quick
 */
import { globFiles } from "../src/agent/search/file_glob.ts";
import { grepFiles } from "../src/agent/search/file_grep.ts";
import type { GrepOperation } from "../src/agent/tools/tool_operation.ts";
import { measureInterleaved, median, printFigure } from "./bench_stats.ts";
import { systemProgram } from "./system_program.ts";

const quick = Deno.args.includes("--quick");
const ROUNDS = quick ? 10 : 40;
const DIRS = 40;
const FILES_PER_DIR = 50;

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama-agent-bench-search-" }));
try {
  await writeTree(root);
  const FIND = systemProgram("find") ?? "find";
  const GREP = systemProgram("grep") ?? "grep";
  const run = async (program: string, args: string[]) => {
    const output = await new Deno.Command(program, { args, cwd: root, stdout: "piped" }).output();
    if (output.code > 1) throw new Error(`${program} failed`);
  };
  const grep = (outputMode: GrepOperation["outputMode"]): GrepOperation => ({
    capability: "fs_grep",
    pattern: "needle_[0-9]+",
    outputMode,
    ignoreCase: false,
    lineNumbers: true,
    before: 0,
    after: 0,
    multiline: false,
    offset: 0,
  });
  const request = { cwd: root, roots: [root] };

  await figure(
    "glob **/*.ts vs find -name '*.ts'",
    "find",
    () => run(FIND, [".", "-name", "*.ts"]),
    async () => {
      const result = await globFiles({ ...request, pattern: "**/*.ts", limit: 100 });
      if (!result.ok) throw new Error(result.message);
    },
  );
  await figure(
    "grep files_with_matches vs grep -rlE",
    "grep -rl",
    () => run(GREP, ["-rlE", "needle_[0-9]+", "."]),
    async () => {
      const result = await grepFiles(grep("files_with_matches"), request);
      if (!result.ok) throw new Error(result.message);
    },
  );
  await figure(
    "grep content vs grep -rnE",
    "grep -rn",
    () => run(GREP, ["-rnE", "needle_[0-9]+", "."]),
    async () => {
      const result = await grepFiles(grep("content"), request);
      if (!result.ok) throw new Error(result.message);
    },
  );
} finally {
  await Deno.remove(root, { recursive: true });
}

async function figure(
  bench: string,
  baseline: string,
  baselineFn: () => Promise<void>,
  measuredFn: () => Promise<void>,
): Promise<void> {
  const samples = await measureInterleaved(ROUNDS, baselineFn, measuredFn);
  printFigure({
    bench,
    median_ms: median(samples.measured),
    baseline,
    baseline_median_ms: median(samples.baseline),
  });
}

/** 2,000 small source files, one in ten holding a match, and an ignored build directory. */
async function writeTree(dir: string): Promise<void> {
  await Deno.writeTextFile(`${dir}/.gitignore`, "build/\n");
  for (let d = 0; d < DIRS; d++) {
    const sub = d < DIRS * 0.1 ? `${dir}/build/d${d}` : `${dir}/src/d${d}`;
    await Deno.mkdir(sub, { recursive: true });
    for (let f = 0; f < FILES_PER_DIR; f++) {
      const lines = Array.from({ length: 40 }, (_, i) => `export const v${i} = ${i * f};`);
      if (f % 10 === 0) lines[20] = `// needle_${d}_${f}`;
      await Deno.writeTextFile(`${sub}/f${f}.ts`, lines.join("\n") + "\n");
    }
  }
}
