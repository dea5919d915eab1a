/**
 * A grep's matching, in a process of its own (grep_matcher_process.ts), so that a model's
 * pattern can never hold up the agent: one that backtracks without end (`(a|aa)*c` on a line of
 * 48 `a`s) is killed with its process once the search's matching time is up, or at once on a
 * cancel, while the agent's event loop runs on. Files are read here (the confined walk) and sent
 * as bytes, many in one write; the process answers each file before it starts on the next, so
 * the file a pattern stuck on is known. A file without the text every match must hold
 * (grep_required_literal.ts) is not sent at all.
 *
 * Why not a Web Worker: Deno (2.9) cannot stop one that is inside a regular expression, since
 * `terminate()` leaves it running, a core busy, until the match ends, and the process cannot
 * exit before it does. A process can be killed. It starts with the first file to send, so that
 * its start-up overlaps the rest of the walk, in a group of its own under the orphan guard, so
 * that not even the agent's death leaves it running.
 */
import { errorMessage } from "../../error.ts";
import { spawnGuarded } from "../../os/process/guard_group.ts";
import type { GroupChild, GroupCommand } from "../../os/process/group_child.ts";
import { spawnInOwnGroup } from "../../os/process/process_group.ts";
import { EventLoopPause } from "./event_loop_pause.ts";
import { FRAME_HEADER_BYTES, FrameDecoder, writeFrameHeader } from "./grep_matcher_frames.ts";
import { containsLiteral, requiredLiteral } from "./grep_required_literal.ts";
import { matcherCommand, matcherEnvironment } from "./grep_matcher_command.ts";
import {
  type MatcherReply,
  MAX_MATCHER_FRAME_BYTES,
  parseMatcherReply,
} from "./grep_matcher_process.ts";
import type { GrepLine, MatchSpec } from "./grep_text_match.ts";

/** The time one grep may spend matching, in all its files, before it is stopped. */
export const GREP_MATCH_TIMEOUT_MS = 10_000;

/** Files are sent in batches of about this many bytes, few writes; a larger file goes alone. */
const BATCH_BYTES = 128 * 1024;
/**
 * Bytes that may wait to be written before the walk waits for the process: enough that the walk
 * does not wait while the process starts, bounded so that a slow match does not fill memory.
 */
const MAX_UNWRITTEN_BYTES = 16 * 1024 * 1024;
const WRITE_PAUSE_MS = 1;

const STDERR_TAIL_CHARS = 2000;

export interface GrepMatcherOptions {
  /** Where the process starts. */
  readonly cwd: string;
  /** Matching time allowed, in ms: time during which the process has files to answer. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** The process to start (tests); `matcherCommand()` when absent. */
  readonly command?: GroupCommand;
}

export interface MatchedFile {
  readonly path: string;
  readonly mtimeMs: number;
  readonly count: number;
  readonly lines: GrepLine[];
}

export type MatchingOutcome =
  | {
    readonly ok: true;
    /** Files with at least one match, in the order they were added. */
    readonly files: MatchedFile[];
    /** Text files matched (binary files are not). */
    readonly filesSearched: number;
  }
  | MatchingStop;

export type MatchingStop =
  /** `path`: the file being matched then, if one was. */
  | { readonly ok: false; readonly reason: "timeout"; readonly path: string | undefined }
  | { readonly ok: false; readonly reason: "cancelled" }
  | { readonly ok: false; readonly reason: "failed"; readonly detail: string };

interface SentFile {
  readonly path: string;
  readonly mtimeMs: number;
}

/**
 * One search's matcher: `add` each file, then `finish`, and always `close` (in a `finally`),
 * which kills the process if it still runs and waits until it is gone. The process starts with
 * the first file to send, so that a search with none to send (no file holds the required
 * text) starts none.
 */
export class GrepMatcher {
  readonly #spec: MatchSpec;
  readonly #options: GrepMatcherOptions;
  readonly #stopper = new AbortController();
  #child: GroupChild | undefined;
  #exited = false;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #release: () => void = () => {};
  #stopped: MatchingStop | undefined;
  /** Resolved once matching stopped, or every file sent after the last was answered. */
  readonly #ended = Promise.withResolvers<void>();
  #repliesRead: Promise<void> = Promise.resolve();
  #stderrRead: Promise<void> = Promise.resolve();
  #stderrTail = "";
  /** No more files come: once all are answered, matching is done. */
  #inputClosed = false;
  #closed: Promise<void> | undefined;

