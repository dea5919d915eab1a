/**
 * The evaluated state of a prompt's fixed prefix (the system prompt's shared part and the tool
 * definitions), kept in the user's cache so that a new session's first turn starts from it
 * instead of evaluating it again: in this process and in the next one. The backend saves and
 * loads the state (llama_prefix_state.ts); this file keeps the files.
 *
 * One file per key, named by the key's hash: a header line (the whole key, the state's length
 * and SHA-256) and the state as llama.cpp wrote it. A file is used only when its header names
 * exactly the key asked for and its state has the length and hash the header gives; anything
 * else (a file cut short, garbage, a state for another model or prompt) is said in the log,
 * removed, and made again by the session that found it.
 *
 * The files are read as every file a user controls is read (config_file.ts): a regular file
 * only, never an open that waits, at most the entry limit. llama.cpp reads a state from a path,
 * so the state is copied, while it is checked, into a fresh private directory and loaded from
 * there: llama.cpp never opens a path in the shared directory. A state is written there by
 * llama.cpp too, and moved into place by rename, so a reader sees a whole file or none.
 *
 * The directory is bounded: at most `maxEntries` files and `maxTotalBytes` together (the least
 * recently used go first, a use touches a file), no file over `maxEntryBytes` (a larger state
 * is not kept), and leftovers of a process killed while writing are removed after an hour.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { type OpenedRegularFile, openRegularFile } from "../config_file.ts";
import { errorMessage } from "../error.ts";

/** What identifies a state: every field must be equal for a file to be used. */
export type PrefixStateKey = Readonly<Record<string, string | number | boolean>>;

export interface PrefixStateCacheOptions {
  /** The directory of the files; created on first write. */
  readonly dir: string;
  /** The largest state kept (default 256 MiB: a 1,000-token prefix of an 8B model is ~130 MiB). */
  readonly maxEntryBytes?: number;
  /** All files together (default 1 GiB). */
  readonly maxTotalBytes?: number;
  /** Files at most (default 16). */
  readonly maxEntries?: number;
  log(line: string): void;
}

/** What a state loaded into a session turned out to hold. */
export type LoadCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export interface PrefixStateSteps {
  /** Loads the state file at `path` (a private copy) and checks it holds the prefix. */
  load(path: string): Promise<LoadCheck>;
  /** Evaluates the prefix; false when it was not done (cancelled), so nothing is kept. */
  build(): Promise<boolean>;
  /** Writes the evaluated state to `path`. */
  save(path: string): Promise<void>;
}

/** How a session got its prefix: from a file, evaluated and kept, or evaluated only. */
export type PrefixOutcome = "restored" | "stored" | "built" | "not_built";

const FORMAT = "llama-agent prefix state";
const VERSION = 1;
const MAX_HEADER_BYTES = 16 * 1024;
const CHUNK_BYTES = 1024 * 1024;
/** A temporary file or directory this old is a killed process's, not a live one's. */
const LEFTOVER_AGE_MS = 60 * 60 * 1000;
const SUFFIX = ".state";

