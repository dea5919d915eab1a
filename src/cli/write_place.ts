/**
 * Where a command may write the files it writes into a project: the agent's allowed roots for
 * this launch (the launch directory and `$HOME`, which are also all the launcher lets it write)
 * and the project (`--cwd`). Paths start at the launch directory. The writes themselves go
 * through src/agent/files/confined_write.ts, which refuses a symlink that leads out of these.
 */
import { allowedRoots } from "../os/files/allowed_roots.ts";
import type { ConfinedPlace } from "../os/files/confined_file.ts";
import type { ConfinedWriteOptions } from "../agent/files/confined_write.ts";
import type { CliIo } from "./command_spec.ts";
import { displayPath } from "../display_path.ts";

export async function writePlace(
  io: Pick<CliIo, "cwd" | "env">,
  projectDir: string,
): Promise<ConfinedPlace> {
  const roots = await allowedRoots({
    launchCwd: io.cwd,
    home: io.env("HOME"),
    additionalDirectories: [projectDir],
  });
  return { cwd: io.cwd, roots };
}

/** Messages name paths as the command's other output does: relative, or under `~`. */
export function shownPaths(
  io: Pick<CliIo, "cwd" | "env">,
  path: string,
): ConfinedWriteOptions {
  const show = (p: string) => displayPath(p, io.cwd, io.env("HOME"));
  return { shown: show(path), show };
}
