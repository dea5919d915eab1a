/**
 * The orphan guard: one supervisor process per agent that ends the agent's process groups when
 * the agent dies, however it dies. Nothing runs in the agent after SIGKILL, so the death is seen
 * from outside: the supervisor waits on a pipe from the agent that the agent never writes to,
 * and that the kernel closes when the agent dies. The groups are in a log file the agent appends
 * `+<group>` to when it starts a group and `-<group>` once that group is over. At end of file on
 * the pipe, the supervisor replays the log, sends SIGTERM to every group still registered,
 * SIGKILL after a grace, and exits. After a normal exit the agent has ended its groups itself,
 * so the supervisor finds none left and exits at once, silently.
 *
 * Why a log file and not lines on the pipe: Deno writes to a pipe only asynchronously, and the
 * supervisor would wake for every line; measured, that costs a spawn about twice what two
 * synchronous appends to a file do (`bench/orphan_guard.ts`), and with the file the supervisor
 * sleeps until the agent dies. The supervisor removes the file as soon as it has opened it, so
 * nothing is left on disk however either of them ends later; a file whose agent died before its
 * supervisor started is removed by the next guard to start in that directory.
 *
 * Why a supervisor and not `PR_SET_PDEATHSIG`: that needs code between fork and exec (another
 * exec per spawn, e.g. `setpriv`, which a posix_spawn spawner cannot avoid), it kills only the
 * group's leader and not what the leader started, it fires when the spawning *thread* exits, and
 * macOS has no such thing. The supervisor is plain POSIX `sh`, so it works on macOS too.
 *
 * The supervisor runs in a session of its own, so a signal to the agent's process group or
 * terminal does not reach it, and it ignores SIGINT, SIGTERM and SIGHUP: only the pipe ends it.
 * The agent's end of the pipe is close-on-exec (as every pipe Deno creates), so no command holds
 * it open after the agent is gone.
 */
import { errorMessage } from "../../error.ts";
import { spawnWithDeno } from "./process_group.ts";
import { homeStateDir, stateHome } from "../../state_home.ts";

export interface OrphanGuard {
  /**
   * Starts the supervisor if it is not running yet: called before a group is spawned, so that
   * the only unguarded moment of a group is between its spawn and its `register`, not the
   * supervisor's start as well.
   */
  start(): void;
  /** From now on, `group` is ended if the agent dies. Starts the supervisor if need be. */
  register(group: number): void;
  /** `group` is over (its leader reaped, the group ended): never signal it again. */
  release(group: number): void;
  /** The supervisor's pid (also its group's), once started. */
  readonly supervisorPid: number | undefined;
  /**
   * Closes the pipe as the agent's death would: the supervisor ends the groups still
   * registered, then exits. Resolves with its exit status (undefined if it never started).
   */
  close(): Promise<Deno.CommandStatus | undefined>;
}

export interface OrphanGuardOptions {
  /**
   * A directory the agent may write, for the log file (removed at once by the supervisor). Made
   * 0700 if missing; a relative one is taken from the agent's working directory.
   */
  readonly dir: string;
  /** Where the log goes when `dir` cannot be written (read-only, or not the agent's to write). */
  readonly fallbackDir?: string;
  /** Seconds between SIGTERM and SIGKILL once the agent is gone (whole seconds: POSIX `sleep`). */
  readonly graceSeconds?: number;
  /** Told, once, that the guard no longer works (it could not start, or its process ended). */
  readonly onFailure?: (message: string) => void;
}

export const DEFAULT_ORPHAN_GRACE_SECONDS = 1;

/** The supervisor's `$0`: what `ps` shows for it. */
export const SUPERVISOR_NAME = "llama-agent-orphan-guard";

/**
 * The supervisor, run as `sh -c SUPERVISOR_SCRIPT NAME GRACE LOG`. Whatever arrives on stdin is
 * ignored: only its end counts. A log line that is not `+N` or `-N` with N a group id above 1 is
 * ignored: `kill -- -1` would signal every process the user owns, and `-0` the supervisor's own
 * group. When a leader has not made its group yet (setsid(1) not yet run), the group signal
 * finds nobody, so the leader is signalled by its pid instead. A registered group is one the
 * agent has not reaped yet or has just ended, so its id cannot have been reused.
 */