const Header = z.object({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  key: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  stateBytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export class PrefixStateCache {
  readonly dir: string;
  readonly #maxEntryBytes: number;
  readonly #maxTotalBytes: number;
  readonly #maxEntries: number;
  readonly #log: (line: string) => void;
  /** Prefixes being made in this process, by file name: a second session waits for the first. */
  readonly #making = new Map<string, Promise<unknown>>();
  #writeFailureSaid = false;

  constructor(options: PrefixStateCacheOptions) {
    this.dir = options.dir;
    this.#maxEntryBytes = options.maxEntryBytes ?? 256 * 1024 * 1024;
    this.#maxTotalBytes = options.maxTotalBytes ?? 1024 * 1024 * 1024;
    this.#maxEntries = options.maxEntries ?? 16;
    this.#log = options.log;
  }

  /** The file that holds the state of `key`. */
  async pathOf(key: PrefixStateKey): Promise<string> {
    return `${this.dir}/${await sha256Hex(new TextEncoder().encode(canonicalKey(key)))}${SUFFIX}`;
  }

  /**
   * Starts a session from the state of `key`: loaded from its file where there is a good one,
   * else built (evaluated) and kept for the next session. A session of this process that asks
   * for a key being made waits for it, then loads it.
   */
  async restoreOrBuild(key: PrefixStateKey, steps: PrefixStateSteps): Promise<PrefixOutcome> {
    const path = await this.pathOf(key);
    const making = this.#making.get(path);
    if (making !== undefined) await making.catch(() => {});
    const outcome = this.#restoreOrBuild(path, key, steps);
    this.#making.set(path, outcome);
    try {
      return await outcome;
    } finally {
      if (this.#making.get(path) === outcome) this.#making.delete(path);
    }
  }

  async #restoreOrBuild(
    path: string,
    key: PrefixStateKey,
    steps: PrefixStateSteps,
  ): Promise<PrefixOutcome> {
    if (await this.#restore(path, key, steps)) return "restored";
    if (!await steps.build()) return "not_built";
    return await this.#store(path, key, steps) ? "stored" : "built";
  }

  /** True when the state of `path` was loaded; a bad file is said and removed. */
  async #restore(path: string, key: PrefixStateKey, steps: PrefixStateSteps): Promise<boolean> {
    let problem: string;
    try {
      using opened = await openRegularFile(path);
      const scratch = await Deno.makeTempDir({ dir: this.dir, prefix: ".scratch-" });
      try {
        const copy = await this.#checkedCopy(opened, key, `${scratch}/state`);
        if ("path" in copy) {
          const check = await steps.load(copy.path);
          if (check.ok) {
            const now = new Date();
            // Touched: the least recently used file goes first when the directory is full.
            await Deno.utime(path, now, now).catch(() => {});
            return true;
          }
          problem = check.reason;
        } else {
          problem = copy.problem;
        }
      } finally {
        await Deno.remove(scratch, { recursive: true }).catch(() => {});
      }
    } catch (error) {
      // No file (or no directory yet): the common case of a first session, nothing to say.
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        return false;
      }
      problem = errorMessage(error);
    }
    this.#log(
      `The cached prompt state "${path}" is not usable (${problem}): the prompt is evaluated ` +
        "again and the file replaced",
    );
    await Deno.remove(path).catch(() => {});
    return false;
  }

  /** Copies the state of the file `opened` to `to`, checking its header, size and hash. */
  async #checkedCopy(
    opened: OpenedRegularFile,
    key: PrefixStateKey,
    to: string,
  ): Promise<{ path: string } | { problem: string }> {
    const size = opened.info.size;
    if (size > this.#maxEntryBytes + MAX_HEADER_BYTES) {
      return { problem: `it is over the ${this.#maxEntryBytes}-byte limit (${size} bytes)` };
    }
    const reader = new ChunkReader(opened.file);
    const line = await reader.line(MAX_HEADER_BYTES);
    if (line === undefined) return { problem: "it has no header" };
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return { problem: "its header is not JSON" };
    }
    const header = Header.safeParse(parsed);
    if (!header.success) return { problem: "its header is not a prompt state's" };
    if (canonicalKey(header.data.key) !== canonicalKey(key)) {
      return { problem: "it was made for another model, context or prompt" };
    }
    const { stateBytes, sha256 } = header.data;
    if (stateBytes > this.#maxEntryBytes) {
      return { problem: `its state is over the ${this.#maxEntryBytes}-byte limit` };
    }
    const hash = createHash("sha256");
    using out = await Deno.open(to, { write: true, createNew: true, mode: 0o600 });
    let copied = 0;
    for (;;) {
      // One byte past the state is read, to see a file longer than its header says.
      const chunk = await reader.next(Math.min(CHUNK_BYTES, stateBytes + 1 - copied));
      if (chunk === undefined) break;
      copied += chunk.byteLength;
      if (copied > stateBytes) return { problem: "it is longer than its header says" };
      hash.update(chunk);
      await writeAll(out, chunk);
    }
    if (copied < stateBytes) return { problem: "it is cut short" };
    if (hash.digest("hex") !== sha256) return { problem: "its state does not match its hash" };
    return { path: to };
  }

  /** Keeps the evaluated state under `path`; false (said once) where it cannot be written. */
  async #store(path: string, key: PrefixStateKey, steps: PrefixStateSteps): Promise<boolean> {
    let scratch: string | undefined;
    try {
      await Deno.mkdir(this.dir, { recursive: true, mode: 0o700 });
      scratch = await Deno.makeTempDir({ dir: this.dir, prefix: ".scratch-" });
      const state = `${scratch}/state`;
      await steps.save(state);
      using opened = await openRegularFile(state);
      const stateBytes = opened.info.size;
      if (stateBytes > this.#maxEntryBytes) {
        this.#log(
          `The prompt's evaluated state (${stateBytes} bytes) is over the cache's ` +
            `${this.#maxEntryBytes}-byte limit: it is not kept`,
        );
        return false;
      }
      const hash = createHash("sha256");
      await forEachChunk(opened.file, stateBytes, (chunk) => hash.update(chunk));
      const header = JSON.stringify(
        {
          format: FORMAT,
          version: VERSION,
          key,
          stateBytes,
          sha256: hash.digest("hex"),
        } satisfies z.infer<typeof Header>,
      );
      const slash = path.lastIndexOf("/");
      const temporary = `${path.slice(0, slash)}/.${path.slice(slash + 1)}.` +
        `${crypto.randomUUID()}.tmp`;
      try {
        {
          using out = await Deno.open(temporary, { write: true, createNew: true, mode: 0o600 });
          await writeAll(out, new TextEncoder().encode(header + "\n"));
          await opened.file.seek(0, Deno.SeekMode.Start);
          await forEachChunk(opened.file, stateBytes, (chunk) => writeAll(out, chunk));
        }
        await Deno.rename(temporary, path);
      } catch (error) {
        await Deno.remove(temporary).catch(() => {});
        throw error;
      }
      await this.#prune(path);
      return true;
    } catch (error) {
      if (!this.#writeFailureSaid) {
        this.#writeFailureSaid = true;
        this.#log(
          `Cannot keep the prompt's evaluated state in "${this.dir}": ${errorMessage(error)} ` +
            "(new sessions evaluate the prompt again)",
        );
      }
      return false;
    } finally {
      if (scratch !== undefined) await Deno.remove(scratch, { recursive: true }).catch(() => {});
    }
  }

  /**
   * Removes the least recently used states past the bounds (never `kept`, just written), and
   * temporary files a killed process left.
   */
  async #prune(kept: string): Promise<void> {
    const states: { path: string; size: number; used: number }[] = [];
    const now = Date.now();
    for await (const entry of Deno.readDir(this.dir)) {
      const path = `${this.dir}/${entry.name}`;
      const info = await Deno.lstat(path).catch(() => undefined);
      if (info === undefined) continue;
      const used = info.mtime?.getTime() ?? 0;
      if (entry.name.startsWith(".")) {
        if (now - used > LEFTOVER_AGE_MS) {
          await Deno.remove(path, { recursive: true }).catch(() => {});
        }
      } else if (entry.name.endsWith(SUFFIX) && info.isFile) {
        states.push({ path, size: info.size, used: path === kept ? Infinity : used });
      }
    }
    states.sort((a, b) => b.used - a.used);
    let count = 0;
    let total = 0;
    for (const state of states) {
      count++;
      total += state.size;
      if (state.path !== kept && (count > this.#maxEntries || total > this.#maxTotalBytes)) {
        await Deno.remove(state.path).catch(() => {});
        count--;
        total -= state.size;
      }
    }
  }
}

