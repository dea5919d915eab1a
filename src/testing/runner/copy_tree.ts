/**
 * The copy of a directory tree that a case runs in (the project, a fixture HOME): what a command
 * run in the copy finds there must not lead it back to the original.
 *
 * - Directories, regular files (modes kept) and symlinks are copied; sockets, FIFOs and devices
 *   are no part of a project's files and are left out (nothing is ever opened but regular
 *   files, so a FIFO cannot block the copy). `NOT_COPIED` directories (or the `skip` names
 *   given) are left out at any depth, and so are the directories in `leaveOut` (the cases'
 *   scratch directory, when it lies inside the tree: the copy would otherwise copy itself until
 *   names grow too long).
 * - A symlink is never followed while copying. It keeps leading where it led, except into the
 *   tree: a link whose target lies in the tree, by its text or once every link on the way is
 *   followed (a relative one that climbs to "/" and down again, one through a link outside that
 *   leads back in), points to the same place in the copy. The same holds for the other trees
 *   copied for the same case (`copies`: a fixture HOME's link into the project leads into the
 *   project's copy). Relative links stay relative; one that leads out of the trees gets its
 *   target as an absolute path, since the same text would lead elsewhere from where the copy
 *   lies.
 * - Files are copied a few at a time: creating files is what a copy costs, and a few in flight
 *   hide the disk's latency without opening thousands of files at once.
 */
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { realPathAllowingMissing } from "../../os/files/allowed_roots.ts";

/** Directory names never copied. */
export const NOT_COPIED: readonly string[] = ["node_modules", ".git"];

/** Files copied at once. */
const FILES_IN_FLIGHT = 16;

export interface CopyTreeOptions {
  /** Directory names left out at any depth; default `NOT_COPIED`. */
  readonly skip?: readonly string[];
  /** Directories (real paths) left out of the copy, wherever they lie in the tree. */
  readonly leaveOut?: readonly string[];
  /** Other trees copied for the same case, and where: a link into one leads into its copy. */
  readonly copies?: readonly { readonly from: string; readonly to: string }[];
}

export async function copyTree(
  from: string,
  to: string,
  options: CopyTreeOptions = {},
): Promise<void> {
  const copied = [{ from, to }, ...options.copies ?? []];
  const tree: Tree = {
    places: await Promise.all(copied.map(placeOf)),
    leaveOut: options.leaveOut ?? [],
    skip: options.skip ?? NOT_COPIED,
    files: new FileCopies(),
  };
  try {
    await copyEntries(tree, tree.places[0]!.real, tree.places[0]!.to);
  } finally {
    await tree.files.settled();
  }
  tree.files.rethrow();
}

interface Tree {
  /** The tree being copied first, then the other trees copied for the case. */
  readonly places: readonly CopiedPlace[];
  readonly leaveOut: readonly string[];
  readonly skip: readonly string[];
  readonly files: FileCopies;
}

/** A tree and where its copy lies. */
interface CopiedPlace {
  /** Its real path: the walk goes through real directories only. */
  readonly real: string;
  /** An absolute link may name it by the path it was given as, or by its real one. */
  readonly names: readonly string[];
  readonly to: string;
}

async function placeOf(
  copied: { readonly from: string; readonly to: string },
): Promise<CopiedPlace> {
  const real = await Deno.realPath(copied.from);
  const names = [...new Set([trimSlashes(resolve(copied.from)), real])];
  return { real, names, to: trimSlashes(resolve(copied.to)) };
}

async function copyEntries(tree: Tree, from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = `${from}/${entry.name}`;
    const target = `${to}/${entry.name}`;
    if (entry.isSymlink) {
      await Deno.symlink(await linkInCopy(tree, source, target), target);
    } else if (entry.isDirectory) {
      if (tree.skip.includes(entry.name) || tree.leaveOut.includes(source)) continue;
      await copyEntries(tree, source, target);
    } else if (entry.isFile) {
      await tree.files.copy(source, target);
    }
  }
}

/** What the copy of the link at `source` (copied to `target`) holds. */
async function linkInCopy(tree: Tree, source: string, target: string): Promise<string> {
  const text = await Deno.readLink(source);
  const written = resolve(dirname(source), text);
  let inCopy = placeInCopy(tree, written, (place) => place.names);
  let outside = written;
  if (inCopy === undefined) {
    // Followed to the end (a missing last part too: writing through it would create it).
    const followed = await realPathAllowingMissing(source);
    if (followed.ok) {
      inCopy = placeInCopy(tree, followed.path, (place) => [place.real]);
      outside = followed.path;
    }
  }
  if (inCopy !== undefined) {
    return isAbsolute(text) ? inCopy : relative(dirname(target), inCopy) || ".";
  }
  return isAbsolute(text) ? text : outside;
}

/** Where `path` lies in a copy, when it lies in one of the copied trees (by one of `names`). */
function placeInCopy(
  tree: Tree,
  path: string,
  names: (place: CopiedPlace) => readonly string[],
): string | undefined {
  for (const place of tree.places) {
    for (const name of names(place)) {
      if (path === name) return place.to;
      if (path.startsWith(name === "/" ? "/" : `${name}/`)) {
        return `${place.to}/${path.slice(name.length).replace(/^\/+/, "")}`;
      }
    }
  }
  return undefined;
}

/** File copies in flight, at most `FILES_IN_FLIGHT`; the first failure is kept. */
class FileCopies {
  readonly #running = new Set<Promise<void>>();
  #failure: { readonly error: unknown } | undefined;

  async copy(source: string, target: string): Promise<void> {
    while (this.#running.size >= FILES_IN_FLIGHT) await Promise.race(this.#running);
    this.rethrow();
    const copying: Promise<void> = Deno.copyFile(source, target)
      .catch((error) => {
        this.#failure ??= { error };
      })
      .finally(() => this.#running.delete(copying));
    this.#running.add(copying);
  }

  /** Resolves when no copy is in flight, failed or not. */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }

  rethrow(): void {
    if (this.#failure !== undefined) throw this.#failure.error;
  }
}

function trimSlashes(path: string): string {
  return path.replace(/\/+$/, "") || "/";
}
