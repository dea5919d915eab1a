/**
 * Directory watches on Linux's inotify, through FFI, for `hooks test --watch`.
 *
 * Why not `Deno.watchFs`: for every event its watcher thread checks whether the changed path is
 * one of the watched ones by opening both (`same_file::is_same_file`). A FIFO that appears in a
 * watched directory (a scenario file replaced by one) is opened for reading there, and that open
 * waits for a writer, which never comes: the thread delivers nothing more, and it holds a lock
 * that the next `Deno.watchFs` call takes on the JS thread, which then blocks for good, signal
 * listeners included, so Ctrl-C no longer ends the watch (Deno 2.9). inotify reports names:
 * nothing is ever opened, whatever kind of file changed.
 *
 * A recursive watch adds a watch for each directory below its root, and for each one created or
 * moved in later; symlinked directories are not entered (as scenario discovery does not enter
 * them). Events are read from a non-blocking descriptor every `POLL_MS`: one system call, and
 * closing is immediate. A queue overflow is told as a `rescan` event, as notify tells it.
 *
 * Only on Linux with glibc (x86-64 or arm64) and the FFI permission granted; elsewhere
 * `watchDirectories` answers undefined and the caller uses `Deno.watchFs`.
 */

const SYMBOLS = {
  inotify_init1: { parameters: ["i32"], result: "i32" },
  inotify_add_watch: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
} as const satisfies Deno.ForeignLibraryInterface;

// The same on x86-64 and arm64 (the generic Linux values).
const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;
const IN_MODIFY = 0x2;
const IN_ATTRIB = 0x4;
const IN_CLOSE_WRITE = 0x8;
const IN_MOVED_FROM = 0x40;
const IN_MOVED_TO = 0x80;
const IN_CREATE = 0x100;
const IN_DELETE = 0x200;
const IN_DELETE_SELF = 0x400;
const IN_MOVE_SELF = 0x800;
const IN_Q_OVERFLOW = 0x4000;
const IN_IGNORED = 0x8000;
const IN_ONLYDIR = 0x1000000;
const IN_DONT_FOLLOW = 0x2000000;
const IN_ISDIR = 0x40000000;

/** What a watched directory reports: its entries' changes, and its own removal or move. */
const WATCHED = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO |
  IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

/** `struct inotify_event`: wd, mask, cookie, len, then `len` bytes of NUL-padded name. */
const EVENT_HEADER_BYTES = 16;
const READ_BUFFER_BYTES = 64 * 1024;

/** How often the descriptor is read. */
export const POLL_MS = 50;

export interface DirectoryWatch {
  /** Stops watching: no event is delivered once called; settles when nothing is left running. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Watches `paths` (directories; with `recursive`, everything below them too), calling `onEvent`
 * for each change as `Deno.watchFs` reports it. Paths that cannot be watched (gone since they
 * were found) are left out. Undefined where inotify cannot be used (see the module comment).
 */
export async function watchDirectories(
  paths: readonly string[],
  recursive: boolean,
  onEvent: (event: Deno.FsEvent) => void,
): Promise<DirectoryWatch | undefined> {
  const library = openLibrary();
  if (library === undefined) return undefined;
  const fd = library.symbols.inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) {
    library.close();
    return undefined;
  }
  const watch = new InotifyWatch(library, fd, recursive, onEvent);
  try {
    for (const path of paths) await watch.add(path, true);
  } catch (error) {
    await watch.close();
    throw error;
  }
  return watch;
}

type Library = Deno.DynamicLibrary<typeof SYMBOLS>;

function openLibrary(): Library | undefined {
  if (Deno.build.os !== "linux" || Deno.build.env !== "gnu") return undefined;
  if (Deno.build.arch !== "x86_64" && Deno.build.arch !== "aarch64") return undefined;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return undefined;
    return Deno.dlopen("libc.so.6", SYMBOLS);
  } catch {
    return undefined;
  }
}

