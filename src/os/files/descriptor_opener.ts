/**
 * Confined opens on descriptors (Linux, through libc.ts): exact. What is verified is the
 * descriptor, never a name, so nothing swapped on the path between check and access goes unseen.
 *
 * Reads: the path is opened `O_PATH` (which touches no data and wakes no FIFO or device), and the
 * kernel's path of that descriptor must lie inside the roots; only then is the file opened for
 * reading, through `/proc/self/fd/N`, which names the very file held, not a path. Symlinks are
 * followed by the open itself, so one from a root into another works. When the open fails, the
 * check by name (allowed_roots.ts) says whether the path led outside: that is then the answer,
 * not "no such file".
 *
 * Writes: the nearest existing parent directory of the path is opened and verified like a read,
 * and the runtime's write grant is asked for the verified place; each missing directory is
 * created below it and opened `O_NOFOLLOW` through the verified one; the file is looked at
 * through its parent (a FIFO or a device is refused unopened), then opened `O_NOFOLLOW` through
 * it. That is tried first on the path as given, which most writes settle without a lookup by
 * name. Anything else (a symlink on the way, which may lead inside or out, a place outside the
 * roots, a failure) sends the write to the check by name, which resolves symlinks, dangling ones
 * too, and gives the reasons for a refusal; the same steps then run on what it resolved to.
 *
 * Not covered, as by any check of paths: a hard link inside the roots to a file outside them, and
 * a verified directory moved out of the roots while it is held.
 */
import { basename, dirname, join, resolve } from "node:path";
import { confinePath, isInsideRoots, outsideReason } from "./allowed_roots.ts";
import {
  type ConfinedFile,
  type ConfinedOpen,
  type ConfinedOpener,
  type ConfinedPlace,
  NotRegularFileError,
  refused,
} from "./confined_file.ts";
import { AT_FDCWD, Errno, type FileStatus, type FileType, type Libc, LibcError } from "./libc.ts";

/** Checks and opens before a write whose path keeps changing under it is given up on. */
const MAX_WRITE_ATTEMPTS = 3;

const CHANGING_PATH_REASON = `its path kept changing while it was being opened ` +
  `(${MAX_WRITE_ATTEMPTS} tries: a part of it was replaced by a symlink each time): try again`;

/** A symlink appeared where the check saw none: check again. */
const CHANGED = Symbol("changed");
type Attempt = ConfinedOpen | typeof CHANGED;

export class DescriptorOpener implements ConfinedOpener {
  constructor(private readonly libc: Libc) {}

  async openRead(path: string, place: ConfinedPlace): Promise<ConfinedOpen> {
    const { libc } = this;
    const { O_PATH, O_CLOEXEC, O_RDONLY, O_NONBLOCK } = libc.flags;
    let held: number;
    try {
      held = libc.openat(AT_FDCWD, resolve(place.cwd, path), O_PATH | O_CLOEXEC);
    } catch (error) {
      const confined = await confinePath(path, place);
      if (!confined.ok) return refused(confined.reason);
      throw fsError(error);
    }
    try {
      const real = libc.pathOf(held);
      if (!isInsideRoots(real, place.roots)) return refused(outsideReason(path, real, place));
      requireGrant("read", real);
      const status = libc.status(held);
      if (status.links === 0) throw new Deno.errors.NotFound("it was removed while being opened");
      requireRegular(status.type);
      const fd = libc.openat(AT_FDCWD, `/proc/self/fd/${held}`, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      return { ok: true, file: new DescriptorFile(libc, fd, status.size) };
    } catch (error) {
      throw fsError(error);
    } finally {
      libc.close(held);
    }
  }

  async openWrite(path: string, place: ConfinedPlace): Promise<ConfinedOpen> {
    const direct = this.#writeAsGiven(path, place);
    if (direct !== undefined) return direct;
    for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt++) {
      const confined = await confinePath(path, place);
      if (!confined.ok) return refused(confined.reason);
      let opened: Attempt;
      try {
        opened = this.#write(path, confined.path, place);
      } catch (error) {
        throw fsError(error);
      }
      if (opened !== CHANGED) return opened;
    }
    return { ok: false, failure: "failed", reason: CHANGING_PATH_REASON };
  }

