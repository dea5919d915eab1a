/**
 * Children started with posix_spawn through FFI, as the leaders of their own session (Linux) or
 * process group (macOS): what Deno's `detached` gives, without the fork of the whole agent that
 * `detached` costs and without the extra exec of setsid(1). The child looks like a
 * Deno.ChildProcess to its users: a pid, three streams, a status, kill.
 */
import { childExit } from "./child_exit.ts";
import { FdPoller } from "./fd_poller.ts";
import { fdReadable, fdWritable } from "./fd_streams.ts";
import type { Libc } from "./libc.ts";
import { makePipe } from "./pipe_pair.ts";
import { type ChildFd, posixSpawn } from "./posix_spawn_call.ts";
import type { GroupChild, GroupCommand, SpawnOptions } from "./group_child.ts";

export class PosixSpawner {
  #poller: FdPoller | undefined;
  /** Every descriptor this spawner opened and has not closed: the self-pipe, and each child's. */
  readonly #open = new Set<number>();

  constructor(readonly libc: Libc) {}

  /** How many descriptors are open on the spawner's account (a leak shows here). */
  get descriptorsOpen(): number {
    return this.#open.size;
  }

  spawn(command: GroupCommand, options: SpawnOptions): GroupChild {
    const poller = this.#poller ??= new FdPoller(
      this.libc.symbols,
      this.#opened(makePipe(this.libc, "both")),
      (fd) => this.#close(fd),
    );
    const output = options.output ?? "piped";
    const opened: number[] = [];
    const pipe = (agentEnd: 0 | 1) => {
      const ends = this.#opened(makePipe(this.libc, agentEnd));
      opened.push(...ends);
      return ends;
    };
    try {
      const stdin = options.stdin === "piped" ? pipe(1) : undefined;
      const stdout = output === "piped" ? pipe(0) : undefined;
      const stderr = output === "piped" ? pipe(0) : undefined;
      const childEnd = (ends: [number, number] | undefined, side: 0 | 1): ChildFd =>
        ends === undefined ? "null" : { pipe: ends[side] };
      const pid = posixSpawn(this.libc, {
        program: command.program,
        args: command.args,
        cwd: options.cwd,
        env: options.env,
        stdio: [childEnd(stdin, 0), childEnd(stdout, 1), childEnd(stderr, 1)],
      });
      // The child has its own copies now; ours of its ends would hold the pipes open.
      for (const fd of [stdin?.[0], stdout?.[1], stderr?.[1]]) {
        if (fd !== undefined) this.#close(fd);
      }
      const { symbols } = this.libc;
      return new PosixChild(
        pid,
        stdin && fdWritable(poller, symbols, stdin[1]),
        stdout && fdReadable(poller, symbols, stdout[0]),
        stderr && fdReadable(poller, symbols, stderr[0]),
        childExit(this.libc, poller, pid, (fd) => this.#open.add(fd)),
      );
    } catch (error) {
      for (const fd of opened) this.#close(fd);
      throw error;
    }
  }

  #opened(ends: [number, number]): [number, number] {
    for (const fd of ends) this.#open.add(fd);
    return ends;
  }

  #close(fd: number): void {
    this.#open.delete(fd);
    this.libc.symbols.close(fd);
  }
}

class PosixChild implements GroupChild {
  #exited = false;
  readonly status: Promise<Deno.CommandStatus>;

  constructor(
    readonly pid: number,
    readonly stdinStream: WritableStream<Uint8Array> | undefined,
    readonly stdoutStream: ReadableStream<Uint8Array> | undefined,
    readonly stderrStream: ReadableStream<Uint8Array> | undefined,
    exit: Promise<Deno.CommandStatus>,
  ) {
    this.status = exit.then((status) => {
      this.#exited = true;
      return status;
    });
  }

  // Deno.ChildProcess throws on a stream that was not piped; so does this.
  get stdin(): WritableStream<Uint8Array> {
    if (this.stdinStream === undefined) throw new TypeError("stdin is not piped");
    return this.stdinStream;
  }

  get stdout(): ReadableStream<Uint8Array> {
    if (this.stdoutStream === undefined) throw new TypeError("stdout is not piped");
    return this.stdoutStream;
  }

  get stderr(): ReadableStream<Uint8Array> {
    if (this.stderrStream === undefined) throw new TypeError("stderr is not piped");
    return this.stderrStream;
  }

  kill(signal: Deno.Signal = "SIGTERM"): void {
    // Once reaped, the pid may be someone else's.
    if (this.#exited) throw new TypeError("Child process has already terminated");
    Deno.kill(this.pid, signal);
  }
}
