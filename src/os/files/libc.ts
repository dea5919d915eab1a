/**
 * The few libc calls that let file confinement work on descriptors instead of names (Linux,
 * glibc, x86-64 or arm64): `openat` relative to a directory descriptor with `O_NOFOLLOW` or
 * `O_PATH`, `readlink` of `/proc/self/fd/N` for the real path of what a descriptor holds,
 * `statx`, `mkdirat`, `read`, `write`, `close`. Deno's own file API hands out no descriptors.
 *
 * Loaded on first use, not at start-up, and only where it can work: a glibc build of Deno on
 * Linux, a known architecture, the FFI permission already granted (asking would prompt), the
 * library and every symbol present, and `/proc` mounted. Otherwise `loadLibc()` answers
 * `undefined` and callers use what Deno offers.
 *
 * Calls that only touch metadata run on the JS thread: they take microseconds and `errno` can be
 * read right after them. `read` and `write` run on a worker thread, so a big file does not stall
 * the event loop; `errno` does not survive that hop, so a failed one is repeated here once to
 * learn why.
 */

/** The `open` flags that differ between the two architectures (arm64 uses the generic values). */
const ARCH_FLAGS = {
  x86_64: { O_DIRECTORY: 0o200000, O_NOFOLLOW: 0o400000 },
  aarch64: { O_DIRECTORY: 0o40000, O_NOFOLLOW: 0o100000 },
} as const;

export const AT_FDCWD = -100;
export const AT_EMPTY_PATH = 0x1000;
export const AT_SYMLINK_NOFOLLOW = 0x100;
/** STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_INO | STATX_SIZE */
const STATX_MASK = 0x1 | 0x2 | 0x4 | 0x100 | 0x200;
/** The size of `struct statx`. */
export const STATX_SIZE_BYTES = 256;
const S_IFMT = 0o170000;
const PATH_MAX = 4096;
const ENAMETOOLONG = 36;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Error numbers callers branch on (the same on both architectures). */
export const Errno = {
  EPERM: 1,
  ENOENT: 2,
  ENXIO: 6,
  EACCES: 13,
  EEXIST: 17,
  ENOTDIR: 20,
  EISDIR: 21,
  ELOOP: 40,
} as const;

