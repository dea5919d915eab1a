/**
 * Walk directories with Deno's file API, for where descriptors cannot be had (see
 * walk_directory.ts). A directory is listed only while it resolves to itself inside the roots
 * (not swapped for a symlink since its parent was listed; the check is by name, so it narrows
 * that race without closing it), and files are read through the confined opener
 * (confined_read.ts), which verifies each file as it opens it: no file outside the roots is read
 * even when a swap passes the listing check.
 */
import { isInsideRoots } from "./allowed_roots.ts";
import type { ConfinedPlace } from "./confined_file.ts";
import { type ConfinedBytes, readConfinedBytes } from "./confined_read.ts";
import type { EntryKind } from "./directory_calls.ts";
import {
  childPath,
  compareNames,
  type DirectorySource,
  type WalkDirectory,
  type WalkEntry,
} from "./walk_directory.ts";

export function openPathDirectories(place: ConfinedPlace): DirectorySource {
  return {
    open: (path) => openDirectory(path, place),
    close: () => {},
  };
}

function openDirectory(path: string, place: ConfinedPlace): WalkDirectory | undefined {
  try {
    // Listed at once, by name, like `find`: an async listing costs an event-loop turn per batch.
    if (Deno.realPathSync(path) !== path || !isInsideRoots(path, place.roots)) return undefined;
    const entries: WalkEntry[] = [];
    for (const entry of Deno.readDirSync(path)) {
      entries.push(new PathEntry(childPath(path, entry.name), entry.name, kindOf(entry), place));
    }
    entries.sort((a, b) => compareNames(a.name, b.name));
    return { entries, close: () => {} };
  } catch {
    return undefined;
  }
}

class PathEntry implements WalkEntry {
  constructor(
    private readonly path: string,
    readonly name: string,
    readonly kind: EntryKind,
    private readonly place: ConfinedPlace,
  ) {}

  readBytes(maxBytes: number, signal?: AbortSignal): Promise<ConfinedBytes> {
    return readConfinedBytes(this.path, this.place, maxBytes, signal);
  }

  modifiedTime(): number {
    try {
      return Deno.lstatSync(this.path).mtime?.getTime() ?? 0;
    } catch {
      return 0;
    }
  }
}

function kindOf(entry: Deno.DirEntry): EntryKind {
  if (entry.isSymlink) return "symlink";
  if (entry.isDirectory) return "directory";
  return entry.isFile ? "file" : "other";
}
