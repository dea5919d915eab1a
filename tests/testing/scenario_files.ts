/**
 * Scenario files in temporary directories for the loader's and discovery's tests, and the parts
 * of a problem a test pins down.
 */
import { assert } from "../helpers/assert.ts";
import { loadScenarioFile } from "../../src/testing/scenarios/scenario_file.ts";
import type { ScenarioProblem } from "../../src/testing/scenarios/scenario_run.ts";

/**
 * Writes `files` (path → text; a path ending in "/" is a directory) into a fresh temp dir, given
 * to `fn` as its real path.
 */
export async function withFiles<T>(
  files: Record<string, string>,
  fn: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "scenario_files_" }));
  try {
    for (const [path, text] of Object.entries(files)) {
      const full = `${dir}/${path}`;
      if (path.endsWith("/")) {
        await Deno.mkdir(full, { recursive: true });
        continue;
      }
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(full, text);
    }
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Loads `text` as `s.test.jsonc` beside `files`, after `prepare` made what a text cannot say (a
 * FIFO, a link); problems are expected: the file's, or else those of its invalid cases.
 */
export async function problemsOf(
  text: string,
  files: Record<string, string> = {},
  prepare: (dir: string) => Promise<void> = () => Promise.resolve(),
): Promise<ScenarioProblem[]> {
  return await withFiles({ ...files, "s.test.jsonc": text }, async (dir) => {
    await prepare(dir);
    const result = await loadScenarioFile(`${dir}/s.test.jsonc`, { displayPath: "s.test.jsonc" });
    const problems = result.ok
      ? (result.scenario.invalidCases ?? []).flatMap((c) => c.problems)
      : result.problems;
    assert(problems.length > 0, "expected the scenario, or a case of it, to be refused");
    return problems.map((p) => ({ ...p, file: p.file.replace(dir, "<dir>") }));
  });
}

/** Where each problem is, and its message: the parts a test pins down. */
export function where(problems: readonly ScenarioProblem[]): string[] {
  return problems.map((p) => `${p.line}:${p.column} ${p.pointer} ${p.message}`);
}

export const lines = (...text: string[]) => text.join("\n");