  #batch = new Uint8Array(BATCH_BYTES);
  #batchLength = 0;
  /** Files in the batch being filled. */
  #queued: SentFile[] = [];
  /** Files written, in order; those from `#answered` on are not answered yet. */
  readonly #sent: SentFile[] = [];
  #answered = 0;
  /** The writes in flight, one after another, and their bytes. */
  #writing: Promise<void> = Promise.resolve();
  #unwrittenBytes = 0;
  /**
   * A walk on descriptors lets the event loop run only every few ms, and a write moves on only
   * then (a pipe holds 64 KiB): while bytes wait, the loop runs more often, to keep the process fed.
   */
  readonly #pause = new EventLoopPause(WRITE_PAUSE_MS);

  readonly #matched: MatchedFile[] = [];
  #filesSearched = 0;
  /** What every match holds, as bytes: a file without it is not sent. */
  readonly #literal: Uint8Array | undefined;

  /** Matching time left, and since when the process has had files to answer. */
  #budgetMs: number;
  #busySince: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onAbort = () => this.#stop({ ok: false, reason: "cancelled" });

  constructor(spec: MatchSpec, options: GrepMatcherOptions) {
    this.#spec = spec;
    this.#options = options;
    this.#budgetMs = options.timeoutMs;
    const literal = requiredLiteral(spec.source, spec.flags);
    this.#literal = literal === undefined ? undefined : new TextEncoder().encode(literal);
    options.signal?.addEventListener("abort", this.#onAbort);
    if (options.signal?.aborted) this.#stop({ ok: false, reason: "cancelled" });
  }

  /** Aborted once matching stopped early (time up, cancelled, failed): the walk stops too. */
  get signal(): AbortSignal {
    return this.#stopper.signal;
  }

  /**
   * Sends a file's bytes, copied at once (a walk's buffer is reused): with others, once a batch
   * is full. Waits only while too many bytes wait to be written.
   */
  async add(file: SentFile, bytes: Uint8Array): Promise<void> {
    if (this.#stopped !== undefined) return;
    if (this.#literal !== undefined && containsLiteral(bytes, this.#literal) === false) {
      // Searched all the same, as the process would have: a text file without a match.
      if (!bytes.includes(0)) this.#filesSearched += 1;
      return;
    }
    if (this.#child === undefined && !this.#start()) return;
    if (this.#batchLength + FRAME_HEADER_BYTES + bytes.length > this.#batch.length) this.#flush();
    this.#queued.push(file);
    this.#queue(bytes);
    while (this.#unwrittenBytes > MAX_UNWRITTEN_BYTES && this.#stopped === undefined) {
      await this.#writing;
    }
    if (this.#unwrittenBytes > 0) await this.#pause.now();
  }

  /** Sends what is left, and waits for every answer or for the stop. */
  async finish(): Promise<MatchingOutcome> {
    this.#flush();
    this.#inputClosed = true;
    if (this.#stopped === undefined && this.#answered === this.#sent.length) this.#ended.resolve();
    await this.#writing;
    if (this.#stopped === undefined) await this.#writer?.close().catch(() => {});
    await this.#ended.promise;
    return this.#stopped ??
      { ok: true, files: this.#matched, filesSearched: this.#filesSearched };
  }

  /** Kills the process if it still runs and waits until it is gone. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= this.#closeOnce();
    return this.#closed;
  }

  async #closeOnce(): Promise<void> {
    this.#options.signal?.removeEventListener("abort", this.#onAbort);
    this.#clearTimer();
    this.#pause.close();
    const child = this.#child;
    if (child === undefined) return;
    this.#writer?.abort().catch(() => {});
    // Every answer is in by now, or none is wanted: nothing is lost by not waiting for its exit.
    if (!this.#exited) this.#kill();
    await child.status.catch(() => {});
    await Promise.all([this.#repliesRead, this.#stderrRead, this.#writing]);
    this.#release();
  }

  /** Starts the process, the spec its first frame; false (and stopped) if it cannot start. */
  #start(): boolean {
    const options = this.#options;
    const command = options.command ?? matcherCommand();
    let child: GroupChild;
    try {
      const spawned = spawnGuarded(() =>
        spawnInOwnGroup(command, {
          cwd: options.cwd,
          env: matcherEnvironment(),
          stdin: "piped",
        })
      );
      child = spawned.child;
      this.#release = spawned.release;
    } catch (error) {
      const detail = `cannot start the matcher process "${command.program}": ${
        errorMessage(error)
      }`;
      this.#stop({ ok: false, reason: "failed", detail });
      return false;
    }
    this.#child = child;
    child.status.then(() => this.#exited = true, () => this.#exited = true);
    this.#writer = child.stdin.getWriter();
    this.#stderrRead = this.#keepStderr(child.stderr);
    this.#repliesRead = this.#readReplies(child.stdout);
    this.#queue(new TextEncoder().encode(JSON.stringify(this.#spec)));
    return true;
  }

  /** Puts a frame of `bytes` in the batch, or sends it alone when it does not fit one. */
  #queue(bytes: Uint8Array): void {
    const size = FRAME_HEADER_BYTES + bytes.length;
    if (size > this.#batch.length - this.#batchLength) {
      const alone = new Uint8Array(size);
      writeFrameHeader(alone, 0, bytes.length);
      alone.set(bytes, FRAME_HEADER_BYTES);
      this.#write(alone);
      return;
    }
    writeFrameHeader(this.#batch, this.#batchLength, bytes.length);
    this.#batch.set(bytes, this.#batchLength + FRAME_HEADER_BYTES);
    this.#batchLength += size;
  }

  /** Writes the batch after what is being written. */
  #flush(): void {
    if (this.#stopped !== undefined || this.#batchLength === 0) return;
    const bytes = this.#batch.subarray(0, this.#batchLength);
    this.#batch = new Uint8Array(BATCH_BYTES);
    this.#batchLength = 0;
    this.#write(bytes);
  }

  #write(bytes: Uint8Array): void {
    for (const file of this.#queued) this.#sent.push(file);
    this.#queued = [];
    this.#startClock();
    const writer = this.#writer;
    if (writer === undefined) return;
    this.#unwrittenBytes += bytes.length;
    this.#writing = this.#writing.then(async () => {
      try {
        await writer.write(bytes);
      } finally {
        this.#unwrittenBytes -= bytes.length;
      }
    }).catch((error) => {
      // A process that ended says why through its end (#readReplies), not a broken pipe.
      if (this.#stopped === undefined && !isBrokenPipe(error)) {
        this.#stop({ ok: false, reason: "failed", detail: errorMessage(error) });
      }
    });
  }

  async #readReplies(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const frames = new FrameDecoder(MAX_MATCHER_FRAME_BYTES);
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stdout) {
        for (const frame of frames.push(chunk)) {
          this.#onReply(parseMatcherReply(decoder.decode(frame)));
        }
        if (this.#stopped !== undefined) break;
      }
    } catch (error) {
      this.#stop({ ok: false, reason: "failed", detail: errorMessage(error) });
    }
    // An end before every answer is in: the process died, or was killed from outside.
    if (this.#stopped === undefined && !this.#allAnswered()) {
      this.#stop({ ok: false, reason: "failed", detail: await this.#exitDetail() });
    }
  }

  #allAnswered(): boolean {
    return this.#inputClosed && this.#queued.length === 0 && this.#answered === this.#sent.length;
  }

  /** Why the process ended before it answered for every file. */
  async #exitDetail(): Promise<string> {
    const status = await this.#child?.status.catch(() => undefined);
    await this.#stderrRead;
    const how = status?.signal ? `was killed by ${status.signal}` : `exited ${status?.code}`;
    const said = this.#stderrTail.trim();
    return `the matcher process ${how} before it answered for every file` +
      (said === "" ? "" : `: ${said}`);
  }

  async #keepStderr(stderr: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const text of stderr.pipeThrough(new TextDecoderStream())) {
        this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
      }
    } catch {
      // Killed: what it wrote is kept.
    }
  }

  #onReply(reply: MatcherReply | undefined): void {
    if (this.#stopped !== undefined) return;
    const file = this.#sent[this.#answered];
    if (reply === undefined || file === undefined) {
      this.#stop({ ok: false, reason: "failed", detail: "the matcher process answered nonsense" });
      return;
    }
    if ("error" in reply) {
      this.#stop({ ok: false, reason: "failed", detail: reply.error });
      return;
    }
    this.#answered += 1;
    if (reply.searched) this.#filesSearched += 1;
    if (reply.count > 0) this.#matched.push({ ...file, count: reply.count, lines: reply.lines });
    if (this.#answered === this.#sent.length) this.#stopClock();
    if (this.#allAnswered()) this.#ended.resolve();
  }

  /** The process has files to answer: matching time runs. */
  #startClock(): void {
    if (this.#busySince !== undefined || this.#answered === this.#sent.length) return;
    this.#busySince = performance.now();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#stop({ ok: false, reason: "timeout", path: this.#sent[this.#answered]?.path });
    }, Math.max(0, this.#budgetMs));
  }

  /** Every file sent is answered: matching time stops until more are sent. */
  #stopClock(): void {
    if (this.#busySince === undefined) return;
    this.#budgetMs -= performance.now() - this.#busySince;
    this.#busySince = undefined;
    this.#clearTimer();
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Ends matching early: kills the process now, and stops the walk through `signal`. */
  #stop(stop: MatchingStop): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = stop;
    this.#clearTimer();
    this.#stopper.abort();
    this.#kill();
    this.#ended.resolve();
  }

  #kill(): void {
    try {
      this.#child?.kill("SIGKILL");
    } catch {
      // Reaped already.
    }
  }
}

function isBrokenPipe(error: unknown): boolean {
  return error instanceof Deno.errors.BrokenPipe ||
    (error instanceof Error && /broken pipe|EPIPE/i.test(error.message));
}
