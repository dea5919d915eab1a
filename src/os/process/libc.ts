/**
 * The C library calls the posix_spawn spawner makes, through Deno's FFI, and the constants that
 * differ between the systems it runs on. Opening it is the only step that can fail for reasons
 * of the host (no ffi permission, no glibc, an old one): it says why as a value, and the agent
 * then spawns through Deno.Command.
 */

/** What differs between Linux (glibc) and macOS for the calls below. */
export interface LibcFlavor {
  /** POSIX_SPAWN_SETSID (Linux) or POSIX_SPAWN_SETPGROUP (macOS, whose setsid flag is newer). */
  readonly groupFlag: { readonly name: string; readonly value: number };
  /** Extra posix_spawn flags: macOS closes every descriptor not named by a file action. */
  readonly extraSpawnFlags: number;
  /** Signal numbers to names, for exit statuses. */
  readonly signalNames: Readonly<Record<number, Deno.Signal>>;
}

const POSIX_SPAWN_SETSIGDEF = 0x04;
const POSIX_SPAWN_SETSIGMASK = 0x08;
export const SIGPIPE = 13;
export const O_RDONLY = 0;
export const O_WRONLY = 1;

const SHARED_SIGNALS: Record<number, Deno.Signal> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  4: "SIGILL",
  5: "SIGTRAP",
  6: "SIGABRT",
  8: "SIGFPE",
  9: "SIGKILL",
  11: "SIGSEGV",
  13: "SIGPIPE",
  14: "SIGALRM",
  15: "SIGTERM",
  24: "SIGXCPU",
  25: "SIGXFSZ",
  26: "SIGVTALRM",
  27: "SIGPROF",
  28: "SIGWINCH",
};

const LINUX: LibcFlavor = {
  groupFlag: { name: "POSIX_SPAWN_SETSID", value: 0x80 },
  extraSpawnFlags: POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK,
  signalNames: {
    ...SHARED_SIGNALS,
    7: "SIGBUS",
    10: "SIGUSR1",
    12: "SIGUSR2",
    16: "SIGSTKFLT",
    17: "SIGCHLD",
    18: "SIGCONT",
    19: "SIGSTOP",
    20: "SIGTSTP",
    21: "SIGTTIN",
    22: "SIGTTOU",
    23: "SIGURG",
    29: "SIGIO",
    30: "SIGPWR",
    31: "SIGSYS",
  },
};

const DARWIN: LibcFlavor = {
  groupFlag: { name: "POSIX_SPAWN_SETPGROUP", value: 0x02 },
  // POSIX_SPAWN_CLOEXEC_DEFAULT: macOS has no pipe2, so a pipe is briefly inheritable.
  extraSpawnFlags: POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | 0x4000,
  signalNames: {
    ...SHARED_SIGNALS,
    7: "SIGEMT",
    10: "SIGBUS",
    12: "SIGSYS",
    16: "SIGURG",
    17: "SIGSTOP",
    18: "SIGTSTP",
    19: "SIGCONT",
    20: "SIGCHLD",
    21: "SIGTTIN",
    22: "SIGTTOU",
    23: "SIGIO",
    29: "SIGINFO",
    30: "SIGUSR1",
    31: "SIGUSR2",
  },
};

