/**
 * Paths as a user wants to read them: relative to the directory being inspected when inside it,
 * `~/...` under the home directory, absolute otherwise.
 */
export function displayPath(path: string, cwd: string, home: string | undefined): string {
  if (path.startsWith(cwd + "/")) return path.slice(cwd.length + 1);
  if (home && path.startsWith(home + "/")) return "~/" + path.slice(home.length + 1);
  return path;
}
