/**
 * Pipes whose ends are closed on exec, so that no other child inherits them (a write end left in
 * a stranger would keep a hook's output open forever), and whose end on the agent's side does
 * not block, so a read or write takes what the pipe has room for and says EAGAIN for the rest.
 * The child's end stays blocking, as programs expect. Linux makes a pipe close-on-exec
 * atomically (pipe2); macOS has only pipe, and it is set right after (its posix_spawn calls also
 * close every descriptor not named, POSIX_SPAWN_CLOEXEC_DEFAULT).
 */
import { errnoText, lastErrno, type Libc } from "./libc.ts";

const F_GETFD = 1;
const F_SETFD = 2;
const F_GETFL = 3;
const F_SETFL = 4;
const FD_CLOEXEC = 1;
const O_CLOEXEC_LINUX = 0x80000;
const O_NONBLOCK = Deno.build.os === "darwin" ? 0x4 : 0x800;

/** Which end is the agent's: the read end (0) of an output pipe, the write end (1) of stdin. */
type AgentEnd = 0 | 1 | "both";

/** [read end, write end]; throws with the system's reason when the process is out of them. */
export function makePipe(libc: Libc, agentEnd: AgentEnd): [read: number, write: number] {
  const fds = new Int32Array(2);
  const { symbols } = libc;
  const made = symbols.pipe2 !== null ? symbols.pipe2(fds, O_CLOEXEC_LINUX) : symbols.pipe(fds);
  if (made !== 0) {
    throw new Error(`Cannot make a pipe: ${errnoText(symbols, lastErrno(symbols))}`);
  }
  const ends: [number, number] = [fds[0]!, fds[1]!];
  if (symbols.pipe2 === null) {
    for (const fd of ends) fcntl(libc, fd, F_SETFD, FD_CLOEXEC);
  }
  for (const fd of agentEnd === "both" ? ends : [ends[agentEnd]]) {
    fcntl(libc, fd, F_SETFL, fcntl(libc, fd, F_GETFL, 0) | O_NONBLOCK);
  }
  return ends;
}

/** Whether a pipe of makePipe is as it should be: how the FFI path is checked once, at start. */
export function pipeFlagsHold(libc: Libc, fd: number, agentSide: boolean): boolean {
  const cloexec = (fcntl(libc, fd, F_GETFD, 0) & FD_CLOEXEC) !== 0;
  const nonBlocking = (fcntl(libc, fd, F_GETFL, 0) & O_NONBLOCK) !== 0;
  return cloexec && nonBlocking === agentSide;
}

/**
 * fcntl is variadic: on Apple arm64 its third argument goes on the stack, after the eight
 * register arguments, so it is called through a declaration padded to put it there.
 */
function fcntl(libc: Libc, fd: number, command: number, value: number): number {
  const { symbols } = libc;
  return Deno.build.os === "darwin" && Deno.build.arch === "aarch64"
    ? symbols.fcntl_stack_arg(fd, command, 0n, 0n, 0n, 0n, 0n, 0n, value)
    : symbols.fcntl(fd, command, value);
}
