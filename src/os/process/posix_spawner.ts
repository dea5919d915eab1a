/**
 * Children started with posix_spawn through FFI, as the leaders of their own session (Linux) or
 * process group (macOS): what Deno's `detached` gives, without the fork of the whole agent that
 * `detached` costs and without the extra exec of setsid(1). The child looks like a
 * Deno.ChildProcess to its users: a pid, three streams, a status, kill.
 */
import type { OutputCapture, StdinFeed } from "./child_io.ts";
import { childExit } from "./child_exit.ts";
import { captureFd, feedFd } from "./fd_capture.ts";
import { FdPoller } from "./fd_poller.ts";
import { fdReadable, fdWritable } from "./fd_streams.ts";
import type { Libc, LibcSymbols } from "./libc.ts";
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
      return new PosixChild(
        pid,
        { poller, libc: this.libc.symbols },
        { stdin: stdin?.[1], stdout: stdout?.[0], stderr: stderr?.[0] },
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

type Pipe = "stdin" | "stdout" | "stderr";

/**
 * A child whose pipes are taken by their first user: a web stream (made on first use, as one
 * costs more to make than a short hook takes to run), or a capture or feed without one.
 */
class PosixChild implements GroupChild {
  #exited = false;
  readonly status: Promise<Deno.CommandStatus>;
  readonly #taken = new Set<Pipe>();
  #stdin: WritableStream<Uint8Array> | undefined;
  #stdout: ReadableStream<Uint8Array> | undefined;
  #stderr: ReadableStream<Uint8Array> | undefined;

  constructor(
    readonly pid: number,
    private readonly io: { readonly poller: FdPoller; readonly libc: LibcSymbols },
    private readonly fds: Readonly<Record<Pipe, number | undefined>>,
    exit: Promise<Deno.CommandStatus>,
  ) {
    this.status = exit.then((status) => {
      this.#exited = true;
      return status;
    });
  }

  // Deno.ChildProcess throws on a stream that was not piped; so does this.
  get stdin(): WritableStream<Uint8Array> {
    return this.#stdin ??= fdWritable(this.io.poller, this.io.libc, this.#take("stdin"));
  }

  get stdout(): ReadableStream<Uint8Array> {
    return this.#stdout ??= fdReadable(this.io.poller, this.io.libc, this.#take("stdout"));
  }

  get stderr(): ReadableStream<Uint8Array> {
    return this.#stderr ??= fdReadable(this.io.poller, this.io.libc, this.#take("stderr"));
  }

  readonly captureOutput = (which: "stdout" | "stderr", capBytes: number): OutputCapture =>
    captureFd(this.io.poller, this.io.libc, this.#take(which), capBytes);

  readonly feedStdin = (bytes: Uint8Array): StdinFeed =>
    feedFd(this.io.poller, this.io.libc, this.#take("stdin"), bytes);

  kill(signal: Deno.Signal = "SIGTERM"): void {
    // Once reaped, the pid may be someone else's.
    if (this.#exited) throw new TypeError("Child process has already terminated");
    Deno.kill(this.pid, signal);
  }

  /** The pipe's descriptor, for its one user; throws for one not piped or already taken. */
  #take(pipe: Pipe): number {
    const fd = this.fds[pipe];
    if (fd === undefined) throw new TypeError(`${pipe} is not piped`);
    if (this.#taken.has(pipe)) throw new TypeError(`${pipe} is already being read or written`);
    this.#taken.add(pipe);
    return fd;
  }
}
