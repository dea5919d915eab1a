/**
 * Walk directories on descriptors (Linux, glibc, FFI granted; see walk_directory.ts): exact, as
 * descriptor_opener.ts is for one file, at a few system calls a file.
 *
 * Why nothing outside the roots is listed or read, whatever is swapped for a symlink meanwhile:
 * a directory is opened `O_DIRECTORY | O_NOFOLLOW`, then the kernel's path of the descriptor held
 * (`/proc/self/fd/N`) must be the real path the walk expects, inside the roots; only that held
 * directory is listed (`getdents64`). Its files are opened relative to it, `O_PATH | O_NOFOLLOW`:
 * one name, no other component looked up, and a symlink put in its place is opened as the link
 * itself, seen for what it is and skipped; only a regular file is opened for reading, through
 * `/proc/self/fd/N` of the very file held (`O_PATH` touches no data, so a FIFO or a device swapped
 * in is never woken). So the per-file open through the confined opener, with its real-path check
 * of every file, is not needed: each file is an entry of a directory that was verified.
 *
 * Descriptors pass by Deno's permissions, so each directory's read grant is asked; Deno grants
 * read access by directory, so the files in a granted directory are granted. Not covered, as by
 * any check of paths (and by descriptor_opener.ts): a hard link inside the roots to a file
 * outside, and a verified directory moved out of the roots while the walk holds it.
 */
import { isInsideRoots } from "./allowed_roots.ts";
import type { ConfinedPlace } from "./confined_file.ts";
import type { ConfinedBytes } from "./confined_read.ts";
import { isGranted } from "./descriptor_opener.ts";
import { cString, DirectoryCalls, type EntryKind, type ListedEntry } from "./directory_calls.ts";
import { AT_FDCWD, type Libc, loadLibc } from "./libc.ts";
import {
  compareNames,
  type DirectorySource,
  type WalkDirectory,
  type WalkEntry,
} from "./walk_directory.ts";

const UNREADABLE: ConfinedBytes = { ok: false, reason: "unreadable" };
const TOO_BIG: ConfinedBytes = { ok: false, reason: "too_big" };
const CANCELLED: ConfinedBytes = { ok: false, reason: "cancelled" };

/** The source, or undefined where descriptors cannot be had. */
export function openDescriptorDirectories(place: ConfinedPlace): DirectorySource | undefined {
  const libc = loadLibc();
  if (libc === undefined) return undefined;
  const calls = DirectoryCalls.open(libc);
  return calls === undefined ? undefined : new DescriptorDirectories(libc, calls, place);
}

class DescriptorDirectories implements DirectorySource {
  readonly #buffer = new ReadBuffer();

  constructor(
    private readonly libc: Libc,
    private readonly calls: DirectoryCalls,
    private readonly place: ConfinedPlace,
  ) {}

  open(path: string): WalkDirectory | undefined {
    const { calls } = this;
    const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC } = calls.flags;
    const name = cString(path);
    if (name === undefined) return undefined;
    const fd = calls.openat(AT_FDCWD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return undefined;
    const listed = this.#isExpected(fd, path) ? calls.list(fd) : undefined;
    if (listed === undefined) {
      calls.close(fd);
      return undefined;
    }
    return new DescriptorDirectory(calls, this.#buffer, fd, listed);
  }

  /** Whether the directory held is `path` itself, inside the roots and the runtime's grant. */
  #isExpected(fd: number, path: string): boolean {
    try {
      return this.libc.pathOf(fd) === path && isInsideRoots(path, this.place.roots) &&
        isGranted("read", path);
    } catch {
      return false;
    }
  }

  close(): void {
    this.calls[Symbol.dispose]();
  }
}

class DescriptorDirectory implements WalkDirectory {
  readonly entries: WalkEntry[];
  #open = true;

