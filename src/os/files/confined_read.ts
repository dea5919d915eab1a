/**
 * Reads a whole small file the way the file tools open files (confined_opener.ts): only inside
 * the allowed roots, verified as it is opened, never more than a limit. For the search tools,
 * which read many files and must skip, not fail on, the odd one that cannot be read.
 */
import { readAtMost } from "../../config_file.ts";
import type { ConfinedFile, ConfinedPlace } from "./confined_file.ts";
import { confinedOpener } from "./confined_opener.ts";

export type ConfinedBytes =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly reason: "too_big" | "unreadable" | "cancelled" };

/** Reading in steps lets a cancel stop a big file part way. */
const READ_STEP_BYTES = 1024 * 1024;

export async function readConfinedBytes(
  path: string,
  place: ConfinedPlace,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<ConfinedBytes> {
  if (signal?.aborted) return { ok: false, reason: "cancelled" };
  try {
    const opened = await confinedOpener().openRead(path, place);
    if (!opened.ok) return { ok: false, reason: "unreadable" };
    try {
      const read = await readOpenFile(opened.file, maxBytes, signal);
      return read.ok ? read : { ok: false, reason: "too_big" };
    } finally {
      opened.file.close();
    }
  } catch {
    return { ok: false, reason: signal?.aborted ? "cancelled" : "unreadable" };
  }
}

/**
 * An open file's bytes, or the size that is over `maxBytes`: the size it was opened with, or, as
 * it may have grown since, what was read when one byte past the limit was.
 */
export async function readOpenFile(
  file: ConfinedFile,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<
  { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly size: number }
> {
  if (file.size > maxBytes) return { ok: false, size: file.size };
  const bytes = await readAtMost((into) => file.read(into), maxBytes + 1, {
    sizeHint: file.size,
    stepBytes: READ_STEP_BYTES,
    signal,
  });
  return bytes.byteLength > maxBytes ? { ok: false, size: bytes.byteLength } : { ok: true, bytes };
}
