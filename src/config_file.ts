/**
 * The one way files that a user or a project controls are read, whoever the agent reads them
 * for: the settings chain and plugin files (`hooks.json`, `plugin.json`, Claude Code's plugin
 * registries, a marketplace's listing), `acp --rules`, the user config file, session
 * transcripts of both formats, `CLAUDE_ENV_FILE`s, project instructions (`AGENTS.md`), scenario
 * files, model scripts and the head of a GGUF, `hooks run --input @FILE`. Only regular files,
 * at most `CONFIG_FILE_MAX_BYTES` (or the caller's limit), and never an open that waits. (The
 * model's own file tools read through the confined openers of src/agent, which keep the same
 * rules.) A symlink is followed, so a link to a regular file is fine and a link to `/dev/zero` is
 * refused like `/dev/zero` itself. It lives below every layer because each of them reads such
 * files.
 *
 * The type is checked on the path before opening, so a FIFO is never opened (opening one for
 * reading waits for a writer), then again on the opened file, and at most the limit plus one
 * byte is read whatever the size said, so a file swapped or growing between the checks is still
 * refused or bounded. One race remains: a regular file replaced by a FIFO between the first check
 * and the open makes the open wait for a writer, since Deno cannot open without blocking. Only
 * someone who can already write the file's directory (and so its hooks, which run commands) can
 * do that, so it is a hang they could cause anyway, not a way in.
 */

/** Claude Code's settings are a few KiB; a file this large is not a settings file. */
export const CONFIG_FILE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * A path that exists but is not a configuration file: a FIFO, a device, a directory, or a file
 * over the limit. The message is the reason, to follow `Cannot read ...: `.
 */
export class ConfigFileRefused extends Error {
  override readonly name = "ConfigFileRefused";
}

export interface ConfigFileOptions {
  /** Default `CONFIG_FILE_MAX_BYTES`. */
  readonly maxBytes?: number;
}

/**
 * Reads a configuration file as UTF-8 (a byte order mark is kept, as `Deno.readTextFile` does).
 * Throws `Deno.errors.NotFound` when the path (or a symlink's target) does not exist,
 * `ConfigFileRefused` when it is not a regular file of at most the limit, and the error of the
 * failed call otherwise (`Deno.errors.PermissionDenied`, ...).
 */
export async function readConfigFile(
  path: string,
  options: ConfigFileOptions = {},
): Promise<string> {
  const maxBytes = options.maxBytes ?? CONFIG_FILE_MAX_BYTES;
  using opened = await openRegularFile(path);
  if (opened.info.size > maxBytes) throw overLimit(maxBytes, opened.info.size);
  const bytes = await readAtMost((into) => opened.file.read(into), maxBytes + 1, {
    sizeHint: opened.info.size,
  });
  if (bytes.byteLength > maxBytes) throw overLimit(maxBytes, undefined);
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
}

/** A regular file open for reading, with what `fstat` said of it; closed on dispose. */
export interface OpenedRegularFile extends Disposable {
  readonly file: Deno.FsFile;
  readonly info: Deno.FileInfo;
}

/**
 * Opens `path` for reading when it is a regular file, for a caller that reads only part of it.
 * Throws like `readConfigFile`, but sets no size limit: the caller bounds what it reads.
 */
export async function openRegularFile(path: string): Promise<OpenedRegularFile> {
  refuseUnlessRegular(await Deno.stat(path));
  const file = await Deno.open(path, { read: true });
  try {
    const info = await file.stat();
    refuseUnlessRegular(info);
    return { file, info, [Symbol.dispose]: () => file.close() };
  } catch (error) {
    file.close();
    throw error;
  }
}

function refuseUnlessRegular(info: Deno.FileInfo): void {
  if (info.isFile) return;
  throw new ConfigFileRefused(`it is ${kindOf(info)}, not a regular file`);
}

function kindOf(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a directory";
  if (info.isFifo) return "a FIFO";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  return "something else";
}

function overLimit(maxBytes: number, size: number | undefined): ConfigFileRefused {
  const limit = maxBytes % (1024 * 1024) === 0
    ? `${maxBytes / (1024 * 1024)} MiB`
    : `${maxBytes}-byte`;
  const actual = size === undefined ? "" : ` (${size} bytes)`;
  return new ConfigFileRefused(`it is over the ${limit} limit${actual}`);
}

/** What `readAtMost` needs of a file: `read` as `Deno.FsFile` has it (0 or null at the end). */
export type ReadInto = (into: Uint8Array) => Promise<number | null>;

export interface ReadAtMostOptions {
  /** Sizes the first buffer; only a hint (a /proc file says 0 and has content). */
  readonly sizeHint?: number;
  /** The most one read asks for, so that a cancel can stop a big file part way. */
  readonly stepBytes?: number;
  readonly signal?: AbortSignal;
}

/**
 * Reads until end of file or `limit` bytes, whatever size the file claimed: a caller that reads
 * at most its limit plus one byte knows a file that is, or grew, over it. The buffer starts at
 * the size hint and grows, never past `limit`.
 */
export async function readAtMost(
  read: ReadInto,
  limit: number,
  options: ReadAtMostOptions = {},
): Promise<Uint8Array> {
  let buffer = new Uint8Array(Math.min(Math.max((options.sizeHint ?? 0) + 1, 4096), limit));
  let length = 0;
  while (length < limit) {
    if (options.signal?.aborted) throw new DOMException("The read was cancelled", "AbortError");
    if (length === buffer.byteLength) {
      const grown = new Uint8Array(Math.min(buffer.byteLength * 2, limit));
      grown.set(buffer);
      buffer = grown;
    }
    const end = Math.min(buffer.byteLength, length + (options.stepBytes ?? Infinity));
    const count = await read(buffer.subarray(length, end));
    if (count === null || count === 0) break;
    length += count;
  }
  return buffer.subarray(0, length);
}
