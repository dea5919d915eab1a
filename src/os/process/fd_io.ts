/**
 * Reads and writes on the agent's non-blocking ends of a child's pipes, with errno read as the
 * streams and captures need it: EINTR is "again", EAGAIN "not now", EPIPE the child's stdin gone.
 */
import { errnoText, lastErrno, type LibcSymbols } from "./libc.ts";

const EINTR = 4;
const EPIPE = 32;
const EAGAIN = Deno.build.os === "darwin" ? 35 : 11;

export function brokenPipe(): Error {
  return new Deno.errors.BrokenPipe("The child closed its standard input");
}

/**
 * Writes what fits of `bytes` from `written.offset` on: "done" when all of it is in the pipe,
 * "wait" when the pipe is full (wait for POLLOUT), an error when it cannot go on.
 */
export function writeAvailable(
  libc: LibcSymbols,
  fd: number,
  bytes: Uint8Array,
  written: { offset: number },
): "done" | "wait" | Error {
  while (written.offset < bytes.byteLength) {
    const rest = bytes.subarray(written.offset);
    const count = Number(libc.write(fd, rest, BigInt(rest.byteLength)));
    if (count >= 0) {
      written.offset += count;
      continue;
    }
    const errno = lastErrno(libc);
    if (errno === EINTR) continue;
    if (errno === EAGAIN) return "wait";
    return errno === EPIPE
      ? brokenPipe()
      : new Error(`Cannot write to a child: ${errnoText(libc, errno)}`);
  }
  return "done";
}

/** One read into `target`: the byte count, 0 at EOF, "wait" when nothing is there yet. */
export function readAvailable(
  libc: LibcSymbols,
  fd: number,
  target: Uint8Array,
): number | "wait" | Error {
  while (true) {
    const count = Number(libc.read(fd, target, BigInt(target.byteLength)));
    if (count >= 0) return count;
    const errno = lastErrno(libc);
    if (errno === EINTR) continue;
    if (errno === EAGAIN) return "wait";
    return new Error(`Cannot read a child's output: ${errnoText(libc, errno)}`);
  }
}