export const SUPERVISOR_SCRIPT = `trap '' INT TERM HUP
exec 3<"$2" || exit 1
rm -f -- "$2"
while read -r _; do :; done
groups=' '
while IFS= read -r line <&3; do
  group=\${line#?}
  case $group in ''|0*|1|*[!0-9]*) continue ;; esac
  case $line in
    +*) groups="$groups$group " ;;
    -*) case $groups in *" $group "*) groups="\${groups%%" $group "*} \${groups#*" $group "}" ;; esac ;;
  esac
done
[ "$groups" = ' ' ] && exit 0
for group in $groups; do
  kill -TERM -"$group" 2>/dev/null || kill -TERM "$group" 2>/dev/null
  kill -CONT -"$group" 2>/dev/null
done
sleep "$1"
for group in $groups; do
  kill -KILL -"$group" 2>/dev/null || kill -KILL "$group" 2>/dev/null
done
exit 0
`;

/** Past this size the log is rewritten as the groups still registered. */
export const LOG_COMPACT_BYTES = 64 * 1024;

/**
 * A log this old was never opened by its supervisor (which removes it at once): its agent died
 * between creating it and starting the supervisor. The next guard to start there removes it.
 */
export const STALE_LOG_MS = 10 * 60_000;

const LOG_PREFIX = "orphan-guard-";
const DIR_MODE = 0o700;

/**
 * The program's log directory: `$XDG_STATE_HOME/llama-agent`, with `$HOME/.local/state` as the
 * state home when that is unset or relative (which the XDG specification says to ignore), and as
 * the fallback when it is set; undefined without either.
 */
export function orphanGuardDirs(
  env: (name: string) => string | undefined,
): Pick<OrphanGuardOptions, "dir" | "fallbackDir"> | undefined {
  const state = stateHome(env);
  if (state === undefined) return undefined;
  const dir = `${state}/llama-agent`;
  const home = homeStateDir(env);
  const fromHome = home === undefined ? undefined : `${home}/llama-agent`;
  return fromHome === undefined || fromHome === dir ? { dir } : { dir, fallbackDir: fromHome };
}

const ENCODER = new TextEncoder();
const LOST = "commands started from now on may outlive the agent if it is killed";

export function createOrphanGuard(options: OrphanGuardOptions): OrphanGuard {
  return new SupervisorGuard(options);
}

class SupervisorGuard implements OrphanGuard {
  #state: "idle" | "running" | "failed" | "closed" = "idle";
  #child: Deno.ChildProcess | undefined;
  #log: Deno.FsFile | undefined;
  #logPath: string | undefined;
  #logBytes = 0;
  /** Registrations not yet released, with how many times each was made. */
  readonly #live = new Map<number, number>();

  constructor(private readonly options: OrphanGuardOptions) {}

  get supervisorPid(): number | undefined {
    return this.#child?.pid;
  }

  start(): void {
    if (this.#state === "idle") this.#start();
  }

  register(group: number): void {
    this.start();
    if (this.#state !== "running") return;
    this.#live.set(group, (this.#live.get(group) ?? 0) + 1);
    this.#append(`+${group}\n`);
  }

  release(group: number): void {
    if (this.#state !== "running") return;
    const count = this.#live.get(group);
    if (count === undefined) return;
    if (count > 1) this.#live.set(group, count - 1);
    else this.#live.delete(group);
    this.#append(`-${group}\n`);
    if (this.#logBytes > LOG_COMPACT_BYTES) this.#compact();
  }

  async close(): Promise<Deno.CommandStatus | undefined> {
    const wasRunning = this.#state === "running";
    this.#state = "closed";
    const child = this.#child;
    if (child === undefined) return undefined;
    child.ref();
    if (wasRunning) await child.stdin.close().catch(() => {});
    const status = await child.status;
    this.#dropLog();
    return status;
  }

  #start(): void {
    const grace = this.options.graceSeconds ?? DEFAULT_ORPHAN_GRACE_SECONDS;
    const { dir, fallbackDir } = this.options;
    const dirs = fallbackDir === undefined ? [dir] : [dir, fallbackDir];
    try {
      const logPath = this.#openLog(dirs);
      this.#child = spawnWithDeno(
        {
          program: "/bin/sh",
          args: ["-c", SUPERVISOR_SCRIPT, SUPERVISOR_NAME, String(grace), logPath],
        },
        // "/" so that it keeps no directory busy; PATH for `sleep`, and nothing of the agent's.
        { cwd: "/", env: { PATH: "/usr/bin:/bin" }, stdin: "piped", output: "null" },
      );
    } catch (error) {
      const where = dirs.map((dir) => `"${dir}"`).join(" or ");
      this.#fail(`Cannot start the orphan guard in ${where}: ${errorMessage(error)}`);
      return;
    }
    // The agent's exit never waits for it: the pipe closing is what it waits for.
    this.#child.unref();
    this.#state = "running";
    this.#child.status.then((status) => {
      const how = status.signal ? `signal ${status.signal}` : `exit code ${status.code}`;
      this.#fail(`The orphan guard's process ended (${how})`);
    });
  }

