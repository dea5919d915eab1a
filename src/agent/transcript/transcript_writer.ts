/**
 * Appends records to a session's transcript as the session goes. Writes are queued so that lines
 * keep their order, and lines that pile up while a write is in flight go out in one append: a
 * token-by-token stream costs one file write per batch, not one per chunk. The file stays open
 * for the session's life (an append is one write, not an open, a write and a close); `close`
 * writes what is pending and releases it.
 *
 * Transcripts hold prompts and tool output: the file is 0600 and the directories made for it
 * 0700, whatever the umask. When a write fails (a full disk), nothing more is written, so the
 * file stays a sound prefix of the session rather than one with holes; watchers are told once.
 *
 * One writer per transcript: the file is locked (`flock`, exclusive) while it is open, so a
 * session open in one agent process is not brought back in another meanwhile, where both would
 * append to one file and interleave two histories. The lock goes with the descriptor, so it ends
 * with the process, `kill -9` included; an open waits a little for it (a process handing the
 * session over). Where the file system has no locks, the transcript is written without one.
 */
import { dirname } from "node:path";
import { errorMessage } from "../../error.ts";
import type { TranscriptRecord } from "./transcript_record.ts";

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
/** How long an open waits for another writer to let go (default of `lockWaitMs`). */
const TRANSCRIPT_LOCK_WAIT_MS = 2_000;
const LOCK_POLL_MS = 50;

/** The transcript is locked by another writer: another process has the session open. */
export class TranscriptBusy extends Error {
  override readonly name = "TranscriptBusy";
}

export interface TranscriptOpenOptions {
  /** Default `TRANSCRIPT_LOCK_WAIT_MS`. */
  readonly lockWaitMs?: number;
}

/**
 * `R`: what one line holds — raw.jsonl's records by default; the Claude-format transcript
 * writes its own.
 */
export class TranscriptWriter<R extends object = TranscriptRecord> {
  #pending: string[] = [];
  #flushing: Promise<void> | undefined;
  #failure: string | undefined;
  readonly #failureWatchers: ((message: string) => void)[] = [];
  #closed = false;

  private constructor(
    readonly path: string,
    private readonly file: Deno.FsFile,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Creates the file's missing directories (0700) and the file (0600); it exists (possibly empty)
   * when this resolves. An existing transcript is made private too, and when it ends in a line
   * torn by a crash, the next record starts a line of its own. Throws `TranscriptBusy`, having
   * changed nothing, when another writer holds the file past the wait.
   */
  static async open<R extends object = TranscriptRecord>(
    path: string,
    log: (line: string) => void,
    options: TranscriptOpenOptions = {},
  ): Promise<TranscriptWriter<R>> {
    const dir = dirname(path);
    const dirFound = await makePrivateDir(dir);
    const file = await Deno.open(path, { read: true, append: true, create: true, mode: FILE_MODE });
    try {
      const writer = new TranscriptWriter<R>(path, file, log);
      const info = await file.stat();
      // Not a regular file (a device, in tests): not ours to change.
      if (!info.isFile) return writer;
      if (!(await lockWithin(file, options.lockWaitMs ?? TRANSCRIPT_LOCK_WAIT_MS, path, log))) {
        throw new TranscriptBusy(
          `Cannot open the transcript "${path}": another process is writing it`,
        );
      }
      await restrict(path, info, FILE_MODE);
      if (dirFound) await restrict(dir, dirFound, DIR_MODE);
      if (info.size > 0 && !(await endsWithNewline(file))) writer.#pending.push("\n");
      return writer;
    } catch (error) {
      file.close();
      throw error;
    }
  }

  /** Queues a record; after `close` or a failed write, records are dropped. */
  append(record: R): void {
    if (this.#closed || this.#failure !== undefined) return;
    this.#pending.push(JSON.stringify(record) + "\n");
    this.#flushing ??= this.#drain();
  }

  /** Resolves when every appended record is on disk (or was dropped after a failure). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  /** Calls `watcher` once with what failed when a write fails; at once if one has already. */
  onFailure(watcher: (message: string) => void): void {
    if (this.#failure !== undefined) watcher(this.#failure);
    else this.#failureWatchers.push(watcher);
  }

  /** Writes what is pending, then releases the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.flush();
    this.#failureWatchers.length = 0;
    this.file.close();
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0 && this.#failure === undefined) {
      const batch = new TextEncoder().encode(this.#pending.join(""));
      this.#pending = [];
      try {
        for (let written = 0; written < batch.length;) {
          written += await this.file.write(batch.subarray(written));
        }
      } catch (error) {
        this.#fail(`Cannot write the transcript "${this.path}": ${errorMessage(error)}`);
      }
    }
    this.#pending = [];
    this.#flushing = undefined;
  }

  #fail(message: string): void {
    this.#failure = message;
    this.log(message);
    for (const watcher of this.#failureWatchers.splice(0)) watcher(message);
  }
}

/**
 * Takes the file's exclusive lock, trying until `waitMs` has passed; false if another holds it
 * still. On a file system without locks (some network ones) the transcript is written without
 * one: logged, not fatal.
 */
async function lockWithin(
  file: Deno.FsFile,
  waitMs: number,
  path: string,
  log: (line: string) => void,
): Promise<boolean> {
  const deadline = performance.now() + waitMs;
  while (true) {
    try {
      if (await file.tryLock(true)) return true;
    } catch (error) {
      log(`Cannot lock the transcript "${path}": ${errorMessage(error)}; writing it unlocked`);
      return true;
    }
    if (performance.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

/**
 * Makes `dir` and its missing parents with mode 0700 exactly (the umask only takes bits away).
 * Returns what `stat` said of `dir` when it was there already (its mode is left to the caller),
 * undefined when this made it.
 */
async function makePrivateDir(dir: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(dir);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  await makePrivateDir(dirname(dir));
  try {
    await Deno.mkdir(dir, { mode: DIR_MODE });
  } catch (error) {
    // Another session made it meanwhile.
    if (error instanceof Deno.errors.AlreadyExists) return await Deno.stat(dir);
    throw error;
  }
  await restrict(dir, await Deno.stat(dir), DIR_MODE);
  return undefined;
}

/** Sets the mode bits where they differ; Windows has none (`mode` is null there). */
async function restrict(path: string, info: Deno.FileInfo, mode: number): Promise<void> {
  if (info.mode !== null && (info.mode & 0o777) !== mode) await Deno.chmod(path, mode);
}

async function endsWithNewline(file: Deno.FsFile): Promise<boolean> {
  await file.seek(-1, Deno.SeekMode.End);
  const last = new Uint8Array(1);
  await file.read(last);
  return last[0] === 0x0a;
}
