/**
 * Web streams over the agent's ends of a child's pipes, driven by the FdPoller. The ends do not
 * block (pipe_pair.ts): a write puts in what fits and waits for POLLOUT for the rest, a read
 * after POLLIN returns what is there.
 */
import {
  type FdPoller,
  type FdWatch,
  POLLERR,
  POLLHUP,
  POLLIN,
  POLLNVAL,
  POLLOUT,
} from "./fd_poller.ts";
import { errnoText, lastErrno, type LibcSymbols } from "./libc.ts";

const READ_CHUNK_BYTES = 64 * 1024;
/** Bytes read ahead of the consumer before the pipe is left to fill (and its writer to wait). */
const READ_AHEAD_BYTES = 256 * 1024;
const EINTR = 4;
const EPIPE = 32;
const EAGAIN_LINUX = 11;
const EAGAIN_DARWIN = 35;
const HANG_UP = POLLHUP | POLLERR | POLLNVAL;

function retryable(errno: number): boolean {
  return errno === EINTR || errno === EAGAIN_LINUX || errno === EAGAIN_DARWIN;
}

/** A byte stream (BYOB readers welcome) of what the child writes to `fd`; ends at EOF. */
export function fdReadable(
  poller: FdPoller,
  libc: LibcSymbols,
  fd: number,
): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(READ_CHUNK_BYTES);
  let watch: FdWatch | undefined;
  let ended = false;
  const end = (): Promise<void> => {
    if (ended || watch === undefined) return Promise.resolve();
    ended = true;
    return poller.closeWatched(watch);
  };
  return new ReadableStream({
    type: "bytes",
    start(controller: ReadableByteStreamController) {
      /** One read; false once the stream is over (EOF or an error). */
      const readOnce = (): "data" | "over" | "retry" => {
        // A BYOB reader's buffer is read into directly: a flood costs no allocation per chunk.
        const request = controller.byobRequest;
        const view = request?.view;
        const target = view ? new Uint8Array(view.buffer, view.byteOffset, view.byteLength) : chunk;
        const count = Number(libc.read(fd, target, BigInt(target.byteLength)));
        if (count > 0) {
          if (view) request!.respond(count);
          else controller.enqueue(chunk.slice(0, count));
          return "data";
        }
        if (count === 0) {
          void end();
          controller.close();
          // A BYOB read waiting at the close is settled (done) only by a zero-byte respond.
          controller.byobRequest?.respond(0);
          return "over";
        }
        const errno = lastErrno(libc);
        if (retryable(errno)) return "retry";
        void end();
        controller.error(new Error(`Cannot read a child's output: ${errnoText(libc, errno)}`));
        return "over";
      };
      watch = {
        fd,
        events: POLLIN,
        onReady(revents) {
          // With no writer left (POLLHUP) a read cannot block: take everything up to EOF now,
          // rather than one poll round per chunk.
          const hungUp = (revents & HANG_UP) !== 0;
          let outcome = readOnce();
          while (hungUp && outcome === "data") outcome = readOnce();
          if (outcome !== "over" && (controller.desiredSize ?? 1) <= 0) watch!.events = 0;
        },
      };
      poller.watch(watch);
    },
    pull() {
      if (watch !== undefined && !ended && watch.events === 0) {
        watch.events = POLLIN;
        poller.changed();
      }
    },
    cancel: end,
  }, { highWaterMark: READ_AHEAD_BYTES });
}

/** The child's stdin: each write settles once all its bytes are in the pipe. */
export function fdWritable(
  poller: FdPoller,
  libc: LibcSymbols,
  fd: number,
): WritableStream<Uint8Array> {
  let ended = false;
  let watch: FdWatch | undefined;
  const brokenPipe = () => new Deno.errors.BrokenPipe("The child closed its standard input");
  const end = async (): Promise<void> => {
    if (ended) return;
    ended = true;
    if (watch !== undefined) await poller.closeWatched(watch);
    else libc.close(fd);
  };

  /** Writes what fits now; "wait" when the pipe is full, an error when it cannot go on. */
  const pump = (bytes: Uint8Array, written: { offset: number }): "done" | "wait" | Error => {
    while (written.offset < bytes.byteLength) {
      const rest = bytes.subarray(written.offset);
      const count = Number(libc.write(fd, rest, BigInt(rest.byteLength)));
      if (count >= 0) {
        written.offset += count;
        continue;
      }
      const errno = lastErrno(libc);
      if (errno === EINTR) continue;
      if (errno === EAGAIN_LINUX || errno === EAGAIN_DARWIN) return "wait";
      return errno === EPIPE
        ? brokenPipe()
        : new Error(`Cannot write to a child: ${errnoText(libc, errno)}`);
    }
    return "done";
  };

  return new WritableStream<Uint8Array>({
    write(bytes) {
      if (ended) return Promise.reject(brokenPipe());
      const written = { offset: 0 };
      // A failed write errors the stream, and a stream errored by its sink is never closed or
      // aborted: the descriptor is closed here.
      const failed = async (error: Error) => {
        await end();
        throw error;
      };
      const first = pump(bytes, written);
      if (first === "done") return Promise.resolve();
      if (first instanceof Error) return failed(first);
      return new Promise<void>((resolve, reject) => {
        const waiting: FdWatch = {
          fd,
          events: POLLOUT,
          onReady() {
            const next = pump(bytes, written);
            if (next === "wait") return;
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