/** The C functions, as they are called. */
const FUNCTIONS = {
  openat: { parameters: ["i32", "buffer", "i32", "u32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  readlink: { parameters: ["buffer", "buffer", "usize"], result: "isize" },
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
  mkdirat: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  strerror: { parameters: ["i32"], result: "pointer" },
  __errno_location: { parameters: [], result: "pointer" },
} as const satisfies Record<string, Deno.ForeignFunction>;

type Name = keyof typeof FUNCTIONS;
type Pointers = Readonly<Record<Name, Deno.PointerObject>>;

function bind<const D extends Deno.ForeignFunction>(
  pointer: Deno.PointerObject,
  definition: D,
): Deno.UnsafeFnPointer<D> {
  // The address is dlsym's for the function this definition describes.
  return new Deno.UnsafeFnPointer(
    pointer as Deno.PointerObject<NoInfer<Omit<D, "nonblocking">>>,
    definition,
  );
}

function bindAll(pointers: Pointers) {
  return {
    openat: bind(pointers.openat, FUNCTIONS.openat),
    close: bind(pointers.close, FUNCTIONS.close),
    readlink: bind(pointers.readlink, FUNCTIONS.readlink),
    statx: bind(pointers.statx, FUNCTIONS.statx),
    mkdirat: bind(pointers.mkdirat, FUNCTIONS.mkdirat),
    read: bind(pointers.read, FUNCTIONS.read),
    write: bind(pointers.write, FUNCTIONS.write),
    readOnWorker: bind(pointers.read, { ...FUNCTIONS.read, nonblocking: true }),
    writeOnWorker: bind(pointers.write, { ...FUNCTIONS.write, nonblocking: true }),
    strerror: bind(pointers.strerror, FUNCTIONS.strerror),
    errnoLocation: bind(pointers.__errno_location, FUNCTIONS.__errno_location),
  };
}

/** A failed call: `errno` for the caller to branch on, the C library's text as the message. */
export class LibcError extends Error {
  override readonly name = "LibcError";
  constructor(readonly syscall: string, readonly errno: number, message: string) {
    super(message);
  }
}

export type FileType = "file" | "directory" | "symlink" | "other";

export interface FileStatus {
  readonly type: FileType;
  readonly size: number;
  readonly links: number;
}

export interface OpenFlags {
  readonly O_RDONLY: number;
  readonly O_WRONLY: number;
  readonly O_CREAT: number;
  readonly O_TRUNC: number;
  readonly O_NONBLOCK: number;
  readonly O_DIRECTORY: number;
  readonly O_NOFOLLOW: number;
  readonly O_CLOEXEC: number;
  readonly O_PATH: number;
}

export class Libc {
  readonly flags: OpenFlags;
  readonly #calls: ReturnType<typeof bindAll>;
  readonly #errno: Deno.UnsafePointerView;
  /** Calls on this thread run one at a time, so one buffer serves every `readlink`, one `statx`. */
  readonly #pathBuffer = new Uint8Array(PATH_MAX);
  readonly #statusBuffer = new Uint8Array(STATX_SIZE_BYTES);
  readonly #statusView = new DataView(this.#statusBuffer.buffer);

  constructor(pointers: Pointers, arch: keyof typeof ARCH_FLAGS) {
    this.#calls = bindAll(pointers);
    const errno = this.#calls.errnoLocation.call();
    if (errno === null) throw new Error("The C library gave no errno location");
    this.#errno = new Deno.UnsafePointerView(errno);
    this.flags = {
      O_RDONLY: 0,
      O_WRONLY: 0o1,
      O_CREAT: 0o100,
      O_TRUNC: 0o1000,
      O_NONBLOCK: 0o4000,
      O_CLOEXEC: 0o2000000,
      O_PATH: 0o10000000,
      ...ARCH_FLAGS[arch],
    };
  }

  /** A new descriptor for `path`, relative to `dir` (a descriptor, or `AT_FDCWD`). */
  openat(dir: number, path: string, flags: number, mode = 0): number {
    return this.#check("openat", this.#calls.openat.call(dir, cString(path), flags, mode));
  }

  close(fd: number): void {
    this.#calls.close.call(fd);
  }

  mkdirat(dir: number, name: string, mode: number): void {
    this.#check("mkdirat", this.#calls.mkdirat.call(dir, cString(name), mode));
  }

  /** Where the kernel says the file held by `fd` is now (`/proc/self/fd/N`). */
  pathOf(fd: number): string {
    const buffer = this.#pathBuffer;
    const length = this.#check(
      "readlink",
      Number(this.#calls.readlink.call(cString(`/proc/self/fd/${fd}`), buffer, BigInt(PATH_MAX))),
    );
    // A full buffer may be a cut path: refuse it rather than judge a prefix.
    if (length === PATH_MAX) throw new LibcError("readlink", ENAMETOOLONG, "File name too long");
    return decoder.decode(buffer.subarray(0, length));
  }

  /** The status of the file held by `fd`, or of `name` under it, not following a symlink. */
  status(fd: number, name = ""): FileStatus {
    const buffer = this.#statusBuffer;
    const flags = name === "" ? AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW : AT_SYMLINK_NOFOLLOW;
    this.#check("statx", this.#calls.statx.call(fd, cString(name), flags, STATX_MASK, buffer));
    const view = this.#statusView;
    return {
      type: fileTypeOf(view.getUint16(28, true)),
      links: view.getUint32(16, true),
      size: Number(view.getBigUint64(40, true)),
    };
  }

  /**
   * Reads into `into`; 0 at the end of the file. A read of one byte runs here: it is the probe
   * for the end after a file's expected size, answered from the page cache, and a hop to a worker
   * would cost more than it.
   */
  async read(fd: number, into: Uint8Array): Promise<number> {
    if (into.length <= 1) {
      return this.#check("read", Number(this.#calls.read.call(fd, into, BigInt(into.length))));
    }
    const count = Number(await this.#calls.readOnWorker.call(fd, into, BigInt(into.length)));
    if (count >= 0) return count;
    return this.#check("read", Number(this.#calls.read.call(fd, into, BigInt(into.length))));
  }

  /** Writes some of `bytes`; the count written. */
  async write(fd: number, bytes: Uint8Array): Promise<number> {
    const count = Number(await this.#calls.writeOnWorker.call(fd, bytes, BigInt(bytes.length)));
    if (count >= 0) return count;
    return this.#check("write", Number(this.#calls.write.call(fd, bytes, BigInt(bytes.length))));
  }

  #check(syscall: string, result: number): number {
    if (result >= 0) return result;
    const errno = this.#errno.getInt32();
    const text = this.#calls.strerror.call(errno);
    const message = text === null ? `error ${errno}` : Deno.UnsafePointerView.getCString(text);
    throw new LibcError(syscall, errno, message);
  }
}

/** The type a `st_mode` (or `stx_mode`) tells. */
export function fileTypeOf(mode: number): FileType {
  const format = mode & S_IFMT;
  if (format === 0o100000) return "file";
  if (format === 0o040000) return "directory";
  if (format === 0o120000) return "symlink";
  return "other";
}

function cString(text: string): Uint8Array<ArrayBuffer> {
  // A NUL inside would silently cut the path short: name something else than was checked.
  if (text.includes("\0")) throw new TypeError(`The path "${text}" contains a NUL character`);
  return encoder.encode(`${text}\0`);
}

let loaded: { readonly libc: Libc | undefined } | undefined;

/** The C library, or `undefined` where it cannot be used (see the module comment). */
export function loadLibc(): Libc | undefined {
  loaded ??= { libc: tryLoad() };
  return loaded.libc;
}

/**
 * The architecture whose flags apply, where this runtime can use libc: a Linux build of Deno
 * linked against glibc (`deno` and a `deno compile` binary alike), which holds `libc.so.6` from
 * start-up (see `functionPointers`).
 */
export function libcArch(
  build: Pick<typeof Deno.build, "os" | "arch" | "env">,
): keyof typeof ARCH_FLAGS | undefined {
  if (build.os !== "linux" || build.env !== "gnu" || !(build.arch in ARCH_FLAGS)) return undefined;
  return build.arch;
}

function tryLoad(): Libc | undefined {
  const arch = libcArch(Deno.build);
  if (arch === undefined) return undefined;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return undefined;
    const libc = new Libc(functionPointers(), arch);
    // Without /proc there is no way to ask what a descriptor holds.
    const root = libc.openat(AT_FDCWD, "/", libc.flags.O_PATH | libc.flags.O_CLOEXEC);
    try {
      return libc.pathOf(root) === "/" ? libc : undefined;
    } finally {
      libc.close(root);
    }
  } catch {
    // No glibc (musl, say), a missing symbol, or no /proc: the fallback takes over.
    return undefined;
  }
}

/**
 * The addresses of the functions. The library handle is closed at once: an open one would be a
 * resource held for the life of the process (test sanitizers report it). The addresses stay
 * valid because this `libc.so.6` is the one the runtime was started with (`libcArch` admits only
 * glibc builds, which link it): `dlopen` hands back that loaded object with one more reference,
 * `dlclose` takes the reference away, and glibc never unloads what was loaded at start-up.
 */
function functionPointers(): Pointers {
  const pointer = { type: "pointer" } as const;
  const library = Deno.dlopen(
    "libc.so.6",
    {
      openat: pointer,
      close: pointer,
      readlink: pointer,
      statx: pointer,
      mkdirat: pointer,
      read: pointer,
      write: pointer,
      strerror: pointer,
      __errno_location: pointer,
    } satisfies Record<Name, Deno.ForeignStatic>,
  );
  try {
    const address = (name: Name): Deno.PointerObject => {
      const found = library.symbols[name];
      if (found === null) throw new Error(`The C library has no "${name}"`);
      return found;
    };
    return {
      openat: address("openat"),
      close: address("close"),
      readlink: address("readlink"),
      statx: address("statx"),
      mkdirat: address("mkdirat"),
      read: address("read"),
      write: address("write"),
      strerror: address("strerror"),
      __errno_location: address("__errno_location"),
    };
  } finally {
    library.close();
  }
}
