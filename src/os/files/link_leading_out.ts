/**
 * Which symlink takes a path out of the allowed roots, so that a refusal can name it: "x is a
 * symlink to y" tells a user what to change, where "it resolves to z" leaves them to find it.
 */
import { join, resolve } from "node:path";
import { isInsideRoots, realPathAllowingMissing } from "./allowed_roots.ts";

export interface LinkOut {
  /** Where the link is (a real path, inside the roots). */
  readonly link: string;
  /** Where it leads, followed to the end (a dangling link: where its target would be). */
  readonly target: string;
}

/**
 * The first symlink on the way to `absolute` that lies inside `roots` (already resolved) and
 * leads outside them; undefined when there is none (the path lies outside by its own name, or
 * is inside). Links above the roots (a `/tmp` that is a link) are followed, not reported.
 */
export async function linkLeadingOut(
  absolute: string,
  roots: readonly string[],
): Promise<LinkOut | undefined> {
  let current = "/";
  for (const name of absolute.split("/").filter((part) => part !== "")) {
    const next = join(current, name);
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(next);
    } catch (error) {
      // Above the roots, outside the runtime's read grant: taken as it is named.
      if (error instanceof Deno.errors.NotCapable) {
        current = next;
        continue;
      }
      // Missing (or unreadable): nothing below it is a link yet.
      return undefined;
    }
    if (!info.isSymlink) {
      current = next;
      continue;
    }
    const followed = await realPathAllowingMissing(next);
    // What the runtime may not look at (outside its read grant) is told by the link's text.
    const target = followed.ok ? followed.path : await linkText(next, current);
    if (target === undefined) return undefined;
    if (isInsideRoots(next, roots) && !isInsideRoots(target, roots)) return { link: next, target };
    if (!followed.ok) return undefined;
    current = target;
  }
  return undefined;
}

/** Where the link `path` in `dir` points by its text, absolute; undefined when unreadable. */
async function linkText(path: string, dir: string): Promise<string | undefined> {
  try {
    return resolve(dir, await Deno.readLink(path));
  } catch {
    return undefined;
  }
}
