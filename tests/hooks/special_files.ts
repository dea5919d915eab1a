/**
 * Files that are not regular files, for tests of what reads configuration: a FIFO, a listening
 * Unix socket, a symlink to `/dev/zero`, and a regular file just over a size limit.
 */

/** Creates a FIFO at `path` (Deno has no call for it). */
export async function makeFifo(path: string): Promise<void> {
  const { code, stderr } = await new Deno.Command("mkfifo", { args: [path], stderr: "piped" })
    .output();
  if (code !== 0) throw new Error(`mkfifo "${path}" failed: ${new TextDecoder().decode(stderr)}`);
}

/**
 * Releases a reader stuck opening the FIFO at `path`: opening it for reading and writing never
 * blocks on Linux and counts as a writer, so the stuck open returns, then reads end of file.
 */
export function releaseFifo(path: string): void {
  Deno.openSync(path, { read: true, write: true }).close();
}

/** A Unix socket listening at `path`; close it when done. */
export function listenAt(path: string): Deno.Listener {
  return Deno.listen({ transport: "unix", path });
}

/**
 * Runs `fn` with a maker that puts a listening Unix socket at a path (for a `make` callback);
 * every socket it made is closed afterwards.
 */
export async function withSocketMaker<T>(
  fn: (makeSocket: (path: string) => void) => Promise<T>,
): Promise<T> {
  const listeners: Deno.Listener[] = [];
  try {
    return await fn((path) => void listeners.push(listenAt(path)));
  } finally {
    for (const listener of listeners) listener.close();
  }
}

/** Points `path` at `/dev/zero`, which reads forever. */
export function linkToDevZero(path: string): Promise<void> {
  return Deno.symlink("/dev/zero", path);
}

/** Writes a file of `bytes` spaces (valid JSONC whitespace, so only its size is wrong). */
export function writeSpaces(path: string, bytes: number): Promise<void> {
  return Deno.writeFile(path, new Uint8Array(bytes).fill(0x20));
}