/** The key as one string: fields sorted, so that the order they were written in is no matter. */
function canonicalKey(key: PrefixStateKey): string {
  return JSON.stringify(Object.keys(key).sort().map((name) => [name, key[name]]));
}

export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  for (let written = 0; written < bytes.byteLength;) {
    written += await file.write(bytes.subarray(written));
  }
}

/** Calls `each` on the file's bytes from where it stands, `bytes` of them at most. */
async function forEachChunk(
  file: Deno.FsFile,
  bytes: number,
  each: (chunk: Uint8Array) => unknown,
): Promise<void> {
  const buffer = new Uint8Array(CHUNK_BYTES);
  for (let left = bytes; left > 0;) {
    const read = await file.read(buffer.subarray(0, Math.min(CHUNK_BYTES, left)));
    if (read === null || read === 0) throw new Error("the file was cut short while it was read");
    await each(buffer.subarray(0, read));
    left -= read;
  }
}

/** Reads a file in chunks: a first line, then the bytes after it. */
class ChunkReader {
  #pending: Uint8Array = new Uint8Array(0);

  constructor(private readonly file: Deno.FsFile) {}

  /** The first line (without its newline) within `limit` bytes, or undefined. */
  async line(limit: number): Promise<string | undefined> {
    let seen = new Uint8Array(0);
    while (seen.byteLength <= limit) {
      const chunk = await this.#read(limit + 1 - seen.byteLength);
      if (chunk === undefined) return undefined;
      const joined = new Uint8Array(seen.byteLength + chunk.byteLength);
      joined.set(seen);
      joined.set(chunk, seen.byteLength);
      seen = joined;
      const newline = seen.indexOf(0x0a);
      if (newline >= 0) {
        this.#pending = seen.slice(newline + 1);
        return new TextDecoder("utf-8", { fatal: false }).decode(seen.subarray(0, newline));
      }
    }
    return undefined;
  }

  /** The next bytes, at most `limit`; undefined at the end of the file. */
  async next(limit: number): Promise<Uint8Array | undefined> {
    if (this.#pending.byteLength > 0) {
      const chunk = this.#pending.subarray(0, limit);
      this.#pending = this.#pending.subarray(chunk.byteLength);
      return chunk;
    }
    return await this.#read(limit);
  }

  async #read(limit: number): Promise<Uint8Array | undefined> {
    const buffer = new Uint8Array(Math.max(1, Math.min(limit, CHUNK_BYTES)));
    const read = await this.file.read(buffer);
    return read === null || read === 0 ? undefined : buffer.subarray(0, read);
  }
}
