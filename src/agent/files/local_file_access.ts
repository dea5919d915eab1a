/**
 * File tools on the agent's own disk, for clients without the `fs` capabilities. Every path is
 * confined to the allowed roots (allowed_roots.ts) by the open itself (confined_opener.ts): what
 * was checked is what is read or written, even if the path is swapped under it.
 *
 * Reads are UTF-8 only and bounded in size: the model cannot use a binary file, and a huge one
 * would only fill its context (the shell tool can page through it). Writes replace the whole file
 * in place (keeping its mode and links) and create missing parent directories, as Claude Code's
 * Write does. Only regular files: a FIFO would hang the call and a device is no text file.
 */
import { errorMessage } from "../../error.ts";
import type { ConfinedFile, ConfinedOpener } from "../../os/files/confined_file.ts";
import { confinedOpener } from "../../os/files/confined_opener.ts";
import { readOpenFile } from "../../os/files/confined_read.ts";
import {
  type FileAccess,
  type FileAccessFailure,
  type FileReadOptions,
  type FileReadResult,
  type FileWriteOptions,
  type FileWriteResult,
  sliceLines,
} from "./file_access.ts";

export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

export interface LocalFileAccessOptions {
  /** The session cwd: relative paths start here. */
  readonly cwd: string;
  /** Resolved allowed roots (see `allowedRoots`). */
  readonly roots: readonly string[];
  readonly maxReadBytes?: number;
  /** How files are opened: by default the best this process has (see `confinedOpener`). */
  readonly opener?: ConfinedOpener;
}

export class LocalFileAccess implements FileAccess {
  constructor(private readonly options: LocalFileAccessOptions) {}

  async readTextFile(path: string, options: FileReadOptions = {}): Promise<FileReadResult> {
    const fail = (failure: FileAccessFailure, reason: string): FileReadResult => ({
      ok: false,
      failure,
      message: `Cannot read "${path}": ${reason}`,
    });
    const maxBytes = this.options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
    let bytes: Uint8Array;
    try {
      if (options.signal?.aborted) return fail("cancelled", "cancelled");
      const opened = await this.#opener().openRead(path, this.options);
      if (!opened.ok) return fail(opened.failure, opened.reason);
      try {
        const read = await readOpenFile(opened.file, maxBytes, options.signal);
        if (!read.ok) return fail("failed", tooBig(read.size, maxBytes));
        bytes = read.bytes;
      } finally {
        opened.file.close();
      }
    } catch (error) {
      const failure = error instanceof Deno.errors.IsADirectory && !options.signal?.aborted
        ? "is_directory"
        : failureOf(error, options.signal);
      return fail(failure, describeFsError(error));
    }
    let text: string;
    try {
      // The byte order mark stays in the text, so a write of the text keeps it.
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return fail("failed", "it is not a UTF-8 text file");
    }
    return { ok: true, content: sliceLines(text, options.line, options.limit) };
  }

  async writeTextFile(
    path: string,
    content: string,
    options: FileWriteOptions = {},
  ): Promise<FileWriteResult> {
    const fail = (failure: FileAccessFailure, reason: string): FileWriteResult => ({
      ok: false,
      failure,
      message: `Cannot write "${path}": ${reason}`,
    });
    try {
      // Before the open, which empties the file; after it, the write goes through whole.
      if (options.signal?.aborted) return fail("cancelled", "cancelled");
      const opened = await this.#opener().openWrite(path, this.options);
      if (!opened.ok) return fail(opened.failure, opened.reason);
      try {
        await writeAll(opened.file, new TextEncoder().encode(content));
      } finally {
        opened.file.close();
      }
    } catch (error) {
      return fail(failureOf(error, options.signal), describeFsError(error));
    }
    return { ok: true };
  }

  #opener(): ConfinedOpener {
    return this.options.opener ?? confinedOpener();
  }
}

/** The bytes one write call is given at most. */
const WRITE_STEP_BYTES = 1024 * 1024;

/**
 * Not stopped by a cancel: the open emptied the file, and stopping part way would lose the old
 * text and the new one.
 */
export async function writeAll(file: ConfinedFile, bytes: Uint8Array): Promise<void> {
  for (let written = 0; written < bytes.length;) {
    written += await file.write(bytes.subarray(written, written + WRITE_STEP_BYTES));
  }
}

function tooBig(size: number, maxBytes: number): string {
  // Rounded alike ("2.0 KiB, over the 2.0 KiB limit"), the sizes would show no excess at all.
  const exact = formatBytes(size) === formatBytes(maxBytes);
  const show = (bytes: number) =>
    exact ? `${formatBytes(bytes)} (${bytes} bytes)` : formatBytes(bytes);
  return `it is ${show(size)}, over the ${show(maxBytes)} limit for reading a file whole ` +
    "(use the shell tool to look at parts of it)";
}

function failureOf(error: unknown, signal: AbortSignal | undefined): FileAccessFailure {
  if (signal?.aborted) return "cancelled";
  return error instanceof Deno.errors.NotFound ? "not_found" : "failed";
}

/** Deno's messages repeat the path and the syscall; the model (or a user) needs the cause. */
export function describeFsError(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (error instanceof Deno.errors.IsADirectory) return "it is a directory";
  if (error instanceof Deno.errors.NotADirectory) return "a part of the path is not a directory";
  if (error instanceof DOMException && error.name === "AbortError") return "cancelled";
  return errorMessage(error);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