/** One table for both systems: what only one of them has is optional (null on the other). */
const SYMBOLS = {
  posix_spawn: {
    parameters: ["buffer", "buffer", "buffer", "buffer", "buffer", "buffer"],
    result: "i32",
  },
  posix_spawnattr_init: { parameters: ["buffer"], result: "i32" },
  posix_spawnattr_destroy: { parameters: ["buffer"], result: "i32" },
  posix_spawnattr_setflags: { parameters: ["buffer", "i16"], result: "i32" },
  posix_spawnattr_setsigmask: { parameters: ["buffer", "buffer"], result: "i32" },
  posix_spawnattr_setsigdefault: { parameters: ["buffer", "buffer"], result: "i32" },
  posix_spawn_file_actions_init: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_destroy: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_adddup2: { parameters: ["buffer", "i32", "i32"], result: "i32" },
  posix_spawn_file_actions_addopen: {
    parameters: ["buffer", "i32", "buffer", "i32", "u32"],
    result: "i32",
  },
  posix_spawn_file_actions_addchdir_np: {
    parameters: ["buffer", "buffer"],
    result: "i32",
    optional: true,
  },
  sigemptyset: { parameters: ["buffer"], result: "i32" },
  sigaddset: { parameters: ["buffer", "i32"], result: "i32" },
  pipe2: { parameters: ["buffer", "i32"], result: "i32", optional: true },
  pipe: { parameters: ["buffer"], result: "i32" },
  fcntl: { parameters: ["i32", "i32", "i32"], result: "i32" },
  // fcntl is variadic: on Apple arm64 its third argument goes on the stack, after the eight
  // register arguments, so this declaration pads to put it there (pipe_pair.ts checks it took).
  fcntl_stack_arg: {
    name: "fcntl",
    parameters: ["i32", "i32", "i64", "i64", "i64", "i64", "i64", "i64", "i32"],
    result: "i32",
  },
  access: { parameters: ["buffer", "i32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
  // Zero timeout only: a quick "ready now?" on the event loop's thread.
  poll: { parameters: ["buffer", "usize", "i32"], result: "i32" },
  // The same call on a worker thread: the wait for any of the descriptors.
  poll_wait: {
    name: "poll",
    parameters: ["buffer", "usize", "i32"],
    result: "i32",
    nonblocking: true,
  },
  waitpid: { parameters: ["i32", "buffer", "i32"], result: "i32", nonblocking: true },
  // With WNOHANG, once a pidfd said the child exited: no worker thread per child.
  waitpid_now: { name: "waitpid", parameters: ["i32", "buffer", "i32"], result: "i32" },
  // Linux 5.3 and glibc 2.36; where either is missing, each child is waited for on a thread.
  pidfd_open: { parameters: ["i32", "u32"], result: "i32", optional: true },
  // A signal to a group, where a group already gone is -1 (ESRCH), not a thrown error.
  kill: { parameters: ["i32", "i32"], result: "i32" },
  strerror: { parameters: ["i32"], result: "pointer" },
  __errno_location: { parameters: [], result: "pointer", optional: true },
  __error: { parameters: [], result: "pointer", optional: true },
  gnu_get_libc_version: { parameters: [], result: "pointer", optional: true },
} as const;

export type LibcSymbols = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

export interface Libc {
  readonly symbols: LibcSymbols;
  readonly flavor: LibcFlavor;
  /** A description for `--version --verbose`: which C library, which version. */
  readonly description: string;
}

const signalNumbers = new WeakMap<LibcFlavor, ReadonlyMap<Deno.Signal, number>>();

/** A signal's number on this system; undefined for one it does not have. */
export function signalNumber(flavor: LibcFlavor, signal: Deno.Signal): number | undefined {
  let numbers = signalNumbers.get(flavor);
  if (numbers === undefined) {
    numbers = new Map(
      Object.entries(flavor.signalNames).map(([number, name]) => [name, Number(number)]),
    );
    signalNumbers.set(flavor, numbers);
  }
  return numbers.get(signal);
}

/** glibc 2.29 is the first with posix_spawn_file_actions_addchdir_np (2.26 brought SETSID). */
const GLIBC_MINIMUM = [2, 29] as const;

type Opened = { readonly libc: Libc } | { readonly failure: string };
let opened: Opened | undefined;

/** The C library, opened once per process (a library handle is never closed). */
export function openLibc(): Opened {
  opened ??= open();
  return opened;
}

function open(): Opened {
  const os = Deno.build.os;
  if (os !== "linux" && os !== "darwin") return { failure: `no posix_spawn spawner on ${os}` };
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") {
    return { failure: "no ffi permission" };
  }
  let description: string;
  let symbols: LibcSymbols;
  try {
    if (os === "linux") {
      // Opened once: what glibc alone has is optional in the table, so another C library
      // (musl has no gnu_get_libc_version, and mostly no libc.so.6) is told apart after.
      symbols = Deno.dlopen("libc.so.6", SYMBOLS).symbols;
      const version = glibcVersion(symbols);
      if (version === undefined) return { failure: "the C library is not glibc" };
      const [major = 0, minor = 0] = version.split(".").map(Number);
      if (major < GLIBC_MINIMUM[0] || (major === GLIBC_MINIMUM[0] && minor < GLIBC_MINIMUM[1])) {
        return { failure: `glibc ${version} is older than ${GLIBC_MINIMUM.join(".")}` };
      }
      description = `glibc ${version}`;
    } else {
      description = "libSystem";
      symbols = Deno.dlopen("/usr/lib/libSystem.B.dylib", SYMBOLS).symbols;
    }
  } catch (error) {
    return {
      failure: `cannot load the C library: ${error instanceof Error ? error.message : error}`,
    };
  }
  return { libc: { symbols, flavor: os === "linux" ? LINUX : DARWIN, description } };
}

/** glibc's version, or undefined for another C library. */
function glibcVersion(symbols: LibcSymbols): string | undefined {
  const pointer = symbols.gnu_get_libc_version?.() ?? null;
  return pointer === null ? undefined : Deno.UnsafePointerView.getCString(pointer);
}

/** errno of the last call made on this thread. */
export function lastErrno(symbols: LibcSymbols): number {
  const pointer = (symbols.__errno_location ?? symbols.__error)?.() ?? null;
  return pointer === null ? 0 : new Deno.UnsafePointerView(pointer).getInt32();
}

/** The system's text for an errno value ("No such file or directory"). */
export function errnoText(symbols: LibcSymbols, errno: number): string {
  const pointer = symbols.strerror(errno);
  return pointer === null ? `error ${errno}` : Deno.UnsafePointerView.getCString(pointer);
}