  /**
   * Creates and opens the log in the first of `dirs` where that works, and returns its path,
   * absolute (the supervisor runs in "/"); throws the last one's error.
   */
  #openLog(dirs: readonly string[]): string {
    let failure: unknown;
    // Joined by hand, not with node:path: main.ts loads this module before every command, and
    // the guard runs only where paths are POSIX.
    for (const dir of dirs.map((dir) => dir.startsWith("/") ? dir : `${Deno.cwd()}/${dir}`)) {
      try {
        Deno.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
        removeStaleLogs(dir);
        const path = Deno.makeTempFileSync({ dir, prefix: LOG_PREFIX });
        this.#logPath = path;
        this.#log = Deno.openSync(path, { write: true });
        return path;
      } catch (error) {
        this.#dropLog();
        failure = error;
      }
    }
    throw failure;
  }

  /** One synchronous write: a registration is on file before the spawner goes on. */
  #append(line: string): void {
    try {
      this.#logBytes += writeAll(this.#log!, ENCODER.encode(line));
    } catch (error) {
      this.#fail(`Cannot write the orphan guard's log: ${errorMessage(error)}`);
    }
  }

  /**
   * Rewrites the log as the live registrations. Written before the old tail is cut, so an agent
   * killed in between leaves every live group on file (and at worst old lines after them).
   */
  #compact(): void {
    const lines: string[] = [];
    for (const [group, count] of this.#live) {
      for (let i = 0; i < count; i++) lines.push(`+${group}\n`);
    }
    try {
      this.#log!.seekSync(0, Deno.SeekMode.Start);
      const bytes = writeAll(this.#log!, ENCODER.encode(lines.join("")));
      this.#log!.truncateSync(bytes);
      this.#logBytes = bytes;
    } catch (error) {
      this.#fail(`Cannot write the orphan guard's log: ${errorMessage(error)}`);
    }
  }

  #fail(message: string): void {
    if (this.#state === "failed" || this.#state === "closed") return;
    this.#state = "failed";
    // Killed, not sent end of file: at end of file it would end groups that still run, from a
    // log that no longer says what runs.
    try {
      this.#child?.kill("SIGKILL");
    } catch {
      // It has exited: that is the failure being reported.
    }
    this.#child?.stdin.close().catch(() => {});
    this.#dropLog();
    this.options.onFailure?.(`${message}: ${LOST}`);
  }

  /** The supervisor removes the file once it has it open; this covers one that never did. */
  #dropLog(): void {
    try {
      this.#log?.close();
    } catch {
      // Closed already.
    }
    this.#log = undefined;
    if (this.#logPath === undefined) return;
    try {
      Deno.removeSync(this.#logPath);
    } catch {
      // Removed already, as it should be.
    }
    this.#logPath = undefined;
  }
}

/** Removes the logs in `dir` older than `STALE_LOG_MS`; what cannot be read or removed stays. */
function removeStaleLogs(dir: string): void {
  const before = Date.now() - STALE_LOG_MS;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    // Not ours to list: the log can still go there.
    return;
  }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.startsWith(LOG_PREFIX)) continue;
    const path = `${dir}/${entry.name}`;
    try {
      const modified = Deno.lstatSync(path).mtime?.getTime();
      if (modified !== undefined && modified < before) Deno.removeSync(path);
    } catch {
      // Removed meanwhile, or not ours to remove.
    }
  }
}

function writeAll(file: Deno.FsFile, bytes: Uint8Array): number {
  let written = 0;
  while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
  return bytes.length;
}
