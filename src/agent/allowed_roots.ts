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
import { basename, dirname, isAbsolute, resolve } from "node:path";
import { errorMessage } from "../error.ts";

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

/** Symlinks followed before a path is declared a loop, as Linux's ELOOP limit. */
const MAX_SYMLINKS = 40;

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
  return roots.some((root) => path === root || path.startsWith(root === "/" ? "/" : root + "/"));
}

/**
 * The real path of an absolute path whose last components may not exist yet: the real path of
 * its nearest existing ancestor, then the rest. A dangling symlink on the way is followed to its
 * target, since creating the file would create that target.
 */
export async function realPathAllowingMissing(absolute: string): Promise<ConfinedPath> {
  let current = absolute;
  for (let followed = 0; followed <= MAX_SYMLINKS; followed++) {
    const step = await resolveOnce(current);
    if (step.kind === "done") return { ok: true, path: step.path };
    if (step.kind === "failed") return { ok: false, reason: step.reason, denied: step.denied };
    current = step.next;
  }
  return { ok: false, reason: `too many levels of symbolic links in "${absolute}"` };
}

type Step =
  | { readonly kind: "done"; readonly path: string }
  /** A dangling symlink was found: resolution starts again from the path through its target. */
  | { readonly kind: "again"; readonly next: string }
  | { readonly kind: "failed"; readonly reason: string; readonly denied: boolean };

async function resolveOnce(absolute: string): Promise<Step> {
  try {
    return { kind: "done", path: await Deno.realPath(absolute) };
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) return failed(absolute, error);
  }
  // Walk up to the nearest ancestor that exists, remembering the missing tail.
  const tail: string[] = [];
  let current = absolute;
  while (true) {
    let info: Deno.FileInfo | undefined;
    try {
      info = await Deno.lstat(current);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) return failed(current, error);
    }
    if (info?.isSymlink) {
      let target: string;
      try {
        target = await Deno.readLink(current);
      } catch (error) {
        return failed(current, error);
      }
      return { kind: "again", next: resolve(dirname(current), target, ...tail) };
    }
    if (info !== undefined) {
      // It exists and is no symlink, yet the full path was missing: resolve what exists.
      try {
        return { kind: "done", path: resolve(await Deno.realPath(current), ...tail) };
      } catch (error) {
        return failed(current, error);
      }
    }
    const parent = dirname(current);
    if (parent === current) return { kind: "done", path: resolve(current, ...tail) };
    tail.unshift(basename(current));
    current = parent;
  }
}

function failed(path: string, error: unknown): Step {
  return {
    kind: "failed",
    reason: `cannot resolve "${path}": ${cause(error)}`,
    denied: error instanceof Deno.errors.NotCapable,
  };
}

/** The OS's reason without Deno's repetition of the syscall and path. */
function cause(error: unknown): string {
  if (error instanceof Deno.errors.FilesystemLoop) return "too many levels of symbolic links";
  if (error instanceof Deno.errors.NotADirectory) return "a part of the path is not a directory";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  return errorMessage(error);
}
