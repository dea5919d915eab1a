/**
 * Processes in a group of their own, and their end: everything llama-agent starts that may start
 * children of its own (hook commands, local shell commands, MCP servers) runs as the leader of a
 * new process group, so that stopping it stops the children too and no orphan outlives it.
 */

import type { GroupChild, GroupCommand, SpawnOptions } from "./group_child.ts";
import { signalNumber } from "./libc.ts";
import { posixSpawner, spawnPath } from "./spawn_path.ts";

const GROUP_POLL_MS = 20;

/**
 * Starts `command` as the leader of a new process group, on the path chosen for this process
 * (spawn_path.ts): posix_spawn through FFI, or Deno.Command through setsid(1).
 */
export function spawnInOwnGroup(command: GroupCommand, options: SpawnOptions): GroupChild {
  return posixSpawner()?.spawn(command, options) ?? spawnWithDeno(command, options);
}

/**
 * Where the `setsid` program is, once found (null: there is none, as on macOS). Starting the
 * child through it gives it a session and process group of its own while Deno spawns it with
 * posix_spawn. Deno's own `detached` calls setsid() in a pre-exec hook, which makes it fork the
 * whole agent instead: with a model in memory that costs tens of milliseconds per hook and
 * copy-on-write faults in the agent afterwards.
 */
let setsidProgram: string | null | undefined;
const SETSID_CANDIDATES = ["/usr/bin/setsid", "/bin/setsid"];

/** The setsid program spawns go through: a path, null for none (the `detached` fallback), or
 * undefined before the first spawn. */
export function setsidInUse(): string | null | undefined {
  return setsidProgram;
}

/**
 * The fallback path, and the one for a child that must not keep the agent's event loop alive
 * (the orphan guard's supervisor, which is unref'd): a Deno.ChildProcess in a group of its own.
 */
export function spawnWithDeno(command: GroupCommand, options: SpawnOptions): Deno.ChildProcess {
  const common = {
    cwd: options.cwd,
    env: { ...options.env },
    clearEnv: true,
    stdin: options.stdin,
    stdout: options.output ?? "piped",
    stderr: options.output ?? "piped",
  } as const;
  const candidates = setsidProgram === undefined
    ? SETSID_CANDIDATES
    : setsidProgram === null
    ? []
    : [setsidProgram];
  for (const setsid of candidates) {
    try {
      // setsid(1) does not fork when its caller is no group leader (a freshly spawned child
      // never is), so the child's pid is the new group's id, as with `detached`.
      const child = new Deno.Command(setsid, {
        ...common,
        args: [command.program, ...command.args],
      })
        .spawn();
      setsidProgram = setsid;
      return child;
    } catch (error) {
      // NotFound is also what a missing cwd gives: only a missing setsid means "no setsid".
      if (!(error instanceof Deno.errors.NotFound) || exists(setsid)) throw error;
    }
  }
  setsidProgram = null;
  return new Deno.Command(command.program, { ...common, args: [...command.args], detached: true })
    .spawn();
}

/**
 * setsid(1) reports a program it cannot execute with exit 126/127 and this line: the same
 * failure Deno reports at spawn without it, so it is one here too.
 */
export function setsidExecFailure(code: number, stderr: string): string | undefined {
  if ((code !== 126 && code !== 127) || spawnPath().kind !== "fallback") return undefined;
  const match = /^setsid: failed to execute [^:]*: (.*)\n?$/.exec(stderr);
  return match?.[1];
}

/**
 * SIGTERM to the whole group, then SIGKILL once the grace has passed while any member remains.
 * SIGCONT goes with SIGTERM so a stopped process can act on it, and doubles as the liveness
 * probe: sending it to an empty group fails with ESRCH.
 */
export async function terminateGroup(
  group: number,
  graceMs: number,
  leaderExited: Promise<unknown>,
  /**
   * Signals the leader itself, for a leader not yet reaped: right after the spawn, setsid(1) may
   * not have made the group yet, and a signal to the group then reaches nobody.
   */
  signalLeader?: (signal: Deno.Signal) => void,
) {
  const toLeader = (signal: Deno.Signal) => {
    try {
      signalLeader?.(signal);
      return signalLeader !== undefined;
    } catch {
      return false;
    }
  };
  if (!signalGroup(group, "SIGTERM") && !toLeader("SIGTERM")) return;
  signalGroup(group, "SIGCONT");
  let leaderGone = false;
  leaderExited.then(() => leaderGone = true, () => leaderGone = true);
  const deadline = performance.now() + graceMs;
  while (performance.now() < deadline) {
    await delay(Math.min(GROUP_POLL_MS, Math.max(0, deadline - performance.now()))).promise;
    // Members other than the leader may be zombies until reparented and reaped; once the
    // leader is gone, the group answering the probe still means "maybe alive", so keep polling.
    if (leaderGone && !signalGroup(group, "SIGCONT")) return;
  }
  if (!signalGroup(group, "SIGKILL") && !leaderGone) toLeader("SIGKILL");
}

/**
 * Whether the signal reached at least one member of the group. Through the C library's kill()
 * where the posix_spawn spawner is in use: a group already gone (every reap after a hook's exit)
 * is then -1, where Deno.kill builds and throws an error for it.
 */
export function signalGroup(group: number, signal: Deno.Signal): boolean {
  const libc = posixSpawner()?.libc;
  const number = libc === undefined ? undefined : signalNumber(libc.flavor, signal);
  if (libc !== undefined && number !== undefined) return libc.symbols.kill(-group, number) === 0;
  try {
    Deno.kill(-group, signal);
    return true;
  } catch {
    return false;
  }
}

export function delay(ms: number): { promise: Promise<void>; cancel: () => void } {
  let id: ReturnType<typeof setTimeout> | undefined;
  let resolveNow: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    resolveNow = resolve;
    id = setTimeout(resolve, ms);
  });
  return {
    promise,
    cancel: () => {
      clearTimeout(id);
      resolveNow();
    },
  };
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
