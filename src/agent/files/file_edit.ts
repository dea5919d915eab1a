/**
 * An edit as Claude Code's Edit makes it: an exact string replaced by another, once (the string
 * must then occur once, so the model cannot change the wrong place) or everywhere. An empty
 * string to replace creates a missing file, or fills an empty one. Pure; `editFile` is the same
 * through a file door (the client's `fs/*` or the local disk), for both profiles' kits.
 */
import type { FileAccess, FileAccessFailure } from "./file_access.ts";

export interface TextEdit {
  readonly oldString: string;
  readonly newString: string;
  readonly replaceAll: boolean;
}

/**
 * Why an edit cannot be made: the string is absent, occurs several times without `replaceAll`,
 * would change nothing, names a missing file (and is not empty, which would create it), or is
 * empty for a file that has content.
 */
export type EditFailure =
  | "string_not_found"
  | "multiple_matches"
  | "no_change"
  | "file_missing"
  | "file_exists";

export type AppliedEdit =
  | { readonly ok: true; readonly updated: string; readonly replacements: number }
  | {
    readonly ok: false;
    readonly failure: EditFailure;
    /** For `multiple_matches`: how many times the string occurs. */
    readonly matches?: number;
  };

/**
 * `original` is null for a file that does not exist. A CRLF file is matched with its line
 * endings read as LF (a model writes `\n`; it cannot be expected to send `\r`) and written back
 * with CRLF throughout, so an edit neither fails on nor mixes line endings.
 */
export function applyEdit(original: string | null, edit: TextEdit): AppliedEdit {
  if (original === null || !original.includes("\r\n") || edit.oldString.includes("\r")) {
    return applyExactEdit(original, edit);
  }
  const toLf = (text: string) => text.replaceAll("\r\n", "\n");
  const applied = applyExactEdit(toLf(original), {
    ...edit,
    oldString: toLf(edit.oldString),
    newString: toLf(edit.newString),
  });
  return applied.ok ? { ...applied, updated: applied.updated.replaceAll("\n", "\r\n") } : applied;
}

function applyExactEdit(original: string | null, edit: TextEdit): AppliedEdit {
  const { oldString, newString, replaceAll } = edit;
  // Checked first, as Claude Code does: such an edit is refused whatever the file holds.
  if (oldString === newString) return { ok: false, failure: "no_change" };
  if (original === null) {
    return oldString === ""
      ? { ok: true, updated: newString, replacements: 1 }
      : { ok: false, failure: "file_missing" };
  }
  if (oldString === "") {
    // Whitespace only counts as empty, as in Claude Code: there is nothing to lose.
    return original.trim() === ""
      ? { ok: true, updated: newString, replacements: 1 }
      : { ok: false, failure: "file_exists" };
  }
  const matches = countOccurrences(original, oldString);
  if (matches === 0) return { ok: false, failure: "string_not_found" };
  if (matches > 1 && !replaceAll) return { ok: false, failure: "multiple_matches", matches };
  // split/join rather than String.replace: `$&` and friends in the new text stay literal.
  const updated = original.split(oldString).join(newString);
  return { ok: true, updated, replacements: matches };
}

/** Non-overlapping occurrences, counted as a replacement would find them. */
function countOccurrences(text: string, search: string): number {
  if (search === "") return 0;
  let count = 0;
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length)) {
    count += 1;
  }
  return count;
}

export type ReadForEdit =
  /** `content` null: the file does not exist (an edit with an empty string creates it). */
  | { readonly ok: true; readonly content: string | null }
  | { readonly ok: false; readonly failure: FileAccessFailure; readonly message: string };

/** The file's whole text through the door the edit will be written through. */
export async function readForEdit(
  files: FileAccess,
  path: string,
  signal?: AbortSignal,
): Promise<ReadForEdit> {
  const read = await files.readTextFile(path, { signal });
  if (read.ok) return { ok: true, content: read.content };
  if (read.failure === "not_found") return { ok: true, content: null };
  return read;
}

export type EditFileResult =
  | {
    readonly ok: true;
    /** Null when the edit created the file. */
    readonly original: string | null;
    readonly updated: string;
    readonly replacements: number;
  }
  /** The edit itself cannot be made (nothing was written). */
  | {
    readonly ok: false;
    readonly kind: "edit";
    readonly failure: EditFailure;
    readonly matches?: number;
    readonly original: string | null;
  }
  /** Reading or writing the file failed; `message` is the door's sentence for the model. */
  | {
    readonly ok: false;
    readonly kind: "access";
    readonly failure: FileAccessFailure;
    readonly message: string;
  };

/** Reads, applies and writes back through `files`; nothing is written when the edit fails. */
export async function editFile(
  files: FileAccess,
  path: string,
  edit: TextEdit,
  signal?: AbortSignal,
): Promise<EditFileResult> {
  const read = await readForEdit(files, path, signal);
  if (!read.ok) return { ok: false, kind: "access", failure: read.failure, message: read.message };
  const applied = applyEdit(read.content, edit);
  if (!applied.ok) {
    return {
      ok: false,
      kind: "edit",
      failure: applied.failure,
      ...(applied.matches === undefined ? {} : { matches: applied.matches }),
      original: read.content,
    };
  }
  const written = await files.writeTextFile(path, applied.updated, { signal });
  if (!written.ok) {
    return { ok: false, kind: "access", failure: written.failure, message: written.message };
  }
  return {
    ok: true,
    original: read.content,
    updated: applied.updated,
    replacements: applied.replacements,
  };
}
