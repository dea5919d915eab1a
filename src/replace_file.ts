/**
 * Replaces a file's text the way an editor saves: a temporary file beside it (with its mode),
 * renamed over it, so a reader (an editor, a watch) never sees half a file. A symlink stays a
 * symlink: its target is what is rewritten.
 *
 * Where the file lies is the caller's to check: a project's files are replaced through
 * `replaceConfinedText` (src/agent/files/confined_write.ts), which refuses a link leading out of the
 * allowed roots and creates the temporary file as the agent's file tools create files.
 */

/** Creates the new file `path` holding `text`. */
export type WriteNewFile = (path: string, text: string) => Promise<void>;

const writeNewFile: WriteNewFile = (path, text) =>
  Deno.writeTextFile(path, text, { createNew: true, mode: 0o600 });

/** Rewrites `path` (a symlink's target for a symlink) with `text`; answers the file written. */
export async function replaceFileText(
  path: string,
  text: string,
  writeNew: WriteNewFile = writeNewFile,
): Promise<string> {
  const target = await Deno.realPath(path);
  const { mode } = await Deno.stat(target);
  const slash = target.lastIndexOf("/");
  const temporary = `${target.slice(0, slash)}/.${target.slice(slash + 1)}.` +
    `${crypto.randomUUID()}.tmp`;
  try {
    await writeNew(temporary, text);
    if (mode !== null) await Deno.chmod(temporary, mode & 0o7777);
    await Deno.rename(temporary, target);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
  return target;
}