  /**
   * The write opened at the path as given, without the check by name (a realpath of the whole
   * path, on every call), when the descriptors alone settle it; `undefined` when they do not.
   */
  #writeAsGiven(path: string, place: ConfinedPlace): ConfinedOpen | undefined {
    try {
      const opened = this.#write(path, resolve(place.cwd, path), place);
      if (opened !== CHANGED && opened.ok) return opened;
    } catch {
      // The check by name comes to the same failure, told as a refusal where it is one.
    }
    return undefined;
  }

  #write(path: string, resolved: string, place: ConfinedPlace): Attempt {
    const { libc } = this;
    const { O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW, O_NONBLOCK, O_CLOEXEC } = libc.flags;
    const name = basename(resolved);
    if (name === "" || place.roots.includes(resolved)) {
      throw new Deno.errors.IsADirectory("it is a directory");
    }
    const nearest = this.#openNearestDirectory(dirname(resolved));
    let dir = nearest.fd;
    try {
      const real = libc.pathOf(dir);
      const target = join(real, ...nearest.missing, name);
      if (!isInsideRoots(real, place.roots)) return refused(outsideReason(path, target, place));
      // Where the write really goes: a swap after the check by name may have led elsewhere.
      requireGrant("write", target);
      for (const component of nearest.missing) {
        const child = this.#makeDirectory(dir, component);
        if (child === CHANGED) return CHANGED;
        libc.close(dir);
        dir = child;
      }
      // Looked at before the open, which would wake a FIFO's reader or act on a device.
      const existing = this.#statusIfAny(dir, name);
      if (existing?.type === "symlink") return CHANGED;
      if (existing !== undefined) requireRegular(existing.type);
      let fd: number;
      try {
        fd = libc.openat(
          dir,
          name,
          O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
          0o666,
        );
      } catch (error) {
        if (hasErrno(error, Errno.ELOOP)) return CHANGED;
        // A FIFO that nobody reads (O_NONBLOCK keeps the open from waiting for one).
        if (hasErrno(error, Errno.ENXIO)) throw new NotRegularFileError();
        throw error;
      }
      const file = new DescriptorFile(libc, fd, 0);
      try {
        requireRegular(libc.status(fd).type);
      } catch (error) {
        file.close();
        throw error;
      }
      return { ok: true, file };
    } finally {
      libc.close(dir);
    }
  }

  /** The nearest directory of `path` and above that exists, and the names missing below it. */
  #openNearestDirectory(path: string): { fd: number; missing: string[] } {
    const { O_PATH, O_DIRECTORY, O_CLOEXEC } = this.libc.flags;
    const missing: string[] = [];
    for (let current = path;; current = dirname(current)) {
      try {
        return {
          fd: this.libc.openat(AT_FDCWD, current, O_PATH | O_DIRECTORY | O_CLOEXEC),
          missing,
        };
      } catch (error) {
        if (!hasErrno(error, Errno.ENOENT) || dirname(current) === current) throw error;
      }
      missing.unshift(basename(current));
    }
  }

  /** What `name` under `dir` is, not following a symlink; `undefined` when nothing is there. */
  #statusIfAny(dir: number, name: string): FileStatus | undefined {
    try {
      return this.libc.status(dir, name);
    } catch (error) {
      if (hasErrno(error, Errno.ENOENT)) return undefined;
      throw error;
    }
  }

  /** Creates `name` under `dir` (unless it exists) and opens it, never through a symlink. */
  #makeDirectory(dir: number, name: string): number | typeof CHANGED {
    const { O_PATH, O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC } = this.libc.flags;
    try {
      this.libc.mkdirat(dir, name, 0o777);
    } catch (error) {
      if (!hasErrno(error, Errno.EEXIST)) throw error;
    }
    try {
      return this.libc.openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    } catch (error) {
      if (!hasErrno(error, Errno.ENOTDIR) && !hasErrno(error, Errno.ELOOP)) throw error;
      // A symlink where a directory was just made is a race; a file there is a plain failure.
      if (this.libc.status(dir, name).type === "symlink") return CHANGED;
      throw error;
    }
  }
}

class DescriptorFile implements ConfinedFile {
  #open = true;

  constructor(private readonly libc: Libc, private readonly fd: number, readonly size: number) {}

  async read(into: Uint8Array): Promise<number> {
    try {
      return await this.libc.read(this.fd, into);
    } catch (error) {
      throw fsError(error);
    }
  }

  async write(bytes: Uint8Array): Promise<number> {
    try {
      return await this.libc.write(this.fd, bytes);
    } catch (error) {
      throw fsError(error);
    }
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.libc.close(this.fd);
  }
}

/** The file tools take only regular files. */
function requireRegular(type: FileType): void {
  if (type === "directory") throw new Deno.errors.IsADirectory("it is a directory");
  if (type !== "file") throw new NotRegularFileError();
}

/**
 * Descriptors pass by Deno's permissions, so they are asked here (and by descriptor_directory.ts):
 * the agent reaches no further than its runtime grant, whichever way it opens files.
 */
export function isGranted(access: "read" | "write", path: string): boolean {
  return Deno.permissions.querySync({ name: access, path }).state === "granted";
}

function requireGrant(access: "read" | "write", path: string): void {
  if (isGranted(access, path)) return;
  throw new Deno.errors.NotCapable(
    `Requires ${access} access to "${path}", run again with the --allow-${access} flag`,
  );
}

function hasErrno(error: unknown, errno: number): boolean {
  return error instanceof LibcError && error.errno === errno;
}

/** A failed call as the error Deno's own file API would throw, so callers describe both alike. */
function fsError(error: unknown): unknown {
  if (!(error instanceof LibcError)) return error;
  const message = error.message.charAt(0).toLowerCase() + error.message.slice(1);
  switch (error.errno) {
    case Errno.ENOENT:
      return new Deno.errors.NotFound(message);
    case Errno.EACCES:
    case Errno.EPERM:
      return new Deno.errors.PermissionDenied(message);
    case Errno.EISDIR:
      return new Deno.errors.IsADirectory(message);
    case Errno.ENOTDIR:
      return new Deno.errors.NotADirectory(message);
    case Errno.ELOOP:
      return new Deno.errors.FilesystemLoop(message);
    case Errno.EEXIST:
      return new Deno.errors.AlreadyExists(message);
    default:
      return new Error(message, { cause: error });
  }
}
