/**
 * What child_io.ts does over web streams, done on the posix_spawn spawner's descriptors: output
 * read to its end into a capped buffer, stdin written whole and closed. Each is a watch of the
 * FdPoller; a hook's run then makes no stream at all.
 */
import { CappedBytes, type OutputCapture, READ_CHUNK_BYTES, type StdinFeed } from "./child_io.ts";
import { type FdPoller, type FdWatch, POLLIN, POLLOUT } from "./fd_poller.ts";
import { readAvailable, writeAvailable } from "./fd_io.ts";
import type { LibcSymbols } from "./libc.ts";

/** Reads per wake-up at most, so a flood on one pipe does not hold the event loop. */
const READS_PER_WAKE = 16;

/** Reads `fd` to EOF (or an error, or cancel), keeping at most `capBytes` bytes. */
export function captureFd(
  poller: FdPoller,
  libc: LibcSymbols,
  fd: number,
  capBytes: number,
): OutputCapture {
  const kept = new CappedBytes(capBytes);
  const buffer = new Uint8Array(READ_CHUNK_BYTES);
  let finished = false;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => finish = resolve);
  let closing: Promise<void> | undefined;
  const end = (): Promise<void> => {
    closing ??= poller.closeWatched(watch).then(() => {
      finished = true;
      finish();
    });
    return closing;
  };
  const watch: FdWatch = {
    fd,
    events: POLLIN,
    onReady() {
      for (let read = 0; read < READS_PER_WAKE; read++) {
        const count = readAvailable(libc, fd, buffer);
        if (count === "wait") return;
        // EOF, or a pipe error: what was read so far is kept.
        if (count === 0 || count instanceof Error) {
          void end();
          return;
        }
        kept.add(buffer.subarray(0, count));
      }
    },
  };
  poller.watch(watch);
  return {
    done,
    finished: () => finished,
    cancel: end,
    result: () => kept.result(),
  };
}

/**
 * Writes `bytes` to `fd`, then closes it. A child may exit or close stdin without reading it
 * (BrokenPipe): the feed ends there, as that is the child's right.
 */
export function feedFd(
  poller: FdPoller,
  libc: LibcSymbols,
  fd: number,
  bytes: Uint8Array,
): StdinFeed {
  const written = { offset: 0 };
  let finished = false;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => finish = resolve);
  const feed = { done, finished: () => finished, abandon: () => Promise.resolve() };
  const over = () => {
    finished = true;
    finish();
  };
  if (writeAvailable(libc, fd, bytes, written) !== "wait") {
    poller.close(fd);
    over();
    return feed;
  }
  let closing: Promise<void> | undefined;
  // The close waits for a poll in flight to end: whoever abandons the feed can wait for it.
  const end = (): Promise<void> => closing ??= poller.closeWatched(watch).then(over);
  const watch: FdWatch = {
    fd,
    events: POLLOUT,
    onReady() {
      if (writeAvailable(libc, fd, bytes, written) !== "wait") void end();
    },
  };
  poller.watch(watch);
  return { ...feed, abandon: end };
}
