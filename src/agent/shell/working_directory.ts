/**
 * A session's current directory: where its shell commands start, what its file tools resolve
 * relative paths against and the `cwd` its hooks see. It starts as the session's `cwd` and, in a
 * profile whose shell keeps its directory (shell_style.ts), follows the `cd`s of the commands
 * that succeed, as Claude Code's does: within the session's directories (its `cwd` and
 * `additionalDirectories`, Claude Code's project directory and `--add-dir`s), and back to the
 * session's `cwd` from anywhere else, which the shell then says (`Shell cwd was reset to <dir>`).
 * It never leaves them, so the file tools' confinement to the allowed roots (which hold them)
 * holds whatever a command did.
 */
import { resolve } from "node:path";
import { isDirectory } from "../../path_exists.ts";
import { isInsideDir, realPathAllowingMissing } from "../../real_path.ts";

export class WorkingDirectory {
  /** The session's `cwd`: where it starts, and where it goes back to. */
  readonly project: string;
  readonly #within: readonly string[];
  #current: string;
  #resolved: Promise<readonly (string | undefined)[]> | undefined;

  constructor(project: string, additionalDirectories: readonly string[] = []) {
    this.project = project;
    this.#within = [project, ...additionalDirectories];
    this.#current = project;
  }

  get current(): string {
    return this.#current;
  }

  /**
   * After a command that succeeded in the directory `reported` (its `pwd -P`, a real path): the
   * next one starts there when it lies in the session's directories; otherwise back in the
   * project, and `reset` is true. Nothing changes when it is where it started.
   */
  async follow(reported: string): Promise<{ readonly reset: boolean }> {
    if (reported === this.#current) return { reset: false };
    const [project, ...others] = await this.#resolvedDirectories();
    // `pwd -P` is a real path already: staying in a project named through a link costs no stat.
    const real = reported === project ? project : await realDirectory(reported);
    if (real !== undefined && real === project) {
      // Home again: under the name the session was given, as it started.
      this.#current = this.project;
      return { reset: false };
    }
    if (real !== undefined && [project, ...others].some((dir) => dir && isInsideDir(real, dir))) {
      this.#current = real;
      return { reset: false };
    }
    this.#current = this.project;
    return { reset: true };
  }

  /**
   * Before a command: a current directory removed since (by a command, or by anyone) is given up
   * for the project, without a word, as Claude Code recovers.
   */
  async ensureExists(): Promise<void> {
    if (this.#current !== this.project && !await isDirectory(this.#current)) {
      this.#current = this.project;
    }
  }

  /**
   * The session's directories with their links followed, as `pwd -P` reports them, the project
   * first (undefined where one cannot be resolved: it holds nothing).
   */
  #resolvedDirectories(): Promise<readonly (string | undefined)[]> {
    this.#resolved ??= Promise.all(
      this.#within.map(async (dir) => {
        const real = await realPathAllowingMissing(resolve(this.project, dir));
        return real.ok ? real.path : undefined;
      }),
    );
    return this.#resolved;
  }
}

/**
 * The real path of an existing directory, undefined for anything else, or where the runtime may
 * not look (a report naming a place outside the agent's grant is outside the session's too).
 */
async function realDirectory(path: string): Promise<string | undefined> {
  try {
    const real = await Deno.realPath(path);
    return (await Deno.stat(real)).isDirectory ? real : undefined;
  } catch {
    return undefined;
  }
}
