/**
 * The evaluated state of a prompt's fixed prefix (the system prompt's shared part and the tool
 * definitions), kept in the user's cache so that a new session's first turn starts from it
 * instead of evaluating it again: in this process and in the next one. The backend saves and
 * loads the state (llama_prefix_state.ts); this file keeps the files.
 *
 * One directory per key, named by the key's hash: `state`, as llama.cpp wrote it, and
 * `header.json`, the whole key with the state's length and CRC-32. A directory is made elsewhere
 * and renamed into place whole, so a reader sees a complete entry or none, and two writers of
 * one key leave one entry. A state is used only when its header names exactly the key asked for
 * and the state has the length and checksum the header gives; anything else (a file cut short or
 * changed, garbage, a state for another model or prompt) is said in the log, removed, and made
 * again by the session that found it. A state that llama.cpp reads is checked first: a corrupt
 * one could make it abort the process. The checksum is against damage, not forgery (whoever could
 * forge a state could rewrite its header too): CRC-32 reads a 20 MB state in 8 ms, SHA-256 in 19,
 * and a new session's first turn of a small model takes 60.
 *
 * The files are read as every file a user controls is read (config_file.ts): regular files only,
 * never an open that waits, never more than the limits. llama.cpp then opens the state by path,
 * which leaves the race config_file.ts describes: a state swapped for a FIFO or another file
 * between the check and llama.cpp's open. The directory is the user's (mode 0700), so only what
 * runs as the user can do that; a state swapped for another one is still caught when the tokens
 * it holds are compared with the prompt's.
 *
 * The directory is bounded: at most `maxEntries` entries and `maxTotalBytes` together (the least
 * recently used go first, a use touches an entry), no state over `maxEntryBytes` (a larger one is
 * not kept), and what a killed process left half made is removed after an hour.
 */
import { crc32 } from "node:zlib";
import { z } from "zod";
import { openRegularFile, readConfigFile } from "../../config_file.ts";
import { errorMessage } from "../../error.ts";

/** What identifies a state: every field must be equal for an entry to be used. */
export type PrefixStateKey = Readonly<Record<string, string | number | boolean>>;

export interface PrefixStateCacheOptions {
  /** The directory of the entries; created on first write. */
  readonly dir: string;
  /** The largest state kept (default 256 MiB: a 1,000-token prefix of an 8B model is ~130 MiB). */
  readonly maxEntryBytes?: number;
  /** All entries together (default 1 GiB). */
  readonly maxTotalBytes?: number;
  /** Entries at most (default 16). */
  readonly maxEntries?: number;
  log(line: string): void;
}

/** What a state loaded into a session turned out to hold. */
export type LoadCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export interface PrefixStateSteps {
  /** Loads the state file at `path` (checked) and checks it holds the prefix. */
  load(path: string): Promise<LoadCheck>;
  /** Evaluates the prefix; false when it was not done (cancelled), so nothing is kept. */
  build(): Promise<boolean>;
  /** Writes the evaluated state to `path`. */
  save(path: string): Promise<void>;
}

/** How a session got its prefix: from the cache, evaluated and kept, or evaluated only. */
export type PrefixOutcome = "restored" | "stored" | "built" | "not_built";

const FORMAT = "llama-agent prefix state";
const VERSION = 2;
const HEADER = "header.json";
const STATE = "state";
const SUFFIX = ".prefix";
const MAX_HEADER_BYTES = 16 * 1024;
const CHUNK_BYTES = 4 * 1024 * 1024;
/** A half-made entry this old is a killed process's, not a live one's. */
const LEFTOVER_AGE_MS = 60 * 60 * 1000;

const Header = z.object({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  key: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  stateBytes: z.number().int().nonnegative(),
  crc32: z.number().int().nonnegative(),
});
type Header = z.infer<typeof Header>;

export class PrefixStateCache {
  readonly dir: string;
  readonly #maxEntryBytes: number;
  readonly #maxTotalBytes: number;
  readonly #maxEntries: number;
  readonly #log: (line: string) => void;
  /** Prefixes being made in this process, by entry: a second session waits for the first. */
  readonly #making = new Map<string, Promise<unknown>>();
  #writeFailureSaid = false;

