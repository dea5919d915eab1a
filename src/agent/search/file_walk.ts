/**
 * The walk under the search tools (glob, grep): the regular files below a directory inside the
 * allowed roots. Symlinks are never followed (a link out of the project must not lead the search
 * outside it, nor a link to a parent round in circles), what `.gitignore` ignores is skipped, and
 * so are version-control directories. The number of entries looked at is capped, and the result
 * says when the cap or a cancel cut the walk short.
 *
 * Directories are opened, and the files handed to `onFile` read, through a `DirectorySource`
 * (walk_directory.ts): on descriptors where libc can be used, which verify each directory as it
 * is opened and read its files relative to it (no per-file path check needed, and none of its
 * cost), else by name with the confined opener for every file. Either way nothing outside the
 * roots is read when a directory is swapped for a symlink mid-walk.
 */
import { dirname, join } from "node:path";
import { confinePath, isInsideRoots } from "../../os/files/allowed_roots.ts";
import { type ConfinedBytes, readConfinedBytes } from "../../os/files/confined_read.ts";
import { openDescriptorDirectories } from "../../os/files/descriptor_directory.ts";
import { EventLoopPause } from "./event_loop_pause.ts";
import { IgnoreRules } from "./gitignore.ts";
import { openPathDirectories } from "../../os/files/path_directory.ts";
import {
  childPath,
  compareNames,
  type DirectorySource,
  type OpenDirectorySource,
  type WalkEntry,
} from "../../os/files/walk_directory.ts";

export { compareNames };

/** Entries (files and directories) a walk looks at before it stops. */
export const DEFAULT_MAX_WALK_ENTRIES = 100_000;
/** A `.gitignore` larger than this is not read (none is, in practice). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/** Never searched: a repository's own store is no part of the project's files. */
const VCS_DIRECTORIES: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  ".jj",
  ".bzr",
  ".sl",
]);

export interface SearchPlace {
  /** The session cwd, absolute: relative paths start here. */
  readonly cwd: string;
  /** The allowed roots, resolved. */
  readonly roots: readonly string[];
}

export type SearchStart =
  | {
    readonly ok: true;
    /** The real path, inside the roots. */
    readonly path: string;
    readonly isDirectory: boolean;
  }
  /** A whole sentence for the model; `missing`: nothing is there. */
  | { readonly ok: false; readonly message: string; readonly missing?: boolean };

/**
 * Where a search starts: `path` (absolute or relative to the cwd; the cwd when absent), resolved
 * and confined to the roots.
 */
export async function resolveSearchStart(
  path: string | undefined,
  place: SearchPlace,
): Promise<SearchStart> {
  const given = path ?? place.cwd;
  const fail = (reason: string, missing = false): SearchStart => ({
    ok: false,
    message: `Cannot search "${given}": ${reason}`,
    ...(missing ? { missing } : {}),
  });
  const confined = await confinePath(given, place);
  if (!confined.ok) return fail(confined.reason);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(confined.path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return fail("no such file or directory (give a path that exists, or none for the cwd)", true);
    }
    if (error instanceof Deno.errors.PermissionDenied) return fail("permission denied");
    return fail(error instanceof Error ? error.message : String(error));
  }
  if (!info.isDirectory && !info.isFile) return fail("it is neither a file nor a directory");
  return { ok: true, path: confined.path, isDirectory: info.isDirectory };
}

export interface WalkedFile {
  /** Absolute. */
  readonly path: string;
  /** Relative to the walk's root, `/`-separated. */
  readonly relative: string;
  /**
   * The file's bytes, at most `maxBytes`, read inside the roots or not at all (see
   * walk_directory.ts), valid until the next read: copy what is kept. Like `modifiedTime`, only
   * while `onFile` runs: its directory is closed once the walk moves on.
   */
  readBytes(maxBytes: number, signal?: AbortSignal): Promise<ConfinedBytes>;
  /** When the file was last modified, in ms; 0 when it cannot be told (it sorts first). */
  modifiedTime(): number;
}

export interface WalkOptions extends SearchPlace {
  readonly maxEntries?: number;
  /** Files this many levels below the root at most (1: the root's own files); all when absent. */
  readonly maxDepth?: number;
  readonly signal?: AbortSignal;
  /** How directories are opened (tests pick one); descriptors where possible, else paths. */
  readonly directories?: OpenDirectorySource;
}

export interface WalkSummary {
  /** Entries looked at. */
  readonly visited: number;
  /** The entry cap stopped the walk: files beyond it were not seen. */
  readonly capped: boolean;
  readonly cancelled: boolean;
  /** Directories that could not be listed (permission denied, removed meanwhile). */
  readonly unreadable: number;
}

/** Descriptors where they can be had, else Deno's file API. */
function openDirectorySource(place: SearchPlace): DirectorySource {
  return openDescriptorDirectories(place) ?? openPathDirectories(place);
}

type OnFile = (file: WalkedFile) => void | Promise<void>;

/**
 * Calls `onFile` for each regular file below `root` (a real directory inside the roots, as
 * `resolveSearchStart` gives it), in name order, depth first.
 */
export async function walkFiles(
  root: string,
  options: WalkOptions,
  onFile: OnFile,
): Promise<WalkSummary> {
  const source = options.directories?.(options) ?? openDirectorySource(options);
  const pause = new EventLoopPause();
  try {
    return await walkWith(source, pause, root, options, onFile);
  } finally {
    pause.close();
    source.close();
  }
}