  constructor(
    private readonly calls: DirectoryCalls,
    private readonly buffer: ReadBuffer,
    private readonly fd: number,
    listed: readonly ListedEntry[],
  ) {
    const entries = listed.map(({ name, cName, kind }) =>
      new DescriptorEntry(this, name, cName, kind)
    );
    this.entries = entries.sort((a, b) => compareNames(a.name, b.name));
  }

  /** The bytes of the regular file `name` in this directory (see the module comment). */
  readFile(name: Uint8Array<ArrayBuffer>, maxBytes: number): ConfinedBytes {
    // A closed directory's number may already hold another file.
    if (!this.#open) return UNREADABLE;
    const { calls } = this;
    const { O_PATH, O_NOFOLLOW, O_CLOEXEC, O_RDONLY, O_NONBLOCK } = calls.flags;
    const held = calls.openat(this.fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (held < 0) return UNREADABLE;
    try {
      const status = calls.status(held);
      if (status?.kind !== "file" || status.links === 0) return UNREADABLE;
      if (status.size > maxBytes) return TOO_BIG;
      const fd = calls.reopen(held, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0) return UNREADABLE;
      try {
        return this.buffer.readAtMost(calls, fd, status.size, maxBytes);
      } finally {
        calls.close(fd);
      }
    } finally {
      calls.close(held);
    }
  }

  modifiedTime(name: Uint8Array<ArrayBuffer>): number {
    return this.#open ? this.calls.modifiedTime(this.fd, name) : 0;
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.calls.close(this.fd);
  }
}

class DescriptorEntry implements WalkEntry {
  constructor(
    private readonly directory: DescriptorDirectory,
    readonly name: string,
    private readonly cName: Uint8Array<ArrayBuffer>,
    readonly kind: EntryKind,
  ) {}

  // Async for the interface only: the calls take microseconds and run here.
  // deno-lint-ignore require-await
  async readBytes(maxBytes: number, signal?: AbortSignal): Promise<ConfinedBytes> {
    if (signal?.aborted) return CANCELLED;
    return this.directory.readFile(this.cName, maxBytes);
  }

  modifiedTime(): number {
    return this.directory.modifiedTime(this.cName);
  }
}

/**
 * The buffer a walk reads its files into: a new one for each file costs microseconds (more than
 * the read), so what a read gives is a view of this one, valid until the next read.
 */
class ReadBuffer {
  /** Files larger than this get their own buffer, so that a walk does not hold it. */
  static readonly MAX_KEPT_BYTES = 1024 * 1024;
  #bytes = new Uint8Array(64 * 1024);

  /**
   * Reads to the end, or to `maxBytes + 1` bytes: a file that grew past its limit since its size
   * was looked at is told too big, as readAtMost (config_file.ts) tells it.
   */
  readAtMost(calls: DirectoryCalls, fd: number, size: number, maxBytes: number): ConfinedBytes {
    const wanted = Math.min(size, maxBytes) + 1;
    let bytes = wanted <= this.#bytes.length
      ? this.#bytes
      : wanted <= ReadBuffer.MAX_KEPT_BYTES
      ? (this.#bytes = new Uint8Array(ReadBuffer.MAX_KEPT_BYTES))
      : new Uint8Array(wanted);
    let filled = 0;
    for (;;) {
      if (filled > maxBytes) return TOO_BIG;
      if (filled === bytes.length) {
        const grown = new Uint8Array(Math.min(bytes.length * 2, maxBytes + 1));
        grown.set(bytes);
        bytes = grown;
      }
      const asked = Math.min(bytes.length, maxBytes + 1) - filled;
      const count = calls.read(fd, bytes.subarray(filled, filled + asked));
      if (count < 0) return UNREADABLE;
      filled += count;
      // A short read that reached the size looked at is the end: a regular file reads short only
      // there, and one more call to be told so would cost as much as the read.
      if (count === 0 || (count < asked && filled >= size)) {
        return { ok: true, bytes: bytes.subarray(0, filled) };
      }
    }
  }
}
