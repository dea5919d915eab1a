/**
 * Confined opens with Deno's file API, for where descriptors cannot be had (no FFI grant, not
 * Linux with glibc, no `/proc`). The path is checked, opened by name, then checked again: it must
 * still resolve to itself inside the roots and name the file that was opened (same device and
 * inode). An open that followed a symlink swapped in after the first check is refused in most
 * cases, not all: the checks after the open are lookups by name too, and a swap timed between
 * them passes (bench/fs_race.ts measures how often). A write is emptied only once verified, so a
 * refused one leaves at worst an empty file, and the missing directories made for it, where the
 * swapped path led.
 */
import { dirname } from "node:path";
import { confinePath } from "./allowed_roots.ts";
import {
  type ConfinedFile,
  type ConfinedOpen,
  type ConfinedOpener,
  type ConfinedPlace,
  NotRegularFileError,
  refused,
} from "./confined_file.ts";

const CHANGED_REASON = "it was replaced while it was being opened: try again";

export class PathOpener implements ConfinedOpener {
  async openRead(path: string, place: ConfinedPlace): Promise<ConfinedOpen> {
    const confined = await confinePath(path, place);
    if (!confined.ok) return refused(confined.reason);
    // Looked at first, so that a FIFO is refused instead of waiting for a writer.
    requireRegular(await Deno.stat(confined.path));
    return await verified(await Deno.open(confined.path, { read: true }), confined.path, place);
  }

  async openWrite(path: string, place: ConfinedPlace): Promise<ConfinedOpen> {
    const confined = await confinePath(path, place);
    if (!confined.ok) return refused(confined.reason);
    await Deno.mkdir(dirname(confined.path), { recursive: true });
    const before = await statIfExists(confined.path);
    if (before !== undefined) requireRegular(before);
    const file = await Deno.open(confined.path, { write: true, create: true });
    const opened = await verified(file, confined.path, place);
    if (opened.ok) {
      try {
        await file.truncate(0);
      } catch (error) {
        opened.file.close();
        throw error;
      }
    }
    return opened;
  }
}

/**
 * `file`, once `resolved` names it while resolving to itself inside the roots, checked before and
 * after the lookup of what it names: a swap has to be timed between each of the three to pass.
 */
async function verified(
  file: Deno.FsFile,
  resolved: string,
  place: ConfinedPlace,
): Promise<ConfinedOpen> {
  try {
    const opened = await file.stat();
    const before = await stillItself(resolved, place);
    if (before !== undefined) {
      file.close();
      return before;
    }
    const named = await Deno.stat(resolved);
    const after = await stillItself(resolved, place);
    if (after !== undefined || named.dev !== opened.dev || named.ino !== opened.ino) {
      file.close();
      return after ?? { ok: false, failure: "failed", reason: CHANGED_REASON };
    }
    requireRegular(opened);
    return { ok: true, file: new PathFile(file, opened.size) };
  } catch (error) {
    file.close();
    throw error;
  }
}

/** Nothing when `resolved` still resolves to itself inside the roots, else why not. */
async function stillItself(
  resolved: string,
  place: ConfinedPlace,
): Promise<ConfinedOpen | undefined> {
  const again = await confinePath(resolved, place);
  if (!again.ok) return refused(again.reason);
  if (again.path !== resolved) return { ok: false, failure: "failed", reason: CHANGED_REASON };
  return undefined;
}

function requireRegular(info: Deno.FileInfo): void {
  if (info.isDirectory) throw new Deno.errors.IsADirectory("it is a directory");
  if (!info.isFile) throw new NotRegularFileError();
}

async function statIfExists(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

class PathFile implements ConfinedFile {
  #open = true;

  constructor(private readonly file: Deno.FsFile, readonly size: number) {}

  async read(into: Uint8Array): Promise<number> {
    return await this.file.read(into) ?? 0;
  }

  async write(bytes: Uint8Array): Promise<number> {
    return await this.file.write(bytes);
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.file.close();
  }
}
