/**
 * The exit status of a child of the posix_spawn spawner, read as Deno.Command reads it. On Linux
 * a pidfd joins the poll set of the child's pipes, so the exit and the end of its output arrive
 * in one wake-up, and the child is reaped without blocking; elsewhere (macOS, or a kernel or
 * glibc without pidfd_open) a worker thread waits in waitpid for each child.
 */
import { type FdPoller, type FdWatch, POLLIN } from "./fd_poller.ts";
import type { Libc } from "./libc.ts";

const WNOHANG = 1;
/** Consecutive failed waits (ECHILD: no such child any more) before the status gives up. */
const WAIT_ATTEMPTS = 3;
/** What a child that nothing can reap any more (someone else did) is reported as. */
const UNKNOWN_EXIT: Deno.CommandStatus = { success: false, code: 255, signal: null };

export function childExit(
  libc: Libc,
  poller: FdPoller,
  pid: number,
  opened: (fd: number) => void,
): Promise<Deno.CommandStatus> {
  const pidfd = libc.symbols.pidfd_open?.(pid, 0) ?? -1;
  if (pidfd < 0) return waitOnThread(libc, pid);
  opened(pidfd);
  return new Promise((resolve) => {
    const status = new Int32Array(1);
    const watch: FdWatch = {
      fd: pidfd,
      events: POLLIN,
      onReady() {
        const reaped = libc.symbols.waitpid_now(pid, status, WNOHANG);
        if (reaped === 0) return;
        void poller.closeWatched(watch);
        resolve(reaped === pid ? decodeWaitStatus(libc, status[0]!) : UNKNOWN_EXIT);
      },
    };
    poller.watch(watch);
  });
}

async function waitOnThread(libc: Libc, pid: number): Promise<Deno.CommandStatus> {
  const status = new Int32Array(1);
  for (let attempt = 0; attempt < WAIT_ATTEMPTS; attempt++) {
    // -1 is EINTR (a signal reached the worker thread: wait again) or ECHILD, which nothing
    // but another reaper of our children could cause.
    const reaped = await libc.symbols.waitpid(pid, status, 0);
    if (reaped === pid) return decodeWaitStatus(libc, status[0]!);
  }
  return UNKNOWN_EXIT;
}

/** A wait status as Deno reports it: a signal's death is code 128 + its number, and its name. */
export function decodeWaitStatus(libc: Libc, raw: number): Deno.CommandStatus {
  const signalNumber = raw & 0x7f;
  if (signalNumber === 0) {
    const code = (raw >> 8) & 0xff;
    return { success: code === 0, code, signal: null };
  }
  return {
    success: false,
    code: 128 + signalNumber,
    signal: libc.flavor.signalNames[signalNumber] ?? null,
  };
}