class InotifyWatch implements DirectoryWatch {
  /** Watch descriptor → the directory it watches. */
  readonly #directories = new Map<number, string>();
  readonly #buffer = new Uint8Array(READ_BUFFER_BYTES);
  readonly #view = new DataView(this.#buffer.buffer);
  readonly #timer: ReturnType<typeof setInterval>;
  /** Watches being added for directories created below a recursive root. */
  readonly #adding = new Set<Promise<void>>();
  #open = true;

  constructor(
    private readonly library: Library,
    private readonly fd: number,
    private readonly recursive: boolean,
    private readonly onEvent: (event: Deno.FsEvent) => void,
  ) {
    this.#timer = setInterval(() => this.#drain(), POLL_MS);
  }

  /** Watches `dir` (and, recursively, the directories below it, not through symlinks). */
  async add(dir: string, root: boolean): Promise<void> {
    if (!this.#open || dir.includes("\0")) return;
    // A root may be named through a symlink; below it, only real directories are entered.
    const mask = root ? WATCHED : WATCHED | IN_DONT_FOLLOW;
    const wd = this.library.symbols.inotify_add_watch(this.fd, encoder.encode(`${dir}\0`), mask);
    if (wd < 0) return;
    this.#directories.set(wd, dir);
    if (!this.recursive) return;
    const below: string[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) {
        if (entry.isDirectory) below.push(`${dir}/${entry.name}`);
      }
    } catch {
      // Gone or unreadable since: its removal is an event of its parent.
      return;
    }
    for (const child of below) await this.add(child, false);
  }

  async close(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    clearInterval(this.#timer);
    // Closing the descriptor removes every watch on it; a listing still running adds none.
    this.library.symbols.close(this.fd);
    while (this.#adding.size > 0) await Promise.all(this.#adding);
    this.library.close();
  }

  /** Reads what is queued and hands it out; nothing queued is a read of -1 (EAGAIN). */
  #drain(): void {
    const { read } = this.library.symbols;
    while (this.#open) {
      const count = Number(read(this.fd, this.#buffer, BigInt(READ_BUFFER_BYTES)));
      if (count <= 0) return;
      for (let offset = 0; offset + EVENT_HEADER_BYTES <= count;) {
        const length = this.#view.getUint32(offset + 12, true);
        this.#handle(
          this.#view.getInt32(offset, true),
          this.#view.getUint32(offset + 4, true),
          this.#buffer.subarray(offset + EVENT_HEADER_BYTES, offset + EVENT_HEADER_BYTES + length),
        );
        offset += EVENT_HEADER_BYTES + length;
      }
    }
  }

  #handle(wd: number, mask: number, rawName: Uint8Array): void {
    if (mask & IN_Q_OVERFLOW) {
      this.onEvent({ kind: "other", paths: [], flag: "rescan" });
      return;
    }
    if (mask & IN_IGNORED) {
      this.#directories.delete(wd);
      return;
    }
    const dir = this.#directories.get(wd);
    if (dir === undefined) return;
    const end = rawName.indexOf(0);
    const name = decoder.decode(end === -1 ? rawName : rawName.subarray(0, end));
    const path = name === "" ? dir : `${dir}/${name}`;
    if (this.recursive && mask & IN_ISDIR && mask & (IN_CREATE | IN_MOVED_TO) && name !== "") {
      // Files made in it before its watch was added are seen as the directory's creation.
      const adding: Promise<void> = this.add(path, false).finally(() => {
        this.#adding.delete(adding);
      });
      this.#adding.add(adding);
    }
    this.onEvent({ kind: kindOf(mask), paths: [path] });
  }
}

function kindOf(mask: number): Deno.FsEvent["kind"] {
  if (mask & IN_CREATE) return "create";
  if (mask & (IN_DELETE | IN_DELETE_SELF)) return "remove";
  if (mask & (IN_MOVED_FROM | IN_MOVED_TO | IN_MOVE_SELF)) return "rename";
  return "modify";
}
