/**
 * The `--cwd DIR` every hooks command takes: an existing directory that llama-agent is allowed to
 * read, resolved to an absolute real path (hooks see it as `cwd` and `CLAUDE_PROJECT_DIR`).
 */
import { resolve } from "node:path";
import { outsidePathStatus } from "./outside_path_status.ts";
import { describePermissionError } from "./permission_error.ts";

export type ResolvedCwd = { readonly ok: true; readonly path: string } | {
  readonly ok: false;
  readonly error: string;
};

export async function resolveCwd(
  flag: string | undefined,
  launchDir: string,
  env: (name: string) => string | undefined,
): Promise<ResolvedCwd> {
  const wanted = resolve(launchDir, flag ?? ".");
  const permission = await Deno.permissions.query({ name: "read", path: wanted });
  if (permission.state !== "granted") {
    // A directory that is not there is missing wherever it would be.
    if (await outsidePathStatus(wanted) === "missing") {
      return { ok: false, error: `Directory "${wanted}" does not exist` };
    }
    const roots = env("LLAMA_AGENT_LAUNCH_DIR") ?? launchDir;
    return {
      ok: false,
      error: `Cannot read "${wanted}": llama-agent may only use files under "${roots}" ` +
        `(where it was started) and your home directory; start it from a directory that ` +
        `contains this path`,
    };
  }
  try {
    const path = await Deno.realPath(wanted);
    const info = await Deno.stat(path);
    if (!info.isDirectory) return { ok: false, error: `"--cwd ${flag}" is not a directory` };
    return { ok: true, path };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { ok: false, error: `Directory "${wanted}" does not exist` };
    }
    const permission = describePermissionError(error, env("LLAMA_AGENT_LAUNCH_DIR"));
    if (permission !== undefined) return { ok: false, error: permission };
    throw error;
  }
}
