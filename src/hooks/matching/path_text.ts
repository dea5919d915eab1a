/**
 * Paths as text, for the files hooks name: no file is touched and no symlink resolved, so a
 * result says where a path points by its spelling only. Plain string work: `node:path` would
 * pull in `@types/node`, which this project lacks.
 */

export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path);
}

/** An absolute path with `.`, `..` and repeated or trailing `/` resolved. */
export function normalizePath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`;
}
