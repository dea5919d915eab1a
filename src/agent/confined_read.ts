/**
 * Reads a whole small file the way the file tools open files (confined_opener.ts): only inside
 * the allowed roots, verified as it is opened, never more than a limit. For the search tools,
 * which read many files and must skip, not fail on, the odd one that cannot be read.
 */
import { readAtMost } from "../config_file.ts";
import type { ConfinedPlace } from "./confined_file.ts";
import { confinedOpener } from "./confined_opener.ts";

export type ConfinedBytes =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly reason: "too_big" | "unreadable" | "cancelled" };

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
      const { file } = opened;
      if (file.size > maxBytes) return { ok: false, reason: "too_big" };
      const bytes = await readAtMost((into) => file.read(into), maxBytes + 1, {
        sizeHint: file.size,
        stepBytes: READ_STEP_BYTES,
        signal,
      });
      if (bytes.byteLength > maxBytes) return { ok: false, reason: "too_big" };
      return { ok: true, bytes };
    } finally {
      opened.file.close();
    }
  } catch {
    return { ok: false, reason: signal?.aborted ? "cancelled" : "unreadable" };
  }
}
