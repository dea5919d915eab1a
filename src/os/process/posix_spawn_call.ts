/**
 * One posix_spawn(3) call through FFI: the child gets its own session (Linux) or process group
 * (macOS) before it execs, its working directory, exactly the environment given, an empty signal
 * mask and SIGPIPE back at its default (the agent ignores it, and a child must not inherit that).
 * The program is found on the child's PATH as execvp finds it, since the agent's own PATH is not
 * the child's.
 */
import { errnoText, type Libc, O_RDONLY, O_WRONLY, SIGPIPE } from "./libc.ts";

/** Where each of the child's standard descriptors comes from: a pipe end, or /dev/null. */
export type ChildFd = { readonly pipe: number } | "null";

export interface SpawnCall {
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdio: readonly [stdin: ChildFd, stdout: ChildFd, stderr: ChildFd];
}

const ENOENT = 2;
const ENOEXEC = 8;
const EACCES = 13;
const ENOTDIR = 20;
const X_OK = 1;
const F_OK = 0;
/** execvp's search path when the environment has no PATH (glibc's and macOS's default). */
const DEFAULT_PATH = "/bin:/usr/bin";
/** posix_spawnattr_t and posix_spawn_file_actions_t are at most a few hundred bytes (glibc). */
const OPAQUE_BYTES = 1024;
const SIGSET_BYTES = 128;
const encoder = new TextEncoder();
const DEV_NULL = cString("/dev/null");

/** The signal sets every spawn passes, made once per C library: the same for each child. */
const signalSets = new WeakMap<
  Libc,
  { readonly emptyMask: Uint8Array; readonly defaults: Uint8Array }
>();

function signalSetsOf(libc: Libc) {
  let sets = signalSets.get(libc);
  if (sets === undefined) {
    const { symbols } = libc;
    const emptyMask = new Uint8Array(SIGSET_BYTES);
    symbols.sigemptyset(emptyMask);
    const defaults = new Uint8Array(SIGSET_BYTES);
    symbols.sigemptyset(defaults);
    symbols.sigaddset(defaults, SIGPIPE);
    sets = { emptyMask, defaults };
    signalSets.set(libc, sets);
  }
  return sets;
}

/** Spawns and returns the pid; throws NotFound, PermissionDenied or an Error naming the cause. */
export function posixSpawn(libc: Libc, call: SpawnCall): number {
  const candidates = programCandidates(libc, call);
  let denied: number | undefined;
  for (const path of candidates) {
    const result = spawnOnce(libc, path, [call.program, ...call.args], call);
    if (typeof result === "number") return result;
    // execvp goes on past a file it may not run; so does this, and reports EACCES at the end.
    if (result.errno === EACCES && candidates.length > 1) {
      denied = EACCES;
      continue;
    }
    if (result.errno === ENOEXEC) {
      // A script without a #! line: execvp hands it to the shell, and so does this.
      const viaShell = spawnOnce(libc, "/bin/sh", ["/bin/sh", path, ...call.args], call);
      if (typeof viaShell === "number") return viaShell;
    }
    throw spawnError(libc, result.errno, call);
  }
  throw spawnError(libc, denied ?? ENOENT, call);
}

/**
 * The paths to try, in execvp's order: the program itself when it names a path, else each PATH
 * entry that has an executable of that name (an empty entry is the working directory).
 */
function programCandidates(libc: Libc, call: SpawnCall): string[] {
  if (call.program.includes("/")) return [call.program];
  if (call.program === "") return [];
  const entries = (call.env.PATH ?? DEFAULT_PATH).split(":");
  const paths = entries.map((dir) => (dir === "" ? call.program : `${dir}/${call.program}`));
  const inCwd = (path: string) => (path.startsWith("/") ? path : `${call.cwd}/${path}`);
  const runnable = paths.filter((path) => access(libc, inCwd(path), X_OK));
  if (runnable.length > 0) return runnable;
  // None may be run: the first that exists gives the error (EACCES), or there is none (ENOENT).
  return paths.filter((path) => access(libc, inCwd(path), F_OK)).slice(0, 1);
}

function access(libc: Libc, path: string, mode: number): boolean {
  return libc.symbols.access(cString(path), mode) === 0;
}

function spawnOnce(
  libc: Libc,
  path: string,
  argv: readonly string[],
  call: SpawnCall,
): number | { errno: number } {
  const { symbols, flavor } = libc;
  const actions = new Uint8Array(OPAQUE_BYTES);
  const attributes = new Uint8Array(OPAQUE_BYTES);
  symbols.posix_spawn_file_actions_init(actions);
  symbols.posix_spawnattr_init(attributes);
  try {
    call.stdio.forEach((source, target) => {
      if (source === "null") {
        const mode = target === 0 ? O_RDONLY : O_WRONLY;
        symbols.posix_spawn_file_actions_addopen(actions, target, DEV_NULL, mode, 0);
      } else symbols.posix_spawn_file_actions_adddup2(actions, source.pipe, target);
    });
    const cwd = cString(call.cwd);
    symbols.posix_spawn_file_actions_addchdir_np!(actions, cwd);

    const { emptyMask, defaults } = signalSetsOf(libc);
    symbols.posix_spawnattr_setsigmask(attributes, emptyMask);
    symbols.posix_spawnattr_setsigdefault(attributes, defaults);
    symbols.posix_spawnattr_setflags(attributes, flavor.groupFlag.value | flavor.extraSpawnFlags);

    const envp = Object.entries(call.env).map(([name, value]) => `${name}=${value}`);
    const pid = new Int32Array(1);
    const errno = symbols.posix_spawn(
      pid,
      cString(path),
      actions,
      attributes,
      cStringArray(argv),
      cStringArray(envp),
    );
    return errno === 0 ? pid[0]! : { errno };
  } finally {
    symbols.posix_spawnattr_destroy(attributes);
    symbols.posix_spawn_file_actions_destroy(actions);
  }
}

function spawnError(libc: Libc, errno: number, call: SpawnCall): Error {
  const text = errnoText(libc.symbols, errno);
  if ((errno === ENOENT || errno === ENOTDIR) && !access(libc, call.cwd, X_OK)) {
    return new Deno.errors.NotFound(`No working directory "${call.cwd}": ${text}`);
  }
  if (errno === ENOENT || errno === ENOTDIR) return new Deno.errors.NotFound(text);
  if (errno === EACCES) return new Deno.errors.PermissionDenied(text);
  return new Error(text);
}

function cString(text: string): Uint8Array {
  return encoder.encode(`${text}\0`);
}

/**
 * A NULL-terminated array of pointers to C strings, with the strings in the same buffer after
 * it: passing the buffer keeps everything the pointers point to alive for the call.
 */
function cStringArray(texts: readonly string[]): Uint8Array {
  const strings = texts.map(cString);
  const tableBytes = (strings.length + 1) * 8;
  const block = new Uint8Array(tableBytes + strings.reduce((sum, bytes) => sum + bytes.length, 0));
  const table = new BigUint64Array(block.buffer, 0, strings.length + 1);
  const base = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(block)));
  let offset = tableBytes;
  strings.forEach((bytes, index) => {
    block.set(bytes, offset);
    table[index] = base + BigInt(offset);
    offset += bytes.length;
  });
  return block;
}
