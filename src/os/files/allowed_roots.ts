/**
 * Confinement of local file access: a tool's path is resolved against the session cwd, every
 * symlink in it is followed (a dangling one too: writing through it would create its target),
 * and the result must lie inside one of the allowed roots (the agent's launch cwd, `$HOME`, and a
 * session's `additionalDirectories`).
 *
 * A check by name alone can be raced: a directory on the path swapped for a symlink after the
 * check leads the access elsewhere. The file tools therefore open files with
 * `confinedOpener()` (confined_opener.ts), which verifies what was opened; this module gives it
 * the check and the reasons for a refusal.
 */
import { isAbsolute, resolve } from "node:path";
import { isInsideDir, realPathAllowingMissing } from "../../real_path.ts";

export { realPathAllowingMissing };

export type ConfinedPath =
  | { readonly ok: true; readonly path: string }
  /** `reason` completes a sentence that starts with what failed: `Cannot read "x": <reason>`. */
  | {
    readonly ok: false;
    readonly reason: string;
    /** The runtime itself refused to look (Deno's permissions): the path is outside its grant. */
    readonly denied?: boolean;
  };

export interface AllowedRootsInput {
  readonly launchCwd: string;
  readonly home: string | undefined;
  readonly additionalDirectories?: readonly string[];
}

/**
 * The roots, each resolved like a tool path (so a root reached through a symlink still contains
 * the files under it), without duplicates. Relative additional directories are taken from the
 * launch cwd.
 */
export async function allowedRoots(input: AllowedRootsInput): Promise<readonly string[]> {
  const candidates = [input.launchCwd, input.home, ...(input.additionalDirectories ?? [])]
    .filter((root): root is string => root !== undefined && root !== "");
  const roots: string[] = [];
  for (const root of candidates) {
    const resolved = await realPathAllowingMissing(resolve(input.launchCwd, root));
    // A root that cannot be resolved (a permission problem above it) grants nothing.
    if (resolved.ok && !roots.includes(resolved.path)) roots.push(resolved.path);
  }
  return roots;
}

/**
 * Resolves `path` (absolute, or relative to `cwd`) with its symlinks followed, and checks it
 * lies inside one of `roots`, which must already be resolved (see `allowedRoots`).
 */
export async function confinePath(
  path: string,
  options: { readonly cwd: string; readonly roots: readonly string[] },
): Promise<ConfinedPath> {
  const resolved = await realPathAllowingMissing(resolve(options.cwd, path));
  if (!resolved.ok) {
    return resolved.denied ? { ok: false, reason: outside("it is", options.roots) } : resolved;
  }
  if (isInsideRoots(resolved.path, options.roots)) return resolved;
  return { ok: false, reason: outsideReason(path, resolved.path, options) };
}

/** Why `path`, which resolved to `resolved` outside the roots, is refused. */
export function outsideReason(
  path: string,
  resolved: string,
  options: { readonly cwd: string; readonly roots: readonly string[] },
): string {
  return resolved === resolve(options.cwd, path) && isAbsolute(path)
    ? outside("it is", options.roots)
    : outside(`it resolves to "${resolved}", which is`, options.roots);
}

function outside(where: string, roots: readonly string[]): string {
  return `${where} outside the allowed directories (${
    roots.map((root) => `"${root}"`).join(", ") || "none"
  })`;
}

/** Whether an already resolved path is one of the roots or lies below one. */
export function isInsideRoots(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => isInsideDir(path, root));
}
