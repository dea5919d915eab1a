/**
 * A session's shell, over the runner that runs its commands (local, or the client's terminal): it
 * picks the program the profile's shell style asks for (shell_style.ts, shell_program.ts) and,
 * where that style keeps the directory, runs each command in the session's current directory and
 * follows the `cd`s of those that succeed (working_directory.ts).
 *
 * As in Claude Code, every command is a process of its own, not one long-lived shell: after the
 * command, the shell writes `pwd -P` to a file made for that call (shell_script.ts), and the file
 * is read once the process is gone. A crashed, timed-out or cancelled command writes nothing and
 * the directory stays as it was; its process group is ended by the runner as always, and no
 * shell outlives a call to keep state (or processes) between calls. Only the directory carries
 * over: variables, functions and `set` options end with the command (Claude Code's do too; what
 * SessionStart hooks put in `CLAUDE_ENV_FILE` is the session's way to set variables).
 *
 * The report files live in a private directory of the session's (`<session dir>/shell`). A
 * client's terminal writes them on the client's machine: where that is not the agent's (a remote
 * terminal), the file is not found and the directory stays the session's. A report that cannot
 * be made (the directory cannot be created) leaves the command unreported, said once.
 */
import { join } from "node:path";
import { readConfigFile } from "../../config_file.ts";
import { errorMessage } from "../../error.ts";
import type { ShellStyle } from "../../profile/shell_style.ts";
import { reportedDirectory } from "./shell_script.ts";
import type { ShellRunner, ShellRunRequest, ShellRunResult } from "./shell_runner.ts";
import type { WorkingDirectory } from "./working_directory.ts";
import type { ShellChoice } from "../../profile/shell_style.ts";

/**
 * Claude Code's switch to start every command in the project directory again
 * (`CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR`, its tools reference): honoured the same way.
 */
const MAINTAIN_PROJECT_DIR_ENV = "CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR";

/** The style under the agent's environment: Claude Code's switch turns the carry-over off. */
export function shellStyleUnder(
  style: ShellStyle,
  env: (name: string) => string | undefined,
): ShellStyle {
  const value = env(MAINTAIN_PROJECT_DIR_ENV)?.trim().toLowerCase() ?? "";
  const on = ["1", "true", "yes", "on"].includes(value);
  return on && style.keepsDirectory ? { ...style, keepsDirectory: false } : style;
}

/** `pwd -P` and its newline: more than any path. */
const REPORT_MAX_BYTES = 64 * 1024;

export interface ShellSessionOptions {
  readonly style: ShellStyle;
  readonly directory: WorkingDirectory;
  /** Where report files are made (created 0700 when first needed). */
  readonly reportDir: string;
  /** The program for a shell choice (shell_program.ts `shellProgram`). */
  readonly program: (choice: ShellChoice) => Promise<string>;
  readonly log: (line: string) => void;
}

export class ShellSession implements ShellRunner {
  #reportDirReady: Promise<boolean> | undefined;

  constructor(
    private readonly runner: ShellRunner,
    private readonly options: ShellSessionOptions,
  ) {}

  async run(request: ShellRunRequest): Promise<ShellRunResult> {
    const { style, directory } = this.options;
    const program = await this.options.program(style.shell);
    if (!style.keepsDirectory) return await this.runner.run({ ...request, program });
    await directory.ensureExists();
    const report = await this.#reportFile();
    try {
      const result = await this.runner.run({
        ...request,
        cwd: directory.current,
        program,
        ...(report === undefined ? {} : { directoryReport: report }),
      });
      if (result.kind !== "exited" || report === undefined) return result;
      const ended = await readReport(report);
      if (ended === undefined) return result;
      const { reset } = await directory.follow(ended);
      return reset ? { ...result, cwdReset: directory.project } : result;
    } finally {
      if (report !== undefined) await Deno.remove(report).catch(() => {});
    }
  }

  /** A fresh path in the report directory; undefined when the directory cannot be made. */
  async #reportFile(): Promise<string | undefined> {
    this.#reportDirReady ??= makePrivateDir(this.options.reportDir).then(
      () => true,
      (error) => {
        this.options.log(
          `Cannot follow the shell's directory: cannot create "${this.options.reportDir}": ` +
            `${errorMessage(error)}; commands start in the session's directory`,
        );
        return false;
      },
    );
    return await this.#reportDirReady
      ? join(this.options.reportDir, `cwd-${crypto.randomUUID()}`)
      : undefined;
  }
}

/** The directory a report names; undefined when there is none (the command did not succeed). */
async function readReport(path: string): Promise<string | undefined> {
  try {
    return reportedDirectory(await readConfigFile(path, { maxBytes: REPORT_MAX_BYTES }));
  } catch {
    return undefined;
  }
}

async function makePrivateDir(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  // A link in its place would send the reports (and their removal) wherever it points.
  if ((await Deno.lstat(dir)).isSymlink) throw new Error("it is a symbolic link");
  if (Deno.build.os !== "windows") await Deno.chmod(dir, 0o700);
}
