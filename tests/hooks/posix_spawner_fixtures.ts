/** What the posix_spawn spawner's tests share: the spawner itself, a shell spawn, its output. */
import type { GroupChild, SpawnOptions } from "../../src/os/process/group_child.ts";
import { chooseSpawnPath } from "../../src/os/process/spawn_path.ts";

// Always the FFI path, whatever LLAMA_AGENT_SPAWN says: the fallback has tests of its own.
export const { spawner } = chooseSpawnPath(undefined);
/** For `Deno.test`'s `ignore`: a host where the FFI path cannot be chosen. */
export const noSpawner = spawner === undefined;
export const PATH = "/usr/bin:/bin";

/** `/bin/sh -c script` in `/`, with PATH only and no stdin unless `options` say otherwise. */
export function spawn(script: string, options: Partial<SpawnOptions> = {}): GroupChild {
  return spawner!.spawn(
    { program: "/bin/sh", args: ["-c", script] },
    { cwd: "/", env: { PATH }, stdin: "null", ...options },
  );
}

export async function outputOf(child: GroupChild) {
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { status, stdout, stderr };
}

/** The spawner's own count: /proc/self/fd would count what tests running beside this open. */
export function openDescriptors(): number {
  return spawner!.descriptorsOpen;
}
