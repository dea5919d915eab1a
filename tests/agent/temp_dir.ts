/**
 * Temporary directories for the agent tests: real files, removed afterwards, with their real
 * path (the temp dir itself may sit behind a symlink).
 */

/** Calls `fn` with the real path of a fresh temp dir holding `files` (path → content). */
export async function withTempDir<T>(
  files: Readonly<Record<string, string>>,
  fn: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "agent_test_" }));
  try {
    for (const [path, content] of Object.entries(files)) {
      const full = `${dir}/${path}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(full, content);
    }
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