  constructor(options: PrefixStateCacheOptions) {
    this.dir = options.dir;
    this.#maxEntryBytes = options.maxEntryBytes ?? 256 * 1024 * 1024;
    this.#maxTotalBytes = options.maxTotalBytes ?? 1024 * 1024 * 1024;
    this.#maxEntries = options.maxEntries ?? 16;
    this.#log = options.log;
  }

  /** The directory that holds the state of `key`. */
  async entryOf(key: PrefixStateKey): Promise<string> {
    const digest = await sha256Hex(new TextEncoder().encode(canonicalKey(key)));
    return `${this.dir}/${digest}${SUFFIX}`;
  }

  /**
   * Starts a session from the state of `key`: loaded from its entry where there is a good one,
   * else built (evaluated) and kept for the next session. A session of this process that asks
   * for a key being made waits for it, then loads it.
   */
  async restoreOrBuild(key: PrefixStateKey, steps: PrefixStateSteps): Promise<PrefixOutcome> {
    const entry = await this.entryOf(key);
    const making = this.#making.get(entry);
    if (making !== undefined) await making.catch(() => {});
    const outcome = this.#restoreOrBuild(entry, key, steps);
    this.#making.set(entry, outcome);
    try {
      return await outcome;
    } finally {
      if (this.#making.get(entry) === outcome) this.#making.delete(entry);
    }
  }

  async #restoreOrBuild(
    entry: string,
    key: PrefixStateKey,
    steps: PrefixStateSteps,
  ): Promise<PrefixOutcome> {
    if (await this.#restore(entry, key, steps)) return "restored";
    if (!await steps.build()) return "not_built";
    return await this.#store(entry, key, steps) ? "stored" : "built";
  }

  /**
   * Loads the state of `key` where a good entry holds it (true); a bad entry is said and
   * removed. It neither builds nor waits for a session building it.
   */
  async restore(key: PrefixStateKey, load: PrefixStateSteps["load"]): Promise<boolean> {
    return await this.#restore(await this.entryOf(key), key, { load });
  }

  /** True when the state of `entry` was loaded; a bad entry is said and removed. */
  async #restore(
    entry: string,
    key: PrefixStateKey,
    steps: Pick<PrefixStateSteps, "load">,
  ): Promise<boolean> {
    let problem: string;
    try {
      problem = await this.#checkedState(entry, key) ?? "";
      if (problem === "") {
        const check = await steps.load(`${entry}/${STATE}`);
        if (check.ok) {
          const now = new Date();
          // Touched: the least recently used entry goes first when the directory is full.
          await Deno.utime(entry, now, now).catch(() => {});
          return true;
        }
        problem = check.reason;
      }
    } catch (error) {
      // No entry (or no directory yet): the common case of a first session, nothing to say.
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        return false;
      }
      problem = errorMessage(error);
    }
    this.#log(
      `The cached prompt state "${entry}" is not usable (${problem}): the prompt is evaluated ` +
        "again and the state replaced",
    );
    await Deno.remove(entry, { recursive: true }).catch(() => {});
    return false;
  }

  /** What is wrong with the entry's header or state, or undefined when it is good for `key`. */
  async #checkedState(entry: string, key: PrefixStateKey): Promise<string | undefined> {
    const text = await readConfigFile(`${entry}/${HEADER}`, { maxBytes: MAX_HEADER_BYTES });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return "its header is not JSON";
    }
    const header = Header.safeParse(parsed);
    if (!header.success) return "its header is not a prompt state's";
    if (canonicalKey(header.data.key) !== canonicalKey(key)) {
      return "it was made for another model, context or prompt";
    }
    const { stateBytes } = header.data;
    using opened = await openRegularFile(`${entry}/${STATE}`);
    const size = opened.info.size;
    if (size > this.#maxEntryBytes) {
      return `its state is over the ${this.#maxEntryBytes}-byte limit (${size} bytes)`;
    }
    if (size !== stateBytes) return `its state has ${size} bytes, not ${stateBytes}`;
    // One byte past the state is read, to see a file that grew since its size was taken.
    let checksum = 0;
    const read = await forEachChunk(opened.file, stateBytes + 1, (chunk) => {
      checksum = crc32(chunk, checksum);
    });
    if (read !== stateBytes) return `its state has ${read} bytes, not ${stateBytes}`;
    if (checksum !== header.data.crc32) return "its state does not match its checksum";
    return undefined;
  }

  /** Keeps the evaluated state as `entry`; false (said once) where it cannot be written. */
  async #store(entry: string, key: PrefixStateKey, steps: PrefixStateSteps): Promise<boolean> {
    let made: string | undefined;
    try {
      await Deno.mkdir(this.dir, { recursive: true, mode: 0o700 });
      made = await Deno.makeTempDir({ dir: this.dir, prefix: ".new-" });
      await steps.save(`${made}/${STATE}`);
      using opened = await openRegularFile(`${made}/${STATE}`);
      const stateBytes = opened.info.size;
      if (stateBytes > this.#maxEntryBytes) {
        this.#log(
          `The prompt's evaluated state (${stateBytes} bytes) is over the cache's ` +
            `${this.#maxEntryBytes}-byte limit: it is not kept`,
        );
        return false;
      }
      let checksum = 0;
      await forEachChunk(opened.file, stateBytes, (chunk) => {
        checksum = crc32(chunk, checksum);
      });
      const header: Header = {
        format: FORMAT,
        version: VERSION,
        key: { ...key },
        stateBytes,
        crc32: checksum,
      };
      await Deno.writeTextFile(`${made}/${HEADER}`, JSON.stringify(header) + "\n", {
        createNew: true,
        mode: 0o600,
      });
      try {
        await Deno.rename(made, entry);
        made = undefined;
      } catch (error) {
        // Another session (of this process or another) kept the same prefix first: its entry
        // stays, and this one goes.
        if (!await isDirectory(entry)) throw error;
      }
      await this.#prune(entry);
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
      if (made !== undefined) await Deno.remove(made, { recursive: true }).catch(() => {});
    }
  }

  /**
   * Removes the least recently used entries past the bounds (never `kept`, just written), and
   * what a killed process left half made.
   */
  async #prune(kept: string): Promise<void> {
    const entries: { path: string; size: number; used: number }[] = [];
    const now = Date.now();
    for await (const item of Deno.readDir(this.dir)) {
      const path = `${this.dir}/${item.name}`;
      const info = await Deno.lstat(path).catch(() => undefined);
      if (info === undefined) continue;
      const used = info.mtime?.getTime() ?? 0;
      if (item.name.startsWith(".")) {
        if (now - used > LEFTOVER_AGE_MS) {
          await Deno.remove(path, { recursive: true }).catch(() => {});
        }
      } else if (item.name.endsWith(SUFFIX) && info.isDirectory) {
        const size = (await fileSize(`${path}/${STATE}`)) + (await fileSize(`${path}/${HEADER}`));
        entries.push({ path, size, used: path === kept ? Infinity : used });
      }
    }
    entries.sort((a, b) => b.used - a.used);
    let count = 0;
    let total = 0;
    for (const entry of entries) {
      count++;
      total += entry.size;
      if (entry.path !== kept && (count > this.#maxEntries || total > this.#maxTotalBytes)) {
        await Deno.remove(entry.path, { recursive: true }).catch(() => {});
        count--;
        total -= entry.size;
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

/** Calls `each` on the file's bytes, at most `limit` of them; answers how many there were. */
async function forEachChunk(
  file: Deno.FsFile,
  limit: number,
  each: (chunk: Uint8Array) => unknown,
): Promise<number> {
  const buffer = new Uint8Array(CHUNK_BYTES);
  let total = 0;
  while (total < limit) {
    const read = await file.read(buffer.subarray(0, Math.min(CHUNK_BYTES, limit - total)));
    if (read === null || read === 0) break;
    await each(buffer.subarray(0, read));
    total += read;
  }
  return total;
}

async function isDirectory(path: string): Promise<boolean> {
  return await Deno.lstat(path).then((info) => info.isDirectory, () => false);
}

/** A regular file's size; 0 for anything else or nothing. */
async function fileSize(path: string): Promise<number> {
  return await Deno.lstat(path).then((info) => (info.isFile ? info.size : 0), () => 0);
}
