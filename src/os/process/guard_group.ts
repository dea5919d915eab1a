/**
 * The process-wide orphan guard (see orphan_guard.ts): the program's entry point installs one,
 * and every spawner of a process group (the command runner, the MCP stdio transport) registers
 * its group with it for as long as the group may run. Process-wide because the guard is: one
 * supervisor per agent process, whatever started the group. Without one installed (unit tests,
 * library use), nothing is started and registering costs nothing.
 */
import type { GroupChild } from "./group_child.ts";
import type { OrphanGuard } from "./orphan_guard.ts";

let installed: OrphanGuard | undefined;

/** Makes `guard` the one that groups started from now on register with; returns the previous. */
export function installOrphanGuard(guard: OrphanGuard | undefined): OrphanGuard | undefined {
  const previous = installed;
  installed = guard;
  return previous;
}

/**
 * Spawns a process group with `spawn` under the guard: the supervisor is running before the
 * group exists, and the group is registered the moment `spawn` returns. With `release`, to call
 * once the group is over. A spawn that throws registers nothing.
 */
export function spawnGuarded(
  spawn: () => GroupChild,
): { readonly child: GroupChild; readonly release: () => void } {
  installed?.start();
  const child = spawn();
  return { child, release: guardGroup(child.pid) };
}

/**
 * Registers a group just spawned, and returns its release: call it once the group is over (its
 * leader reaped and the group ended), and the guard forgets it. Releasing twice is harmless.
 */
export function guardGroup(group: number): () => void {
  const guard = installed;
  if (guard === undefined) return () => {};
  guard.register(group);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    guard.release(group);
  };
}