interface PendingDirectory {
  readonly dir: string;
  /** Its path below the walk's root with a trailing `/`; empty for the root. */
  readonly relative: string;
  readonly depth: number;
  /** The rules in force in its parent. */
  readonly rules: IgnoreRules;
}

async function walkWith(
  source: DirectorySource,
  pause: EventLoopPause,
  root: string,
  options: WalkOptions,
  onFile: OnFile,
): Promise<WalkSummary> {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_WALK_ENTRIES;
  const maxDepth = options.maxDepth ?? Infinity;
  const { signal } = options;
  let visited = 0;
  let unreadable = 0;
  const summary = (capped: boolean, cancelled: boolean): WalkSummary => ({
    visited,
    capped,
    cancelled,
    unreadable,
  });
  const stack: PendingDirectory[] = [
    { dir: root, relative: "", depth: 1, rules: await inheritedRules(root, options) },
  ];
  while (stack.length > 0) {
    await pause.now();
    if (signal?.aborted) return summary(false, true);
    const { dir, relative, depth, rules: parentRules } = stack.pop()!;
    const directory = source.open(dir);
    if (directory === undefined) {
      unreadable += 1;
      continue;
    }
    const subdirectories: PendingDirectory[] = [];
    try {
      const { entries } = directory;
      const rules = parentRules.with(await gitignoreIn(entries, signal), dir);
      for (const entry of entries) {
        if (visited >= maxEntries) return summary(true, false);
        visited += 1;
        // A symlink is neither walked nor searched, whatever it points at.
        if (entry.kind === "symlink" || entry.kind === "other") continue;
        const path = childPath(dir, entry.name);
        if (entry.kind === "directory") {
          if (depth >= maxDepth) continue;
          if (VCS_DIRECTORIES.has(entry.name) || rules.ignores(path, true)) continue;
          subdirectories.push({
            dir: path,
            relative: `${relative}${entry.name}/`,
            depth: depth + 1,
            rules,
          });
          continue;
        }
        if (rules.ignores(path, false)) continue;
        await pause.now();
        if (signal?.aborted) return summary(false, true);
        await onFile({
          path,
          relative: relative + entry.name,
          readBytes: (maxBytes, readSignal) => entry.readBytes(maxBytes, readSignal),
          modifiedTime: () => entry.modifiedTime(),
        });
      }
    } finally {
      directory.close();
    }
    // Reversed onto the stack, so the first in name order is walked first.
    for (let i = subdirectories.length - 1; i >= 0; i--) stack.push(subdirectories[i]!);
  }
  return summary(false, false);
}

/** The text of a directory's own `.gitignore`, when it is a plain file. */
async function gitignoreIn(
  entries: readonly WalkEntry[],
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const entry = entries.find((candidate) => candidate.name === ".gitignore");
  if (entry?.kind !== "file") return undefined;
  const read = await entry.readBytes(MAX_GITIGNORE_BYTES, signal);
  return read.ok ? new TextDecoder().decode(read.bytes) : undefined;
}

/** The text of the `.gitignore` in `dir`, read by name (for the directories above a walk). */
async function gitignoreAt(dir: string, place: WalkOptions): Promise<string | undefined> {
  const path = join(dir, ".gitignore");
  try {
    if (!(await Deno.lstat(path)).isFile) return undefined;
  } catch {
    return undefined;
  }
  const read = await readConfinedBytes(path, place, MAX_GITIGNORE_BYTES, place.signal);
  return read.ok ? new TextDecoder().decode(read.bytes) : undefined;
}

/**
 * The rules of the directories above the walk's root that still belong to the project: up to the
 * repository's root (the nearest directory holding `.git`) or, outside a repository, up to the
 * session cwd, so that a search of `src/` skips what the project's top `.gitignore` ignores.
 */
async function inheritedRules(root: string, options: WalkOptions): Promise<IgnoreRules> {
  const above: string[] = [];
  let reachedTop = false;
  for (let dir = dirname(root); dir !== root; dir = dirname(dir)) {
    if (!isInsideRoots(dir, options.roots)) break;
    above.push(dir);
    if (await exists(join(dir, ".git"))) {
      reachedTop = true;
      break;
    }
    if (dir === dirname(dir)) break;
  }
  if (!reachedTop) {
    // No repository: only directories from the cwd down count as the project.
    const cwdIndex = above.indexOf(options.cwd);
    above.splice(cwdIndex === -1 ? 0 : cwdIndex + 1);
  }
  let rules = IgnoreRules.none;
  for (const dir of above.reverse()) {
    rules = rules.with(await gitignoreAt(dir, options), dir);
  }
  return rules;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** The time a file was last modified, in ms; 0 when it cannot be told (it sorts first). */
export async function modifiedTime(path: string): Promise<number> {
  try {
    return (await Deno.lstat(path)).mtime?.getTime() ?? 0;
  } catch {
    return 0;
  }
}

/** Oldest first, then by path: the order the search tools list files in. */
export function byModifiedTime(
  a: { readonly path: string; readonly mtimeMs: number },
  b: { readonly path: string; readonly mtimeMs: number },
): number {
  return a.mtimeMs - b.mtimeMs || compareNames(a.path, b.path);
}
