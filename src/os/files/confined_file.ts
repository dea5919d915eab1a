/**
 * A file opened inside the allowed roots, checked as it was opened rather than by name
 * beforehand, so that what was verified is what is read or written even when a directory on the
 * path is swapped for a symlink in between. How exactly that holds depends on the opener, which
 * confined_opener.ts picks.
 */

/** An open regular file. */
export interface ConfinedFile {
  /** The size when it was opened. */
  readonly size: number;
  /** Reads into `into`; 0 at the end of the file. */
  read(into: Uint8Array): Promise<number>;
  /** Writes some of `bytes`; the count written. */
  write(bytes: Uint8Array): Promise<number>;
  close(): void;
}

/** Where a tool's path starts (`cwd`) and where it may lead (`roots`, already resolved). */
export interface ConfinedPlace {
  readonly cwd: string;
  readonly roots: readonly string[];
}

/**
 * An opened file, or why not as a value: outside the roots (`refused`), or a path that kept
 * changing under the open (`failed`). Everything the system refused is thrown, as Deno's errors
 * (`Deno.errors.NotFound`, `IsADirectory`, ...), so callers describe both openers alike.
 */
export type ConfinedOpen =
  | { readonly ok: true; readonly file: ConfinedFile }
  /** `reason` completes `Cannot read "x": <reason>`. */
  | { readonly ok: false; readonly failure: "refused" | "failed"; readonly reason: string };

/** The open of a path that leads outside the roots. */
export function refused(reason: string): ConfinedOpen {
  return { ok: false, failure: "refused", reason };
}

export interface ConfinedOpener {
  /** Opens an existing regular file for reading. */
  openRead(path: string, place: ConfinedPlace): Promise<ConfinedOpen>;
  /**
   * Opens a regular file for writing, emptied, creating it and its missing parent directories;
   * an existing file keeps its mode and links.
   */
  openWrite(path: string, place: ConfinedPlace): Promise<ConfinedOpen>;
}

/** Thrown for a FIFO, a device or a socket: the file tools only take regular files. */
export class NotRegularFileError extends Error {
  override readonly name = "NotRegularFileError";
  constructor() {
    super("it is not a regular file");
  }
}
