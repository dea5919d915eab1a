/**
 * Web streams over the agent's ends of a child's pipes, driven by the FdPoller. The ends do not
 * block (pipe_pair.ts): a write puts in what fits and waits for POLLOUT for the rest, a read
 * after POLLIN returns what is there.
 */
import { type FdPoller, type FdWatch, POLLIN, POLLOUT } from "./fd_poller.ts";
import { READ_CHUNK_BYTES } from "./child_io.ts";
import { brokenPipe, readAvailable, writeAvailable } from "./fd_io.ts";
import type { LibcSymbols } from "./libc.ts";

/**
 * A byte stream of what the child writes to `fd`, ending at EOF. The pipe is read only while a
 * read is waiting, into that read's own buffer (a BYOB reader's, or one the stream allocates for
 * a default reader): a flood costs no allocation per chunk for a BYOB reader, nothing is read
 * ahead of the consumer, and a pipe nobody reads keeps no wait in flight (as with Deno.Command).
 */
export function fdReadable(
  poller: FdPoller,
  libc: LibcSymbols,
  fd: number,
): ReadableStream<Uint8Array> {
  let ended = false;
  const end = (): Promise<void> => {
    if (ended) return Promise.resolve();
    ended = true;
    return poller.closeWatched(watch);
  };
  let controller: ReadableByteStreamController;
  const watch: FdWatch = {
    fd,
    // Paused until the first read.
    events: 0,
    onReady() {
      const request = controller.byobRequest;
      const view = request?.view;
      if (!request || !view) {
        watch.events = 0;
        return;
      }
      const target = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      const count = readAvailable(libc, fd, target);
      if (count === "wait") return;
      if (count instanceof Error) {
        void end();
        controller.error(count);
        return;
      }
      if (count > 0) {
        request.respond(count);
        // The consumer's next read (pull) resumes the watch.
        if (controller.byobRequest === null) watch.events = 0;
        return;
      }
      if (count === 0) {
        void end();
        try {
          controller.close();
          // A read waiting at the close is settled (done) only by a zero-byte respond.
          controller.byobRequest?.respond(0);
        } catch {
          // A BYOB read into elements wider than a byte, left part filled: close has errored
          // the stream with a TypeError, which that read gets. The poll loop must go on.
        }
      }
    },
  };
  return new ReadableStream({
    type: "bytes",
    autoAllocateChunkSize: READ_CHUNK_BYTES,
    start(streamController: ReadableByteStreamController) {
      controller = streamController;
      poller.watch(watch);
    },
    pull() {
      if (!ended && watch.events === 0) {
        watch.events = POLLIN;
        poller.changed();
      }
    },
    cancel: end,
  }, { highWaterMark: 0 });
}

/** The child's stdin: each write settles once all its bytes are in the pipe. */
export function fdWritable(
  poller: FdPoller,
  libc: LibcSymbols,
  fd: number,
): WritableStream<Uint8Array> {
  let ended = false;
  let watch: FdWatch | undefined;
  const end = async (): Promise<void> => {
    if (ended) return;
    ended = true;
    if (watch !== undefined) await poller.closeWatched(watch);
    else poller.close(fd);
  };

  return new WritableStream<Uint8Array>({
    write(bytes, controller) {
      if (ended) return Promise.reject(brokenPipe());
      const written = { offset: 0 };
      // A failed write errors the stream, and a stream errored by its sink is never closed or
      // aborted: the descriptor is closed here.
      const failed = async (error: Error) => {
        await end();
        throw error;
      };
      const first = writeAvailable(libc, fd, bytes, written);
      if (first === "done") return Promise.resolve();
      if (first instanceof Error) return failed(first);
      return new Promise<void>((resolve, reject) => {
        // An abort does not wait for the write in flight (a child that never reads would hold it
        // forever): it ends the write and closes our end now, which is what the abort is for.
        const { signal } = controller;
        const onAbort = () => void end().then(() => reject(signal.reason), reject);
        signal.addEventListener("abort", onAbort, { once: true });
        const waiting: FdWatch = {
          fd,
          events: POLLOUT,
          onReady() {
            const next = writeAvailable(libc, fd, bytes, written);
            if (next === "wait") return;
            signal.removeEventListener("abort", onAbort);
            if (next === "done") {
              // Off the poll set until the pipe is full again; the descriptor stays open.
              poller.forget(waiting);
              watch = undefined;
              resolve();
            } else failed(next).catch(reject);
          },
        };
        watch = waiting;
        poller.watch(waiting);
      });
    },
    close: end,
    abort: end,
  });
}
