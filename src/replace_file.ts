/**
 * Replaces a file's text the way an editor saves: a temporary file beside it (with its mode),
 * renamed over it, so a reader (an editor, a watch) never sees half a file. A symlink stays a
 * symlink: its target is what is rewritten.
 */

/** Rewrites `path` (a symlink's target for a symlink) with `text`; answers the file written. */
export async function replaceFileText(path: string, text: string): Promise<string> {
  const target = await Deno.realPath(path);
  const { mode } = await Deno.stat(target);
  const slash = target.lastIndexOf("/");
  const temporary = `${target.slice(0, slash)}/.${target.slice(slash + 1)}.` +
    `${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(temporary, text, { createNew: true, mode: 0o600 });
    if (mode !== null) await Deno.chmod(temporary, mode & 0o7777);
    await Deno.rename(temporary, target);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
  return target;
}
