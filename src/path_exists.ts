/** Whether anything is at a path, a dangling symlink included; whether a directory is. */

/** True when `path` names an entry (not followed: a dangling link counts); other errors throw. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** True when `path` is a directory, through links; false when it is anything else or unreadable. */
export async function isDirectory(path: string): Promise<boolean> {
  return await Deno.stat(path).then((info) => info.isDirectory, () => false);
}
