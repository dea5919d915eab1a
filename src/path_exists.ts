/** Whether anything is at a path, a dangling symlink included. */

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
