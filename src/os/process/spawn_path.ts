/**
 * How llama-agent starts a process in a group of its own, chosen once per process:
 * posix_spawn through FFI where the host allows it (Linux with glibc 2.29 or later, macOS,
 * and the ffi permission), else Deno.Command through setsid(1), or with `detached` where there is
 * no setsid(1). `LLAMA_AGENT_SPAWN=setsid` forces the second; `--version --verbose` says which.
 * The choice is made when this module loads: process_group.ts imports it, so whatever can spawn
 * has chosen by then.
 */
import { openLibc } from "./libc.ts";
import { makePipe, pipeFlagsHold } from "./pipe_pair.ts";
import { PosixSpawner } from "./posix_spawner.ts";

export const SPAWN_SETTING = "LLAMA_AGENT_SPAWN";

export type SpawnPath =
  /** posix_spawn through FFI, with the flag that gives the child its own session or group. */
  | { readonly kind: "posix_spawn"; readonly flag: string; readonly libc: string }
  /** Deno.Command through setsid(1), or with `detached` where there is no setsid(1). */
  | { readonly kind: "fallback"; readonly reason: string };

interface Choice {
  readonly path: SpawnPath;
  readonly spawner: PosixSpawner | undefined;
}

/**
 * Chosen as this module loads, once per process: before anything runs (a test's accounting of
 * open resources included, since the C library stays open), and the same for every spawn.
 */
const chosen: Choice = chooseSpawnPath(readSetting());

/** The path spawns take, chosen on the first call and kept. */
export function spawnPath(): SpawnPath {
  return chosen.path;
}

/** The FFI spawner, or undefined when spawns take the fallback. */
export function posixSpawner(): PosixSpawner | undefined {
  return chosen.spawner;
}

/** One line for `--version --verbose`. */
export function describeSpawnPath(path: SpawnPath = spawnPath()): string {
  return path.kind === "posix_spawn"
    ? `posix_spawn with ${path.flag} (${path.libc})`
    : `setsid(1), or Deno.Command with detached where there is none (${path.reason})`;
}

/** The choice for a value of LLAMA_AGENT_SPAWN: unset, "auto" or "posix_spawn", or "setsid". */
export function chooseSpawnPath(setting: string | undefined): Choice {
  const fallback = (reason: string): Choice => ({
    path: { kind: "fallback", reason },
    spawner: undefined,
  });
  if (setting === "setsid") return fallback(`${SPAWN_SETTING}=setsid`);
  if (setting !== undefined && !["", "auto", "posix_spawn"].includes(setting)) {
    return fallback(`${SPAWN_SETTING}="${setting}" is none of auto, posix_spawn, setsid`);
  }
  const opened = openLibc();
  if ("failure" in opened) return fallback(opened.failure);
  const { libc } = opened;
  if (libc.symbols.posix_spawn_file_actions_addchdir_np === null) {
    return fallback("the C library has no posix_spawn_file_actions_addchdir_np");
  }
  // A pipe a child could inherit would hold another child's output open, and a blocking end
  // would stall the agent: if the flags do not take (macOS's fcntl is declared by hand), the
  // FFI path is not safe here.
  let flagsHold: boolean;
  try {
    const [read, write] = makePipe(libc, 0);
    flagsHold = pipeFlagsHold(libc, read, true) && pipeFlagsHold(libc, write, false);
    for (const fd of [read, write]) libc.symbols.close(fd);
  } catch (error) {
    return fallback(error instanceof Error ? error.message : String(error));
  }
  if (!flagsHold) return fallback("pipe flags cannot be set through FFI here");
  return {
    path: { kind: "posix_spawn", flag: libc.flavor.groupFlag.name, libc: libc.description },
    spawner: new PosixSpawner(libc),
  };
}

function readSetting(): string | undefined {
  try {
    return Deno.env.get(SPAWN_SETTING);
  } catch {
    // No env permission: the default.
    return undefined;
  }
}
