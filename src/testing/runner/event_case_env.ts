/**
 * The environment side of an event case: what each command hook's process was given (recorded
 * at the one door every command goes through, so it is what the process really got), and the
 * `CLAUDE_ENV_FILE`s SessionStart hooks get in a session, made and read back the same way.
 */
import { resolveEnvAssignments, SessionStartEnvFiles } from "../../agent/shell/session_env_file.ts";
import { runCommand } from "../../os/process/command_runner.ts";
import {
  createHandlerRunner,
  type HandlerRunnerOptions,
} from "../../hooks/handlers/handler_dispatch.ts";
import type { HandlerRunner, HookEnvPreparer } from "../../hooks/handler_runner.ts";
import type { EnvFileReadBack } from "./hook_env_expectations.ts";

export type HookEnv = Readonly<Record<string, string>>;

/**
 * A handler runner that records, by registration id, the environment each command hook's
 * process was started with. One runner per hook, so parallel hooks cannot mix theirs up.
 */
export function recordingEnvs(
  options: HandlerRunnerOptions,
  envs: Map<string, HookEnv>,
): HandlerRunner {
  const run = options.runCommand ?? runCommand;
  return (registration, payload, context) =>
    createHandlerRunner({
      ...options,
      runCommand: (command) => {
        envs.set(registration.id, command.env);
        return run(command);
      },
    })(registration, payload, context);
}

/** One SessionStart firing's env files: made per command hook, read back when all have ended. */
export class EnvFileRecorder {
  readonly #files: SessionStartEnvFiles;
  readonly #notes: string[];

  private constructor(files: SessionStartEnvFiles, notes: string[]) {
    this.#files = files;
    this.#notes = notes;
  }

  static async forFiring(dir: string): Promise<EnvFileRecorder> {
    const notes: string[] = [];
    const files = await SessionStartEnvFiles.forFiring(dir, (line) => notes.push(line));
    return new EnvFileRecorder(files, notes);
  }

  /** As a session numbers them: by position among the firing's hooks. */
  readonly hookEnv: HookEnvPreparer = (registration, position) =>
    registration.handler.type === "command"
      ? this.#files.variableFor(position)
      : Promise.resolve({});

  /** The variables the files set, `$NAME` expanded over `baseEnv` as a later shell call would. */
  async readBack(baseEnv: HookEnv): Promise<EnvFileReadBack> {
    const assignments = await this.#files.read();
    const values = resolveEnvAssignments(
      assignments,
      (name) => Object.hasOwn(baseEnv, name) ? baseEnv[name] : undefined,
    );
    return { values, notes: [...this.#notes] };
  }
}
