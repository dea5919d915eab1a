/**
 * How a subcommand describes itself: its flags, positionals and help text. Each command file owns
 * one of these, so a flag that makes no sense for a command is an error there, never silently
 * accepted.
 */

export interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  readonly type: "boolean" | "string";
  /** Placeholder shown in help, e.g. `DIR`. */
  readonly valueName?: string;
  readonly description: string;
  /** Accepted values of a string flag; anything else is a usage error. */
  readonly choices?: readonly string[];
  /**
   * A string flag that may be given more than once: every value, in order, is in the parse's
   * `lists` (and the last one in `flags`).
   */
  readonly repeatable?: boolean;
  /**
   * A boolean flag that `--no-<name>` turns off (its value is then `false`): for a setting whose
   * default may be on, so that a command line can say either.
   */
  readonly negatable?: boolean;
}

export interface PositionalSpec {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
}

export interface CommandSpec {
  /** Words after the program name, e.g. `["hooks", "list"]`. */
  readonly path: readonly string[];
  readonly summary: string;
  readonly description?: string;
  readonly flags: readonly FlagSpec[];
  readonly positionals: readonly PositionalSpec[];
  readonly examples?: readonly string[];
}

/** What a command may touch: its output streams, the environment and where it was launched. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stdout is a terminal (colors and progress only then). */
  readonly stdoutIsTty: boolean;
  readonly stderrIsTty: boolean;
  readonly env: (name: string) => string | undefined;
  readonly cwd: string;
  /** The raw byte streams, for the protocol server (`acp`); taken once. */
  readonly stdinStream: () => ReadableStream<Uint8Array>;
  readonly stdoutStream: () => WritableStream<Uint8Array>;
  /** From now on, everything printed through the console goes to stderr (stdout is protocol). */
  readonly routeConsoleToStderr: () => Promise<void>;
  /** Calls `handler` on SIGINT or SIGTERM; returns a function that stops listening. */
  readonly onTermination: (handler: () => void) => () => void;
}

export interface CliCommand {
  readonly spec: CommandSpec;
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;
