/**
 * The agent as a child process, for the ACP harness: spawned with a pinned environment, stdout
 * read as lines, the end of stderr kept (bounded), and the means to stop it (close stdin, signals,
 * stop reading pipes that a grandchild keeps open).
 */
import { pinnedEnv } from "./pinned_env.ts";
import { within } from "./within.ts";

export interface AgentProcessOptions {
  /** The agent's working directory. */
  readonly cwd: string;
  /** HOME for the agent: a hermetic temporary one. */
  readonly home: string;
  /** Added to the pinned environment (PATH, HOME, LANG, TZ, NO_COLOR). */
  readonly env?: Readonly<Record<string, string>>;
  /** How much of the end of stderr to keep (default 1 MiB). */
  readonly stderrLimitBytes?: number;
}

/** Gets each stdout line without its newline; `terminated` is false for a last line without one. */
export type LineListener = (line: string, terminated: boolean) => void;

const encoder = new TextEncoder();

export class AgentProcess {
  /** The exit status, once the lines the agent wrote before exiting are read (up to 2 s). */
  readonly status: Promise<Deno.CommandStatus>;
  private readonly child: Deno.ChildProcess;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly stdoutReader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly stderrReader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly stdoutDone: Promise<void>;
  private readonly stderrDone: Promise<void>;
  private readonly stderrChunks: Uint8Array[] = [];
  private stderrBytes = 0;
  private stderrDropped = 0;

  constructor(
    program: string,
    args: readonly string[],
    private readonly options: AgentProcessOptions,
    private readonly onLine: LineListener,
  ) {
    this.child = new Deno.Command(program, {
      args: [...args],
      cwd: options.cwd,
      clearEnv: true,
      env: pinnedEnv(options.home, options.env),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.writer = this.child.stdin.getWriter();
    this.stdoutReader = this.child.stdout.getReader();
    this.stderrReader = this.child.stderr.getReader();
    this.stdoutDone = this.readStdout();
    this.stderrDone = this.readStderr();
    this.status = this.child.status.then(async (status) => {
      // Lines the agent wrote before exiting may still be in the pipe: read them first.
      await within(this.stdoutDone, 2_000);
      return status;
    });
  }

  /** Writes `line` and a newline to the agent's stdin. */
  writeLine(line: string): Promise<void> {
    return this.writer.write(encoder.encode(line + "\n"));
  }

  /** Closes the agent's stdin (never rejects). */
  closeStdin(): Promise<void> {
    return this.writer.close().catch(() => {});
  }

  /** Sends `signal`, unless the agent has exited meanwhile. */
  kill(signal: Deno.Signal): void {
    try {
      this.child.kill(signal);
    } catch {
      // It exited meanwhile.
    }
  }

  /** Waits for stdout and stderr to end, cancelling either that is still open after 2 s. */
  async stopReading(): Promise<void> {
    // A grandchild may hold stdout or stderr open after the agent exits: stop reading then.
    if (await within(this.stdoutDone, 2_000) === undefined) {
      await this.stdoutReader.cancel().catch(() => {});
    }
    if (await within(this.stderrDone, 2_000) === undefined) {
      await this.stderrReader.cancel().catch(() => {});
    }
    await Promise.all([this.stdoutDone, this.stderrDone]);
  }

  /** The end of stderr so far (bounded). */
  get stderr(): string {
    const text = new TextDecoder().decode(concat(this.stderrChunks));
    return this.stderrDropped > 0 ? `[${this.stderrDropped} bytes dropped]\n${text}` : text;
  }

  private async readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    while (true) {
      const { done, value } = await this.stdoutReader.read().catch(() => ({
        done: true,
        value: undefined,
      }));
      if (done || value === undefined) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        this.onLine(line, true);
      }
    }
    buffer += decoder.decode();
    if (buffer !== "") this.onLine(buffer, false);
  }

  private async readStderr(): Promise<void> {
    const limit = this.options.stderrLimitBytes ?? 1024 * 1024;
    while (true) {
      const { done, value } = await this.stderrReader.read().catch(() => ({
        done: true,
        value: undefined,
      }));
      if (done || value === undefined) break;
      this.stderrChunks.push(value);
      this.stderrBytes += value.length;
      while (this.stderrBytes > limit && this.stderrChunks.length > 1) {
        const dropped = this.stderrChunks.shift()?.length ?? 0;
        this.stderrBytes -= dropped;
        this.stderrDropped += dropped;
      }
    }
  }
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
