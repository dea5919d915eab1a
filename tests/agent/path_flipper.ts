/**
 * A race partner for confinement tests: a separate process that swaps two entries of a directory
 * (a real directory and a symlink) as fast as it can, with `renameat2(RENAME_EXCHANGE)`, so the
 * name on the path is always one or the other and never missing. Linux only.
 *
 * Run as a script it flips until killed, or for at most `seconds` (an orphan stops by itself).
 */

/** A running flipper; disposing it kills the process and waits for it. */
export interface PathFlipper extends AsyncDisposable {
  stop(): Promise<void>;
}

/** Starts swapping `dir/a` and `dir/b`; resolves once the first swap has happened. */
export async function startPathFlipper(dir: string, a: string, b: string): Promise<PathFlipper> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-ffi",
      new URL(import.meta.url).pathname,
      `${dir}/${a}`,
      `${dir}/${b}`,
      "120",
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // It already exited.
    }
    await reader.cancel();
    await child.status;
  };
  // The first chunk is "flipping\n", or nothing when it could not start.
  const first = await reader.read();
  if (first.done || !new TextDecoder().decode(first.value).startsWith("flipping")) {
    await stop();
    throw new Error(`The path flipper did not start on "${dir}"`);
  }
  return { stop, [Symbol.asyncDispose]: stop };
}

if (import.meta.main) {
  const [first, second, seconds] = Deno.args;
  if (first === undefined || second === undefined) {
    console.error("Usage: path_flipper.ts PATH_A PATH_B [SECONDS]");
    Deno.exit(2);
  }
  const libc = Deno.dlopen("libc.so.6", {
    renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
  });
  const AT_FDCWD = -100;
  const RENAME_EXCHANGE = 2;
  const pathA = new TextEncoder().encode(`${first}\0`);
  const pathB = new TextEncoder().encode(`${second}\0`);
  const swap = () => libc.symbols.renameat2(AT_FDCWD, pathA, AT_FDCWD, pathB, RENAME_EXCHANGE);
  if (swap() !== 0) {
    console.error(`Cannot swap "${first}" and "${second}"`);
    Deno.exit(1);
  }
  console.log("flipping");
  const deadline = performance.now() + Number(seconds ?? "60") * 1000;
  for (let swaps = 1;; swaps++) {
    swap();
    if (swaps % 4096 === 0 && performance.now() > deadline) break;
  }
}
