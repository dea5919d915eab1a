/**
 * The one door the file tools go through: local files (confined to the allowed roots) or the
 * client's `fs/*` methods (the editor's view, unsaved buffers included). Both answer with values,
 * never throw, and take paths as the model gave them (absolute, or relative to the session cwd).
 */

export interface FileReadOptions {
  /** 1-based line to start at. */
  readonly line?: number;
  /** Number of lines to return. */
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

export interface FileWriteOptions {
  readonly signal?: AbortSignal;
}

/**
 * Why an access failed: the file is not there (for a write: show it as new), a read found a
 * directory (Claude Code tells the model so in its own words), the path is outside the allowed
 * roots, the signal aborted, or anything else.
 */
export type FileAccessFailure = "not_found" | "is_directory" | "refused" | "cancelled" | "failed";

export type FileReadResult =
  | { readonly ok: true; readonly content: string }
  /** `message` is a whole sentence for the model: `Cannot read "x": reason`. */
  | { readonly ok: false; readonly failure: FileAccessFailure; readonly message: string };

export type FileWriteResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly failure: FileAccessFailure; readonly message: string };

export interface FileAccess {
  readTextFile(path: string, options?: FileReadOptions): Promise<FileReadResult>;
  writeTextFile(
    path: string,
    content: string,
    options?: FileWriteOptions,
  ): Promise<FileWriteResult>;
}

/**
 * The lines `[line, line + limit)` of a text, each with its own line ending, so a slice of a
 * CRLF file stays CRLF and slices join back into the file.
 */
export function sliceLines(text: string, line?: number, limit?: number): string {
  if (line === undefined && limit === undefined) return text;
  const lines = text.split(/(?<=\n)/);
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit === undefined ? lines.length : start + limit;
  return lines.slice(start, end).join("");
}
