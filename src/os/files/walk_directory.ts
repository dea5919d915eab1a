/**
 * What the search walk (file_walk.ts) needs of a directory: its entries, and for each file its
 * bytes and modification time, read so that nothing outside the allowed roots is, whatever is
 * swapped on the way. Two ways: on descriptors where libc can be used (descriptor_directory.ts:
 * exact, and fast), else with Deno's file API (path_directory.ts); file_walk.ts picks per walk.
 */
import type { ConfinedPlace } from "./confined_file.ts";
import type { ConfinedBytes } from "./confined_read.ts";
import type { EntryKind } from "./directory_calls.ts";

export type { EntryKind };

/** One entry of a listed directory; its methods work until the directory is closed. */
export interface WalkEntry {
  readonly name: string;
  /** What the listing said; a symlink is never followed. */
  readonly kind: EntryKind;
  /**
   * The file's bytes, at most `maxBytes`, read inside the roots or not at all. They may be a view
   * of a buffer the walk reads every file into: use them before the next read, or copy them.
   */
  readBytes(maxBytes: number, signal?: AbortSignal): Promise<ConfinedBytes>;
  /** When the entry was last modified, in ms; 0 when it cannot be told. */
  modifiedTime(): number;
}

export interface WalkDirectory {
  /** In name order (by code unit). */
  readonly entries: readonly WalkEntry[];
  close(): void;
}

/** Opens the directories of one walk; closed when the walk ends. */
export interface DirectorySource {
  /**
   * The directory at `path` (a real path), or undefined when it cannot be listed, or is no
   * longer that directory inside the roots (swapped for a symlink since its parent was listed).
   */
  open(path: string): WalkDirectory | undefined;
  close(): void;
}

/** The source for a walk in `place`; undefined where this way cannot be used. */
export type OpenDirectorySource = (place: ConfinedPlace) => DirectorySource | undefined;

/** By code unit, so the order is the same in every locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `dir/name`; `dir` is an absolute real path, `/` only at the top. */
export function childPath(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}
