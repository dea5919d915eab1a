/**
 * Real paths, every symlink followed, for the checks that keep a path inside a directory: the
 * file tools' allowed roots (src/os/files/allowed_roots.ts), and a plugin's files inside its plugin
 * and its marketplace (src/hooks/plugins/plugin_containment.ts). A check of the text alone (`../`) is
 * walked around by a link; a check of the real path is not.
 */
import { basename, dirname, resolve } from "node:path";
import { errorMessage } from "./error.ts";

export type RealPath =
  | { readonly ok: true; readonly path: string }
  /** `reason` completes a sentence that starts with what failed: `Cannot read "x": <reason>`. */
  | {
    readonly ok: false;
    readonly reason: string;
    /** The runtime itself refused to look (Deno's permissions): the path is outside its grant. */
    readonly denied?: boolean;
  };

/** Symlinks followed before a path is declared a loop, as Linux's ELOOP limit. */
const MAX_SYMLINKS = 40;

/** Whether the real path `path` is `dir` or lies below it (both already resolved). */
export function isInsideDir(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === "/" ? "/" : dir + "/");
}

/**
 * The real path of an absolute path whose last components may not exist yet: the real path of
 * its nearest existing ancestor, then the rest. A dangling symlink on the way is followed to its
 * target, since creating the file would create that target.
 */
export async function realPathAllowingMissing(absolute: string): Promise<RealPath> {
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
