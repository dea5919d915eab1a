/**
 * Which scenario files a `hooks test` run reads: by default every `*.test.jsonc` under the
 * project's `.claude/hooks-tests/`; otherwise the files and directories named on the command
 * line. A path that names nothing is a problem, never skipped.
 *
 * Symlinked files are taken like files; symlinked directories are not entered while searching
 * (they could lead out of the tree or into a loop), only when named on the command line.
 *
 * Whatever is named `*.test.jsonc` and is not a directory is a scenario file, whatever its type:
 * a FIFO, a socket or a device found there is loaded like any other, and the loader refuses it
 * (scenario_file.ts, without opening it), so it is an invalid file the run reports, never one
 * that is quietly left out. Nothing here opens a file: entries are told apart by their type.
 */
import { isAbsolute, join, resolve } from "node:path";
import { errorMessage } from "../../error.ts";
import type { ScenarioProblem } from "./scenario_run.ts";

/** Where a project keeps its scenario files, relative to the project directory. */
export const SCENARIO_DIR = ".claude/hooks-tests";
export const SCENARIO_SUFFIX = ".test.jsonc";

export interface DiscoveredScenarios {
  /** Absolute paths, each once: sorted, or in the order given with each directory's sorted. */
  readonly files: readonly string[];
  readonly problems: readonly ScenarioProblem[];
}

/**
 * Finds the scenario files to run. `paths` (files or directories, searched recursively) are
 * resolved against `cwd`, or against `projectDir` when nothing is there; with none, the
 * project's `.claude/hooks-tests/` is searched, and an absent directory means no files.
 */
export async function discoverScenarios(
  projectDir: string,
  paths: readonly string[],
  cwd: string = projectDir,
): Promise<DiscoveredScenarios> {
  if (paths.length === 0) {
    const dir = resolve(projectDir, SCENARIO_DIR);
    const found = await searchDirectory(dir, SCENARIO_DIR);
    if (found.missing) return { files: [], problems: [] };
    return { files: [...found.files].sort(byCodeUnit), problems: found.problems };
  }

  const files: string[] = [];
  const problems: ScenarioProblem[] = [];
  for (const path of paths) {
    const located = await locate(path, cwd, projectDir);
    if (located.kind === "problem") {
      problems.push(problem(path, located.message));
    } else if (located.kind === "file") {
      files.push(located.path);
    } else {
      const found = await searchDirectory(located.path, path);
      problems.push(...found.problems);
      if (found.files.length === 0 && found.problems.length === 0) {
        problems.push(problem(path, `no ${SCENARIO_SUFFIX} files in "${path}"`));
      }
      files.push(...[...found.files].sort(byCodeUnit));
    }
  }
  return { files: [...new Set(files)], problems };
}

type Located =
  | { readonly kind: "file" | "directory"; readonly path: string }
  | { readonly kind: "problem"; readonly message: string };

async function locate(path: string, cwd: string, projectDir: string): Promise<Located> {
  const candidates = isAbsolute(path)
    ? [path]
    : [...new Set([resolve(cwd, path), resolve(projectDir, path)])];
  for (const candidate of candidates) {
    try {
      const info = await Deno.stat(candidate);
      return { kind: info.isDirectory ? "directory" : "file", path: candidate };
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      return { kind: "problem", message: `"${path}" cannot be read: ${errorMessage(error)}` };
    }
  }
  return { kind: "problem", message: `"${path}" does not exist` };
}

interface Search {
  readonly files: string[];
  readonly problems: ScenarioProblem[];
  /** The directory itself does not exist. */
  readonly missing: boolean;
}

/** Every `*.test.jsonc` below `dir`, without entering symlinked directories. */
async function searchDirectory(dir: string, shown: string): Promise<Search> {
  const search: Search = { files: [], problems: [], missing: false };
  try {
    await walk(dir, search);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { ...search, missing: true };
    search.problems.push(problem(shown, `"${shown}" cannot be searched: ${errorMessage(error)}`));
  }
  return search;
}

async function walk(dir: string, search: Search): Promise<void> {
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      try {
        await walk(path, search);
      } catch (error) {
        search.problems.push(problem(path, `"${path}" cannot be searched: ${errorMessage(error)}`));
      }
    } else if (entry.name.endsWith(SCENARIO_SUFFIX)) {
      // Not only regular files and symlinks: a FIFO or a socket by that name was put there as a
      // scenario, and is reported when it is loaded, as a symlink that leads nowhere is.
      search.files.push(path);
    }
  }
}

function problem(file: string, detail: string): ScenarioProblem {
  return { file, line: 1, column: 1, pointer: "", message: `Cannot find scenarios: ${detail}` };
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
