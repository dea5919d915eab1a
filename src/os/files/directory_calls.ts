/**
 * The libc calls a descriptor walk (descriptor_directory.ts) makes for every entry: listing a
 * directory (`getdents64`), looking at an entry (`statx`), opening, reading and closing.
 * libc.ts binds its calls once for the process through function pointers, which cost
 * microseconds a call and read on a worker thread; a walk makes thousands of calls on small
 * files, so these are bound with `dlopen` as fast calls, for one walk: the handle is closed when
 * the walk ends (an open library is a resource held, which test sanitizers report). Binding
 * costs a millisecond or two a walk, which a walk of a few hundred files makes back.
 *
 * Only where libc.ts's `loadLibc()` works (Linux, glibc, FFI granted, `/proc` mounted): the
 * flags come from it. `getdents64` needs glibc 2.30 (2019); without it there is no binding.
 */
import {
  AT_EMPTY_PATH,
  AT_FDCWD,
  AT_SYMLINK_NOFOLLOW,
  type FileType,
  fileTypeOf,
  type Libc,
  type OpenFlags,
  STATX_SIZE_BYTES,
} from "./libc.ts";

const SYMBOLS = {
  openat: { parameters: ["i32", "buffer", "i32", "u32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
  getdents64: { parameters: ["i32", "buffer", "usize"], result: "isize" },
} as const satisfies Deno.ForeignLibraryInterface;

const STATX_TYPE = 0x1;
const STATX_MODE = 0x2;
const STATX_NLINK = 0x4;
const STATX_MTIME = 0x40;
const STATX_SIZE = 0x200;
/** `struct linux_dirent64`: d_ino (8), d_off (8), d_reclen (2), d_type (1), then the name. */
const DIRENT_RECLEN = 16;
const DIRENT_TYPE = 18;
const DIRENT_NAME = 19;
const LIST_BUFFER_BYTES = 64 * 1024;
const LIST_BUFFER_BIGINT = BigInt(LIST_BUFFER_BYTES);
const EMPTY_NAME = new Uint8Array(1);
const PROC_FD_PREFIX = new TextEncoder().encode("/proc/self/fd/");

export type EntryKind = FileType;

export interface ListedEntry {
  readonly name: string;
  /** The name's bytes as listed, NUL-terminated: opened as they are, whatever their encoding. */
  readonly cName: Uint8Array<ArrayBuffer>;
  readonly kind: EntryKind;
}

export interface EntryStatus {
  readonly kind: EntryKind;
  readonly size: number;
  readonly links: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A path or name as C takes it; refused with a NUL inside, which would cut it short. */
export function cString(text: string): Uint8Array<ArrayBuffer> | undefined {
  return text.includes("\0") ? undefined : encoder.encode(`${text}\0`);
}

/**
 * The calls, bound for one walk. Every failure is `undefined` or a negative count: a walk skips
 * what it cannot read, it does not say why. Calls run one at a time on the JS thread, so one
 * listing buffer and one status buffer serve them all.
 */
export class DirectoryCalls implements Disposable {
  readonly #library: Deno.DynamicLibrary<typeof SYMBOLS>;
  readonly #list = new Uint8Array(LIST_BUFFER_BYTES);
  readonly #status = new Uint8Array(STATX_SIZE_BYTES);
  readonly #view = new DataView(this.#status.buffer);
  /** `/proc/self/fd/` and room for a descriptor's digits and the NUL. */
  readonly #procPath = new Uint8Array(PROC_FD_PREFIX.length + 12);

  private constructor(readonly flags: OpenFlags, library: Deno.DynamicLibrary<typeof SYMBOLS>) {
    this.#library = library;
    this.#procPath.set(PROC_FD_PREFIX);
  }

  /** The calls, or undefined where libc lacks one of them. */
  static open(libc: Libc): DirectoryCalls | undefined {
    try {
      return new DirectoryCalls(libc.flags, Deno.dlopen("libc.so.6", SYMBOLS));
    } catch {
      return undefined;
    }
  }

  /** A new descriptor (negative on failure). */
  openat(dir: number, path: Uint8Array<ArrayBuffer>, flags: number): number {
    return this.#library.symbols.openat(dir, path, flags, 0);
  }

  /**
   * A new descriptor for the very file `held` holds (an `O_PATH` one, say), opened through
   * `/proc/self/fd/N`; negative on failure.
   */
  reopen(held: number, flags: number): number {
    const path = this.#procPath;
    let length = PROC_FD_PREFIX.length;
    for (const digit of String(held)) path[length++] = digit.charCodeAt(0);
    path[length] = 0;
    return this.#library.symbols.openat(AT_FDCWD, path, flags, 0);
  }

  close(fd: number): void {
    this.#library.symbols.close(fd);
  }

  /** Reads into `into`: the count, 0 at the end, negative on failure. */
  read(fd: number, into: Uint8Array<ArrayBuffer>): number {
    return Number(this.#library.symbols.read(fd, into, BigInt(into.length)));
  }

  /** The entries of the directory held by `fd` (`.` and `..` left out), or undefined. */
  list(fd: number): ListedEntry[] | undefined {
    const buffer = this.#list;
    const entries: ListedEntry[] = [];
    for (;;) {
      const count = Number(this.#library.symbols.getdents64(fd, buffer, LIST_BUFFER_BIGINT));
      if (count < 0) return undefined;
      if (count === 0) return entries;
      // One copy of the batch holds every name as C takes it (a copy each costs far more).
      const batch = buffer.slice(0, count);
      const view = new DataView(batch.buffer);
      for (let offset = 0; offset < count; offset += view.getUint16(offset + DIRENT_RECLEN, true)) {
        const start = offset + DIRENT_NAME;
        const end = batch.indexOf(0, start);
        const bytes = batch.subarray(start, end);
        if (isDotOrDotDot(bytes)) continue;
        const cName = batch.subarray(start, end + 1);
        const kind = direntKind(batch[offset + DIRENT_TYPE]!) ??
          this.status(fd, cName)?.kind ?? "other";
        entries.push({ name: decoder.decode(bytes), cName, kind });
      }
    }
  }

  /** What the file held by `fd` is, or `name` under it when given; a symlink is not followed. */
  status(fd: number, name?: Uint8Array<ArrayBuffer>): EntryStatus | undefined {
    const flags = name === undefined ? AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW : AT_SYMLINK_NOFOLLOW;
    const mask = STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_SIZE;
    const result = this.#library.symbols.statx(fd, name ?? EMPTY_NAME, flags, mask, this.#status);
    if (result < 0) return undefined;
    const view = this.#view;
    return {
      kind: fileTypeOf(view.getUint16(28, true)),
      links: view.getUint32(16, true),
      size: view.getUint32(44, true) * 2 ** 32 + view.getUint32(40, true),
    };
  }

  /** When `name` under `dir` was last modified, in whole ms (as `Deno.lstat` has it); 0 unknown. */
  modifiedTime(dir: number, name: Uint8Array<ArrayBuffer>): number {
    const status = this.#status;
    const result = this.#library.symbols.statx(dir, name, AT_SYMLINK_NOFOLLOW, STATX_MTIME, status);
    const view = this.#view;
    if (result < 0 || (view.getUint32(0, true) & STATX_MTIME) === 0) return 0;
    // Seconds as two halves: a BigInt costs more than the call.
    const seconds = view.getInt32(116, true) * 2 ** 32 + view.getUint32(112, true);
    return seconds * 1000 + Math.floor(view.getUint32(120, true) / 1_000_000);
  }

  [Symbol.dispose](): void {
    this.#library.close();
  }
}

function isDotOrDotDot(name: Uint8Array): boolean {
  const DOT = 0x2e;
  return (name.length === 1 && name[0] === DOT) ||
    (name.length === 2 && name[0] === DOT && name[1] === DOT);
}

/** The kind `d_type` tells; undefined for `DT_UNKNOWN` (some file systems), which needs a stat. */
function direntKind(type: number): EntryKind | undefined {
  switch (type) {
    case 0:
      return undefined;
    case 4:
      return "directory";
    case 8:
      return "file";
    case 10:
      return "symlink";
    default:
      return "other";
  }
}
