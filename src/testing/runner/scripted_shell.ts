/**
 * Where the shell commands of a session case go. By default nowhere: the scripted terminal
 * answers each with the next of the scenario's `session.shell` answers (no output and exit code
 * 0 past the last), so a model whose guard failed to stop `rm -rf` deletes nothing. With
 * `execute`, they run for real, in the case's copy of the project with its environment. Both
 * doors use this: the agent's own shell (clients without `terminal`) and the scripted client's
 * terminal; every command is recorded, so the report can say which ran and which were answered.
 *
 * An answer is an exit code and an output, not a tool result: the agent turns it into one as it
 * would a real command's, so hooks and the model see what they would see after a real run.
 */
import { LocalShellRunner } from "../../agent/shell/local_shell_runner.ts";
import {
  DEFAULT_SHELL_OUTPUT_CAP_BYTES,
  type ShellRunner,
  type ShellRunRequest,
  type ShellRunResult,
} from "../../agent/shell/shell_runner.ts";
import type { ShellCall } from "../scenarios/case_result.ts";
import type { ShellAnswer } from "../scenarios/scenario_schema.ts";

export interface ScriptedShellOptions {
  readonly answers: readonly ShellAnswer[];
  /** Run the commands instead of answering them. */
  readonly execute: boolean;
  /** The whole environment of executed commands: the case's hermetic one. */
  readonly env: Readonly<Record<string, string>>;
}

/** What a command "printed" and how it "ended", as the scenario says. */
export interface CommandAnswer {
  readonly output: string;
  readonly exitCode: number;
}

/** How a run ended, as the local shell and a client terminal report it. */
interface RunEnd {
  readonly kind: string;
  readonly exitCode?: number | null;
  readonly signal?: string | null;
}

export class ScriptedShell {
  readonly #calls: { command: string; executed: boolean; exitCode: number | null }[] = [];
  #answered = 0;

  constructor(private readonly options: ScriptedShellOptions) {}

  /** Every command so far, in the order they were given. */
  get calls(): readonly ShellCall[] {
    return this.#calls.map((call) => ({ ...call }));
  }

  /**
   * One command, through either door: answered with the next answer (`answered` makes the
   * door's result of it) or, with `execute`, run by `execute`; recorded either way, in the order
   * given (the record is made before anything is awaited).
   */
  async run<R extends RunEnd>(
    command: string,
    door: { readonly execute: () => Promise<R>; readonly answered: (answer: CommandAnswer) => R },
  ): Promise<R> {
    if (!this.options.execute) {
      const answer = this.options.answers[this.#answered++] ?? {};
      const exitCode = answer.exitCode ?? 0;
      this.#calls.push({ command, executed: false, exitCode });
      return door.answered({ output: answer.output ?? "", exitCode });
    }
    const call = { command, executed: true, exitCode: null as number | null };
    this.#calls.push(call);
    const result = await door.execute();
    // Null when it did not end by itself: a timeout, a cancel, a signal.
    if (result.kind === "exited" && result.signal === null) call.exitCode = result.exitCode ?? null;
    return result;
  }

  /** The agent's own shell tool (for clients without `terminal`). */
  localRunner(): ShellRunner {
    const real = new LocalShellRunner({ env: this.options.env });
    return {
      run: (request) =>
        this.run(request.command, {
          execute: () => real.run(request),
          answered: (answer) => answeredLocally(answer, request),
        }),
    };
  }
}

/** An answer as the agent's local shell would report it: capped like a real output. */
function answeredLocally(answer: CommandAnswer, request: ShellRunRequest): ShellRunResult {
  if (request.signal?.aborted) {
    return { kind: "cancelled", output: "", truncated: false, durationMs: 0 };
  }
  const bytes = new TextEncoder().encode(answer.output);
  const omittedBytes = Math.max(0, bytes.length - DEFAULT_SHELL_OUTPUT_CAP_BYTES);
  return {
    kind: "exited",
    exitCode: answer.exitCode,
    signal: null,
    output: omittedBytes === 0
      ? answer.output
      : new TextDecoder().decode(bytes.slice(0, DEFAULT_SHELL_OUTPUT_CAP_BYTES)),
    truncated: omittedBytes > 0,
    ...(omittedBytes > 0 ? { omittedBytes } : {}),
    durationMs: 0,
  };
}
